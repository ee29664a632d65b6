/**
 * The executor contract the workers run (mirrors lib/services/replay-exec.ts `executeReplay`):
 * `(spec, { signal, onProgress }) => Promise<result>`. Kept here as structural types so that
 * workers and tests can inject any executor (tests use ./fake-executor).
 */
import type { ReplayBundle } from "../bundle";
import type { RegisteredRunner } from "../services/runners";
import type { ReplayRunOutcome, ReplayRunProgress } from "../db/replay-runs";

/** What a worker hands the executor (built from the run row by `buildReplaySpec`). */
export interface JobReplaySpec {
  /** The source case, exported as a bundle. */
  source: ReplayBundle;
  targetNodeId: string;
  guidance: string;
  upstream: string | null;
  toolUpstream: string | null;
  /** Anthropic Messages base URL (without /v1); absent: derived from `upstream`. */
  anthropicUpstream?: string | null;
  model?: string;
  /** A command set by server code on the run (never from the bundle). */
  command?: string[];
  /** The registered runner the source bundle names (null: transcript continuation). */
  runner?: RegisteredRunner | null;
  /** Id of the bundle the run produces (deterministic per run, so a re-import is idempotent). */
  newBundleId?: string;
}

/** Progress the executor reports: `{ phase, verified, prefixTotal, liveCalls, boundaryNodeId }`. */
export type JobReplayProgress = ReplayRunProgress;

/** How the executor ends (see ReplayRunOutcome in lib/db/replay-runs.ts). */
export type JobReplayResult = ReplayRunOutcome;

export interface ExecutorOptions {
  /** Fires on cancel (reason "cancel") or worker shutdown (reason "shutdown"). */
  signal?: AbortSignal;
  onProgress?: (p: JobReplayProgress) => void;
}

export type ReplayExecutor = (spec: JobReplaySpec, opts: ExecutorOptions) => Promise<JobReplayResult>;
