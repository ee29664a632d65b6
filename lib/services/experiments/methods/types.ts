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

/** Frozen settings, the reference of a case and the outcome of an attempt: the pure core (lib/db stores them). */
export type { AttemptOutcome, CaseReference, ExperimentSettings, ReproductionJudgeSetting, TokenCounts } from "../../../experiments/settings";
import type { AttemptOutcome, CaseReference, ExperimentSettings } from "../../../experiments/settings";

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
  /**
   * Called once the attempt's MAS run is over and only its evaluation and recording are left
   * (concludeAttempt): the worker may start its next attempt meanwhile (lib/jobs JobContext.handOff).
   */
  onMasDone?: () => void;
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
