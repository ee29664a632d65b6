/**
 * How experiment workers learn about attempts (as ./backends.ts does for replay runs):
 *
 * - "poll" (SQLite): ExperimentWorker.start() claims the oldest claimable attempt every
 *   idlePollMs (at once when woken by enqueueExperimentAttempts in the same process). Any number of
 *   processes may poll one SQLite file; the conditional claim keeps attempts exclusive.
 * - "pg-boss" (PostgreSQL): one job `{ attemptId }` per attempt on queue EXPERIMENT_QUEUE
 *   (policy short: at most one waiting job per attempt; no pg-boss retries). Every worker
 *   process `work`s the queue and claims the row for the id it is given. A maintenance timer
 *   (every leaseMs / 2) sweeps (sweepExperiments) and re-sends jobs for claimable attempts that
 *   have none waiting: queued ones older than a few seconds (their send was lost) and running ones
 *   whose lease expired (their worker died) — so a crash is resumed by any live worker.
 */
import { getDb, providerOfDb, type Db } from "../db/client";
import { listClaimableAttemptIds } from "../db/experiments";
import { resolveDatabaseUrl } from "../db/url";
import { getBoss } from "./backends";
import { DEFAULT_LEASE_MS, ExperimentWorker, type ExperimentWorkerOptions } from "./experiment-worker";

export const EXPERIMENT_QUEUE = "symtrace-experiment-attempt";

export interface ExperimentWorkerBackend {
  kind: "poll" | "pg-boss";
  worker: ExperimentWorker;
  wake(): void;
  stop(o?: { graceMs?: number }): Promise<void>;
}

export interface StartExperimentWorkerOptions extends ExperimentWorkerOptions {
  /** Connection string of `db` (pg-boss); default DATABASE_URL. */
  url?: string;
  /** pg-boss polling interval in seconds (default 1, minimum 0.5). */
  pgBossPollingSeconds?: number;
}

const queues = new WeakSet<object>();

async function bossWithQueue(url: string) {
  const boss = await getBoss(url);
  if (!queues.has(boss)) {
    const create = () => boss.createQueue(EXPERIMENT_QUEUE, { name: EXPERIMENT_QUEUE, policy: "short", retryLimit: 0, expireInSeconds: 4 * 3600 });
    // Two processes creating the queue at the same moment may deadlock in PostgreSQL: try again once.
    await create().catch(async () => {
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 300));
      await create();
    });
    queues.add(boss);
  }
  return boss;
}

/**
 * One job per attempt, keyed by the attempt id on a queue of policy "short": a re-send while a job
 * for the attempt is still waiting is dropped; a job may wait beside an "active" one of the same
 * attempt (a dead worker's job stays active in pg-boss until it expires — with policy "stately" a
 * second job of that key could never become active, and pg-boss's fetch of the whole queue fails).
 * Duplicates are harmless: the row's conditional claim runs an attempt once.
 */
async function sendAttemptJobs(db: Db, url: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const boss = await bossWithQueue(url);
  let sent = 0;
  for (const attemptId of ids) if (await boss.send(EXPERIMENT_QUEUE, { attemptId }, { singletonKey: attemptId })) sent++;
  return sent;
}

const localWorkers = new Set<ExperimentWorker>();

/**
 * Make attempts reach a worker. SQLite: wake this process's polling workers. PostgreSQL: one
 * pg-boss job per attempt (duplicates of a waiting job are dropped).
 * @returns jobs sent (0 on SQLite)
 */
export async function enqueueExperimentAttempts(db: Db, attemptIds: string[], o: { url?: string } = {}): Promise<number> {
  if (providerOfDb(db) !== "postgresql") {
    for (const w of localWorkers) w.wake();
    return 0;
  }
  return sendAttemptJobs(db, o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL), attemptIds);
}

/** Enqueue every claimable attempt of an experiment (after create, or to resume one). @returns jobs sent */
export async function enqueueExperiment(db: Db, experimentId: string, o: { url?: string } = {}): Promise<number> {
  return enqueueExperimentAttempts(db, await listClaimableAttemptIds(db, { experimentId }), o);
}

