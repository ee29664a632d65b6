/**
 * What an experiment freezes and what one attempt records, as lib/db stores them and the methods
 * (lib/services/experiments/methods) produce them: the frozen settings, a case's reference
 * failure, and an attempt's outcome. Pure types (lib/db and lib/services both read them; the
 * method plug-in interface in lib/services/experiments/methods/types.ts re-exports them).
 */
import type { ReplayBundle } from "../bundle";
import type { MarsSettings } from "./mars";

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
