/**
 * lib/jobs: replay runs as jobs (server-side only). See ./README.md.
 *
 * The app calls: `startReplayRuns` (create + enqueue), `retryReplayRun` (retry + enqueue),
 * `requestCancel` / `getRun` / `listRunsForCase` (lib/db), and `ensureEmbeddedWorker()` once per
 * server process.
 */
import type { Db } from "../db/client";
import { createReplayRuns, retryRun, type CreateReplayRunsInput, type ReplayRunView } from "../db/replay-runs";
import { enqueueReplayRuns } from "./backends";

export { ReplayWorker, buildReplaySpec, newWorkerId, loadDefaultExecutor, DEFAULT_STALE_AFTER_MS, type ReplayWorkerOptions } from "./worker";
export {
  REPLAY_QUEUE,
  startWorkerBackend,
  enqueueReplayRuns,
  ensureEmbeddedWorker,
  stopEmbeddedWorker,
  getBoss,
  closeBoss,
  type WorkerBackend,
  type StartWorkerOptions,
} from "./backends";
export { fakeExecutor, fakeExecutorFromEnv, type FakeExecutorOptions } from "./fake-executor";
export type { ReplayExecutor, ExecutorOptions, JobReplaySpec, JobReplayProgress, JobReplayResult } from "./types";

/**
 * Queue 1–5 replays (createReplayRuns, one transaction) and hand them to the workers
 * (enqueueReplayRuns). If the enqueue fails on PostgreSQL the runs stay queued and a worker's
 * periodic sweep re-sends them.
 * @returns `{ groupId, runs }`
 */
export async function startReplayRuns(db: Db, input: CreateReplayRunsInput, o: { url?: string } = {}): Promise<{ groupId: string; runs: ReplayRunView[] }> {
  const res = await createReplayRuns(db, input);
  await enqueueReplayRuns(db, res.runs.map((r) => r.id), o).catch((e) => process.stderr.write(`enqueue failed (runs stay queued): ${(e as Error).message}\n`));
  return res;
}

/**
 * Retry an interrupted / failed / cancelled run (retryRun: a new queued run, attempt + 1) and
 * enqueue it.
 * @throws ReplayRunError "not-found" | "conflict"
 */
export async function retryReplayRun(db: Db, runId: string, actor?: string | null, o: { url?: string } = {}): Promise<ReplayRunView> {
  const run = await retryRun(db, runId, actor);
  await enqueueReplayRuns(db, [run.id], o).catch((e) => process.stderr.write(`enqueue failed (run stays queued): ${(e as Error).message}\n`));
  return run;
}

// Experiment attempts (issue 13): one job per (case, method, attempt).
export { ExperimentWorker, buildAttemptContext, attemptSeed, attemptBundleId, loadDefaultMethods, DEFAULT_LEASE_MS, type ExperimentWorkerOptions } from "./experiment-worker";
export {
  EXPERIMENT_QUEUE,
  startExperimentWorkerBackend,
  enqueueExperimentAttempts,
  enqueueExperiment,
  ensureEmbeddedExperimentWorker,
  stopEmbeddedExperimentWorker,
  type ExperimentWorkerBackend,
  type StartExperimentWorkerOptions,
} from "./experiment-backends";
export { FAKE_METHODS_STAMP, fakeMethods, unitFromSeed, type FakeMethodsOptions } from "./experiment-fake-methods";
export * from "./experiment-types";

// Search-based repairs (issue 15 item 3): one RepairSearch row = one search = one job, resumable.
export { RepairSearchWorker, searchNodeBundleId, DEFAULT_REPAIR_SEARCH_LEASE_MS, type RepairSearchWorkerOptions } from "./repair-search-worker";
export {
  REPAIR_SEARCH_QUEUE,
  startRepairSearchWorkerBackend,
  enqueueRepairSearches,
  ensureEmbeddedRepairSearchWorker,
  stopEmbeddedRepairSearchWorker,
  type RepairSearchWorkerBackend,
  type StartRepairSearchWorkerOptions,
} from "./repair-search-backends";