/**
 * Start an experiment worker on `db`: pg-boss on PostgreSQL, else polling. New rows of task-level
 * chains are enqueued by the worker that creates them.
 */
export async function startExperimentWorkerBackend(o: StartExperimentWorkerOptions): Promise<ExperimentWorkerBackend> {
  const pg = providerOfDb(o.db) === "postgresql";
  const url = pg ? (o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL)) : "";
  const worker = new ExperimentWorker({
    ...o,
    onNewAttempts: async (ids) => {
      await o.onNewAttempts?.(ids);
      if (pg) await sendAttemptJobs(o.db, url, ids).catch((e) => process.stderr.write(`experiment enqueue failed (a sweep re-sends): ${(e as Error).message}\n`));
      else worker.wake();
    },
  });
  localWorkers.add(worker);
  if (!pg) {
    worker.start();
    return {
      kind: "poll",
      worker,
      wake: () => worker.wake(),
      stop: async (s) => {
        await worker.stop(s);
        localWorkers.delete(worker);
      },
    };
  }
  const boss = await bossWithQueue(url);
  await worker.sweep().catch((e) => process.stderr.write(`experiment worker ${worker.id}: sweep failed: ${(e as Error).message}\n`));
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const workIds: string[] = [];
  for (let i = 0; i < Math.max(1, o.concurrency ?? 1); i++) {
    workIds.push(
      await boss.work<{ attemptId: string }>(EXPERIMENT_QUEUE, { batchSize: 1, pollingIntervalSeconds: o.pgBossPollingSeconds ?? 1 }, async (jobs) => {
        for (const job of jobs) await worker.processAttempt(job.data.attemptId).catch((e) => process.stderr.write(`attempt ${job.data.attemptId}: ${(e as Error).message}\n`));
      }),
    );
  }
  let busy = false;
  const maintain = async () => {
    await worker.sweep();
    await sendAttemptJobs(o.db, url, await listClaimableAttemptIds(o.db, { experimentId: o.experimentId, olderThanMs: Math.max(2000, leaseMs / 3) }));
  };
  const timer = setInterval(
    () => {
      if (busy || worker.stopped) return;
      busy = true;
      void maintain()
        .catch((e) => process.stderr.write(`experiment worker ${worker.id}: maintenance failed: ${(e as Error).message}\n`))
        .finally(() => (busy = false));
    },
    Math.max(500, leaseMs / 2),
  );
  timer.unref?.();
  // Resume at once what a dead worker left (expired leases) or a lost send left queued.
  void maintain().catch(() => {});
  return {
    kind: "pg-boss",
    worker,
    wake: () => {},
    stop: async (s) => {
      clearInterval(timer);
      for (const id of workIds) await boss.offWork({ id }).catch(() => {});
      await worker.stop(s);
      localWorkers.delete(worker);
    },
  };
}

const ge = globalThis as unknown as { __symtraceExperimentWorker?: Promise<ExperimentWorkerBackend | null> };

/**
 * The experiment worker inside the app's process, started once (idempotent); disabled with
 * SYMTRACE_EMBEDDED_WORKER=0 (then run `npm run worker` processes).
 */
export function ensureEmbeddedExperimentWorker(o: Partial<StartExperimentWorkerOptions> = {}): Promise<ExperimentWorkerBackend | null> {
  if (process.env.SYMTRACE_EMBEDDED_WORKER === "0") return Promise.resolve(null);
  if (!ge.__symtraceExperimentWorker) {
    ge.__symtraceExperimentWorker = startExperimentWorkerBackend({ ...o, db: o.db ?? getDb() });
    ge.__symtraceExperimentWorker.catch((e) => {
      process.stderr.write(`embedded experiment worker failed to start: ${(e as Error).message}\n`);
      ge.__symtraceExperimentWorker = undefined;
    });
  }
  return ge.__symtraceExperimentWorker;
}

/** Stop the embedded experiment worker if it runs. */
export async function stopEmbeddedExperimentWorker(o: { graceMs?: number } = {}): Promise<void> {
  const p = ge.__symtraceExperimentWorker;
  ge.__symtraceExperimentWorker = undefined;
  const b = await p?.catch(() => null);
  await b?.stop(o);
}
