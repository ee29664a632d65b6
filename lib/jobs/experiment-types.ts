/**
 * The experiment-method plug-in contract as the attempt worker uses it (issue 13; shared names in
 * /work/notes/design-13.md). The method registry itself (`METHODS` of
 * lib/services/experiments/methods, one module per method) is injected into the worker, so tests
 * run it with fake methods of seeded outcomes (./experiment-fake-methods.ts).
 *
 * These are structural copies of lib/services/experiments/methods/types.ts: a registry written
 * against that file fits these types.
 */
import type { ReplayBundle } from "../bundle";
import type { RegisteredRunner } from "../services/runners";
import type { MarsSettings } from "../experiments/mars";

/** Method names (CLI and database): task level first, then node level. */
export const METHOD_NAMES = ["rerun", "self-reflection", "critic", "suspicious-node", "annotated-node", "random-node", "last-node", "node-resample", "nudge", "correction", "correction-control", "mars"] as const;
export type MethodName = (typeof METHOD_NAMES)[number];
/** Task-level methods chain their attempts (attempt a+1 only after attempt a failed). */
export const TASK_LEVEL_METHODS: readonly string[] = ["rerun", "self-reflection", "critic"];

/** The reproduction judge: a command with the evaluator's contract (exit 0 = reproduced), or an LLM judge. */
export type ReproductionJudge = { kind: "command"; command: string } | { kind: "llm"; upstream: string; model: string | null } | null;

/** Settings frozen at experiment start, the same for every arm. */
export interface ExperimentSettings {
  upstream: string;
  toolUpstream: string | null;
  model: string | null;
  /** Command with the SYMTRACE_REPLAY_EVALUATOR contract, or null. */
  evaluator: string | null;
  reproductionJudge: ReproductionJudge;
  /** MAS command for every case (CLI `-- cmd`), else each case's registered runner. */
  command: string[] | null;
  seed: number;
  /** k: attempts per (case, method). */
  attempts: number;
  budget: { maxCalls: number | null; maxTokens: number | null };
  /** Per-attempt MAS timeout (ms). */
  timeoutMs: number;
  /** The `mars` method's search settings and budget (lib/experiments/mars.ts); absent/null = defaults. */
  mars?: MarsSettings | null;
  /** Set when fake (scripted, test-harness) methods ran this experiment: what they were. Never set by production code paths; shown in the settings and the report (issue 20 item 5). */
  fake?: string | null;
}

/** The reference a node-level method may use: final annotation, else the dataset's reference label. */
export interface CaseReference {
  nodeId: string;
  primaryCategory: "C1" | "C2" | "C3" | "C4";
  categories: string[];
}

export interface ExperimentCaseInput {
  /** The source bundle id (stable across databases). */
  caseId: string;
  bundle: ReplayBundle;
  mas: string;
  benchmark: string | null;
  task: string;
  reference: CaseReference | null;
  /** The final annotation's proposed correction at `reference.nodeId` (frozen), for `correction`. */
  correction?: string | null;
  runner: RegisteredRunner | null;
}

/** "no_verdict": the attempt ran but no evaluator judged it (none configured, or it gave no verdict): neither a pass nor a failure (issue 20 item 4). */
export type AttemptStatus = "passed" | "failed" | "error" | "no_verdict" | "skipped" | "cancelled";

export interface AttemptOutcome {
  status: AttemptStatus;
  /** Evaluator verdict; error ⇒ false (kept in the denominator); skipped, no_verdict ⇒ null. */
  passed: boolean | null;
  reproduced: boolean | null;
  anchorNodeId: string | null;
  guidance: string | null;
  bundle: ReplayBundle | null;
  final: unknown;
  /** Captured live API calls of the MAS (LLM + tool). */
  calls: number;
  /** Critic / self-reflection extra LLM calls (not the judge). */
  auxCalls: number;
  tokens: { prompt: number; completion: number; total: number };
  /** Of tokens.total: the method's own LLM calls (critic; MARS selector + judge). Absent = 0. */
  auxTokens?: number;
  /** A method's artifact beside its bundle (MARS: the repair tree), stored as JSON; absent = none. */
  artifact?: unknown;
  error: string | null;
  skipReason: string | null;
  masMs: number;
  judgeReason: string | null;
}

export interface AttemptContext {
  case: ExperimentCaseInput;
  method: MethodName;
  /** 1..k */
  attempt: number;
  settings: ExperimentSettings;
  /** Derived: hash(settings.seed, caseId, method, attempt) (attemptSeed). */
  seed: number;
  /** Earlier attempts of this (case, method), for task-level chains. */
  previous: AttemptOutcome[];
  signal: AbortSignal;
  onProgress?: (p: { phase: string; liveCalls: number }) => void;
}

export interface ExperimentMethod {
  name: MethodName;
  level: "task" | "node";
  /** A fake method (test harness only, lib/jobs/experiment-fake-methods.ts) says what it is; real methods leave it unset. */
  fake?: string;
  /** Why it cannot run on this case, or null. */
  skipReason(c: ExperimentCaseInput, s: ExperimentSettings): string | null;
  /** Never throws: errors → status "error". */
  run(ctx: AttemptContext): Promise<AttemptOutcome>;
}

/** `METHODS` of lib/services/experiments/methods, or a test registry. */
export type MethodRegistry = Partial<Record<string, ExperimentMethod>>;
