/**
 * The method plug-in interface of repair experiments (issue 13 item 2; /work design-13 contract
 * shared by the runner, the statistics and the methods). One module per method in this folder,
 * registered in ./index.ts `METHODS`. A method runs ONE attempt of one (case, method) pair and
 * reports its outcome; the runner (lib/services/experiments/run.ts) decides which attempts run
 * (task level: a chain stopping at the first pass; node level: k independent attempts).
 */
import type { ReplayBundle } from "../../../bundle";
import type { MarsSettings } from "../../../experiments/mars";
import type { RegisteredRunner } from "../../runners";

/** The `mars` method's own settings (lib/experiments/mars.ts `resolveMarsSettings`: defaults, checks). */
export type { MarsSettings };

/** Names, levels, labels and pairings: the one catalog lib/experiments/methods.ts. */
export { METHOD_NAMES, CORRECTION_METHODS, type MethodName } from "../../../experiments/methods";
import type { MethodName } from "../../../experiments/methods";

/** Reproduction judge of an experiment: a command with the evaluator's contract, or an LLM judge. */
export type ReproductionJudgeSetting = { kind: "command"; command: string } | { kind: "llm"; upstream: string; model: string | null };

/** Frozen at experiment start, the same for every arm. */
export interface ExperimentSettings {
  /** Live OpenAI-compatible base URL ending in /v1 (MAS calls, the critic call, transcript continuations). */
  upstream: string;
  toolUpstream: string | null;
  /** Model alias: task level → SYMTRACE_MODEL of the new run (default: the source's `config.model`); critic call and transcript continuation model. Native replays keep the source's recorded model. */
  model: string | null;
  /** Evaluator command (SYMTRACE_REPLAY_EVALUATOR contract: exit 0 = passed, 1 = failed, else unknown). */
  evaluator: string | null;
  reproductionJudge: ReproductionJudgeSetting | null;
  /** MAS command for every case (CLI `-- cmd`, trusted), else the case's registered runner. */
  command: string[] | null;
  seed: number;
  /** k: attempts per (case, method). */
  attempts: number;
  budget: { maxCalls: number | null; maxTokens: number | null };
  /** Whole-attempt limit of one MAS run / replay, ms. */
  timeoutMs: number;
  /** The `mars` method's search settings and budget (frozen resolved when the experiment runs mars; absent/null = the defaults). */
  mars?: MarsSettings | null;
  /** Set when fake (scripted, test-harness) methods ran this experiment: what they were. Never set by production code paths; shown in the settings and the report (issue 20 item 5). */
  fake?: string | null;
}

/** The reference failure of a case: the final annotation, else the dataset's reference label. */
export interface CaseReference {
  nodeId: string;
  primaryCategory: "C1" | "C2" | "C3" | "C4";
  categories: string[];
  /** Annotator's rationale, when there is one (shown to the reproduction judge only, never to a method). */
  rationale?: string | null;
  /** Supporting evidence quotes of the reference (E_i of eq. 13; shown to the reproduction judge only). */
  evidence?: string[] | null;
}

/** One case of an experiment. */
export interface ExperimentCaseInput {
  caseId: string;
  /** The source failure (valid bundle v1). */
  bundle: ReplayBundle;
  mas: string;
  benchmark: string | null;
  /** The case's task text. */
  task: string;
  reference: CaseReference | null;
  /**
   * The proposed correction a* at `reference.nodeId` (issue 14 item 3: the final annotation's
   * `correction`, frozen with the case set), or null/absent. Used only by `correction` (it
   * replaces the node's output); never shown to the reproduction judge.
   */
  correction?: string | null;
  /** Resolved by the service (planReplay / runners.ts); null when the bundle names no registered runner. */
  runner: RegisteredRunner | null;
}

/** Progress of one attempt (liveCalls: MAS boundary calls forwarded live so far). */
export interface AttemptProgress {
  phase: string;
  liveCalls: number;
}

/** What a method gets for one attempt. */
export interface AttemptContext {
  case: ExperimentCaseInput;
  method: MethodName;
  /** 1..k */
  attempt: number;
  settings: ExperimentSettings;
  /** Derived by the runner: hash(settings.seed, caseId, method, attempt). Random-Node draws from it. */
  seed: number;
  /** Earlier attempts of this (case, method), for task-level chains. */
  previous: AttemptOutcome[];
  signal: AbortSignal;
  onProgress?: (p: AttemptProgress) => void;
}

/** Token counts from `usage` of live LLM responses (0 when a response carries none). */
export interface TokenCounts {
  prompt: number;
  completion: number;
  total: number;
}

/** How one attempt ended. */
export interface AttemptOutcome {
  status: "passed" | "failed" | "error" | "no_verdict" | "skipped" | "cancelled";
  /** Evaluator verdict; error ⇒ false (kept in the denominator); skipped/cancelled or no evaluator ⇒ null. */
  passed: boolean | null;
  /** Reproduction judge verdict; null when no judge, no reference for the LLM judge, or the judge failed (see judgeReason). */
  reproduced: boolean | null;
  /** Node level: the source node the method chose (the replay maps it to its LLM boundary). Null for task level. */
  anchorNodeId: string | null;
  /** The exact text injected (guidance Δ, or the changed task for self-reflection / critic); null for rerun / node-resample. */
  guidance: string | null;
  /** The attempt's recording (replay output or new recording), when there is one. */
  bundle: ReplayBundle | null;
  /** The MAS's final output (`{"final": ...}` value, or the transcript continuation). */
  final: unknown;
  /** Live MAS boundary calls (LLM + tool) of this attempt; node level: only those after the verified prefix. Not aux, not judge. */
  calls: number;
  /** Critic calls (one per Critic-Agent attempt); never the reproduction judge. */
  auxCalls: number;
  /** From `usage` of the live MAS LLM responses plus the aux calls (not the reproduction judge). */
  tokens: TokenCounts;
  /** Of `tokens.total`: the aux calls' tokens (critic call; MARS selector + judge). Absent = 0. */
  auxTokens?: number;
  /** A method's artifact stored beside its bundle (MARS: the repair tree, `{kind: "mars-tree", ...}`), or absent. */
  artifact?: unknown;
  /** System / framework error text (status "error"). */
  error: string | null;
  /** Status "skipped": why the method cannot apply to this case. */
  skipReason: string | null;
  /** Wall time of the MAS process(es) or the transcript call, ms. */
  masMs: number;
  /** Evaluator and reproduction-judge explanation (one line each). */
  judgeReason: string | null;
}

/** A repair method (one arm of an experiment). */
export interface ExperimentMethod {
  name: MethodName;
  /** A fake method (test harness only, lib/jobs/experiment-fake-methods.ts) says what it is; real methods leave it unset. */
  fake?: string;
  /** Why it cannot run on this case (e.g. task level without a runner/command), or null. Cheap and pure. */
  skipReason(c: ExperimentCaseInput, s: ExperimentSettings): string | null;
  /** Run one attempt. Never throws: errors → status "error"; not applicable → status "skipped". */
  run(ctx: AttemptContext): Promise<AttemptOutcome>;
}

/** `METHODS` of ./index.ts, or a test registry (fake methods). Its level, label and pairing come from the catalog (lib/experiments/methods.ts). */
export type MethodRegistry = Partial<Record<string, ExperimentMethod>>;
