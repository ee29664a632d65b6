/**
 * lib/jobs: every background job of SymTrace through one job layer (server-side only; see
 * ./README.md). Kinds: replay runs, experiment attempts, repair searches, attribution jobs (./kinds.ts), one worker
 * (./job-worker.ts), one SQLite polling and one pg-boss backend (./backends.ts); the lease SQL is
 * lib/db/leases.ts.
 *
 * The app calls: `startReplayRuns` / `retryReplayRun` (create + enqueue), `enqueueJobs`,
 * `ensureEmbeddedWorkers()` once per server process (instrumentation.ts).
 */
import type { Db } from "../db/client";
import { createReplayRuns, retryRun, type CreateReplayRunsInput, type ReplayRunView } from "../db/replay-runs";
import { enqueueJobs } from "./backends";

export { JobWorker, newWorkerId, JOB_KIND_NAMES, type JobKind, type JobKindName, type JobContext, type JobWorkerOptions } from "./job-worker";
export { JOB_QUEUES, startJobBackend, enqueueJobs, getBoss, closeBoss, type JobBackend, type StartJobBackendOptions } from "./backends";
export { jobKind, createWorker, startWorkers, ensureEmbeddedWorkers, type JobKindOptions, type KindSettings, type StartWorkersOptions, type Workers } from "./kinds";
export { replayKind, buildReplaySpec, loadDefaultExecutor, REPLAY_QUEUE, type ReplayKindOptions } from "./kinds/replay";
export { experimentAttemptKind, buildAttemptContext, attemptSeed, attemptBundleId, loadDefaultMethods, enqueueExperiment, EXPERIMENT_QUEUE, DEFAULT_LEASE_MS, type ExperimentKindOptions } from "./kinds/experiment-attempt";
export { attributionKind, countingLlm, ATTRIBUTION_QUEUE, DEFAULT_ATTRIBUTION_LEASE_MS, type AttributionKindOptions } from "./kinds/attribution";
export { repairSearchKind, searchNodeBundleId, REPAIR_SEARCH_QUEUE, DEFAULT_REPAIR_SEARCH_LEASE_MS, type RepairSearchKindOptions } from "./kinds/repair-search";
export { fakeExecutor, fakeExecutorFromEnv, type FakeExecutorOptions } from "./fake-executor";
export { FAKE_METHODS_STAMP, fakeMethods, unitFromSeed, type FakeMethodsOptions } from "./experiment-fake-methods";
export type { ReplayExecutor, ExecutorOptions, JobReplaySpec, JobReplayProgress, JobReplayResult } from "./types";

/**
 * Queue 1–5 replays (createReplayRuns, one transaction) and hand them to the workers
 * (enqueueJobs). If the enqueue fails on PostgreSQL the runs stay queued and a worker's
 * periodic maintenance re-sends them.
 * @returns `{ groupId, runs }`
 */
export async function startReplayRuns(db: Db, input: CreateReplayRunsInput, o: { url?: string } = {}): Promise<{ groupId: string; runs: ReplayRunView[] }> {
  const res = await createReplayRuns(db, input);
  await enqueueJobs(db, "replay", res.runs.map((r) => r.id), o).catch((e) => process.stderr.write(`enqueue failed (runs stay queued): ${(e as Error).message}\n`));
  return res;
}

/**
 * Retry an interrupted / failed / cancelled run (retryRun: a new queued run, attempt + 1) and
 * enqueue it.
 * @throws ReplayRunError "not-found" | "conflict"
 */
export async function retryReplayRun(db: Db, runId: string, actor?: string | null, o: { url?: string } = {}): Promise<ReplayRunView> {
  const run = await retryRun(db, runId, actor);
  await enqueueJobs(db, "replay", [run.id], o).catch((e) => process.stderr.write(`enqueue failed (run stays queued): ${(e as Error).message}\n`));
  return run;
}
