/**
 * Two ways workers learn about queued runs, behind one interface (WorkerBackend):
 *
 * - "poll" (SQLite, the embedded default): ReplayWorker.start() claims the oldest queued run
 *   every second (and at once when woken by enqueueReplayRuns in the same process). Any number of
 *   processes on the same SQLite file may poll; the conditional claim keeps runs exclusive.
 * - "pg-boss" (PostgreSQL): enqueueReplayRuns sends one pg-boss job `{ runId }` per run to queue
 *   REPLAY_QUEUE; every worker process `boss.work`s that queue and claims the row for the id it
 *   is given (a duplicate delivery finds the row no longer queued and does nothing). A periodic
 *   sweep re-sends queued runs that have no pending job (e.g. the app died between insert and
 *   send); the queue's "stately" policy drops a re-send while a job for the run is still waiting.
 *
 * pg-boss keeps its own tables in schema "pgboss" of the same database (created on first start).
 */
import type PgBossType from "pg-boss";
import { getDb, providerOfDb, type Db } from "../db/client";
import { resolveDatabaseUrl } from "../db/url";
import { DEFAULT_STALE_AFTER_MS, ReplayWorker, type ReplayWorkerOptions } from "./worker";

export const REPLAY_QUEUE = "symtrace-replay-run";

export interface WorkerBackend {
  kind: "poll" | "pg-boss";
  worker: ReplayWorker;
  /** Poll now (poll backend; pg-boss workers are notified through the queue). */
  wake(): void;
  /** Stop taking runs; finish or release (interrupt) the current ones (see ReplayWorker.stop). */
  stop(o?: { graceMs?: number }): Promise<void>;
}

export interface StartWorkerOptions extends ReplayWorkerOptions {
  /** Connection string of `db` (needed for pg-boss); default DATABASE_URL. */
  url?: string;
  /** pg-boss polling interval in seconds (default 1, minimum 0.5). */
  pgBossPollingSeconds?: number;
}

// ------------------------------------------------------------------ pg-boss

type Boss = PgBossType;
const g = globalThis as unknown as { __symtraceBosses?: Map<string, Promise<Boss>> };

/**
 * The process's started pg-boss instance for `url` (one per URL; the queue is created once).
 * Its "error" events are logged, never thrown.
 */
export function getBoss(url: string): Promise<Boss> {
  g.__symtraceBosses ??= new Map();
  let p = g.__symtraceBosses.get(url);
  if (!p) {
    p = (async () => {
      const { default: PgBoss } = await import("pg-boss");
      const boss = new PgBoss({ connectionString: url, application_name: "symtrace-jobs", max: 4 });
      boss.on("error", (e) => process.stderr.write(`pg-boss: ${e.message}\n`));
      await boss.start();
      // stately: at most one waiting job per run id (re-sends are dropped); no pg-boss retries:
      // the ReplayRun row decides what happens next (interrupted -> retryRun).
      await boss.createQueue(REPLAY_QUEUE, { name: REPLAY_QUEUE, policy: "stately", retryLimit: 0, expireInSeconds: 4 * 3600 });
      return boss;
    })();
    p.catch(() => g.__symtraceBosses?.delete(url));
    g.__symtraceBosses.set(url, p);
  }
  return p;
}

/** Stop and forget the pg-boss instance of `url` (tests, process shutdown). */
export async function closeBoss(url: string): Promise<void> {
  const p = g.__symtraceBosses?.get(url);
  if (!p) return;
  g.__symtraceBosses?.delete(url);
  const boss = await p.catch(() => null);
  await boss?.stop({ graceful: false, wait: true, timeout: 2000 }).catch(() => {});
}

async function sendRunJobs(url: string, runIds: string[]): Promise<number> {
  if (runIds.length === 0) return 0;
  const boss = await getBoss(url);
  let sent = 0;
  for (const runId of runIds) {
    const id = await boss.send(REPLAY_QUEUE, { runId }, { singletonKey: runId });
    if (id) sent++;
  }
  return sent;
}

/**
 * Queued runs older than `minAgeMs` get a (possibly duplicate, then dropped) pg-boss job.
 * @returns how many jobs were actually created
 */
async function resendOrphans(db: Db, url: string, minAgeMs = 10_000): Promise<number> {
  const rows = await db.replayRun.findMany({
    where: { status: "queued", cancelRequested: false, createdAt: { lt: new Date(Date.now() - minAgeMs) } },
    select: { id: true },
    orderBy: { createdAt: "asc" },
    take: 500,
  });
  return sendRunJobs(url, rows.map((r) => r.id));
}

// ------------------------------------------------------------------ backends

const localWorkers = new Set<ReplayWorker>();

/**
 * Start a worker on `db`: the pg-boss backend when `db` is PostgreSQL, else the polling one.
 * Sweeps stale runs (markInterrupted) at start and every staleAfterMs / 2.
 */
export async function startWorkerBackend(o: StartWorkerOptions): Promise<WorkerBackend> {
  const worker = new ReplayWorker(o);
  localWorkers.add(worker);
  if (providerOfDb(o.db) !== "postgresql") {
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

  const url = o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL);
  const boss = await getBoss(url);
  await worker.sweep().catch((e) => process.stderr.write(`replay worker ${worker.id}: sweep failed: ${(e as Error).message}\n`));
  const staleAfterMs = o.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const workIds: string[] = [];
  const concurrency = Math.max(1, o.concurrency ?? 1);
  for (let i = 0; i < concurrency; i++) {
    workIds.push(
      await boss.work<{ runId: string }>(REPLAY_QUEUE, { batchSize: 1, pollingIntervalSeconds: o.pgBossPollingSeconds ?? 1 }, async (jobs) => {
        for (const job of jobs) {
          // Never throw: the row, not pg-boss, records failures.
          await worker.processRun(job.data.runId).catch((e) => process.stderr.write(`replay ${job.data.runId}: ${(e as Error).message}\n`));
        }
      }),
    );
  }
  let busy = false;
  const timer = setInterval(
    () => {
      if (busy || worker.stopped) return;
      busy = true;
      void (async () => {
        await worker.sweep();
        await resendOrphans(o.db, url, Math.max(5000, staleAfterMs / 3));
      })()
        .catch((e) => process.stderr.write(`replay worker ${worker.id}: maintenance failed: ${(e as Error).message}\n`))
        .finally(() => (busy = false));
    },
    Math.max(1000, staleAfterMs / 2),
  );
  timer.unref?.();
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

/**
 * Make queued runs reach a worker. SQLite: nothing to send (pollers pick them up); wakes this
 * process's polling workers so they start at once. PostgreSQL: one pg-boss job per run.
 * @param o.url connection string of `db` (PostgreSQL; default DATABASE_URL)
 * @returns jobs sent (0 on SQLite)
 */
export async function enqueueReplayRuns(db: Db, runIds: string[], o: { url?: string } = {}): Promise<number> {
  if (providerOfDb(db) !== "postgresql") {
    for (const w of localWorkers) w.wake();
    return 0;
  }
  return sendRunJobs(o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL), runIds);
}

// ------------------------------------------------------------------ embedded worker (Next.js)

const ge = globalThis as unknown as { __symtraceEmbeddedWorker?: Promise<WorkerBackend | null> };

/**
 * The worker inside the app's Node process, started once (idempotent; survives Next.js hot
 * reloads through globalThis). Uses getDb(): SQLite → polling worker; PostgreSQL → a pg-boss
 * worker (so a single-process deployment needs nothing else; scale out with SYMTRACE_EMBEDDED_WORKER=0
 * on the app and `npm run worker` processes).
 * Disabled (returns null) when SYMTRACE_EMBEDDED_WORKER=0.
 */
export function ensureEmbeddedWorker(o: Partial<StartWorkerOptions> = {}): Promise<WorkerBackend | null> {
  if (process.env.SYMTRACE_EMBEDDED_WORKER === "0") return Promise.resolve(null);
  if (!ge.__symtraceEmbeddedWorker) {
    ge.__symtraceEmbeddedWorker = startWorkerBackend({ ...o, db: o.db ?? getDb() });
    ge.__symtraceEmbeddedWorker.catch((e) => {
      process.stderr.write(`embedded replay worker failed to start: ${(e as Error).message}\n`);
      ge.__symtraceEmbeddedWorker = undefined;
    });
  }
  return ge.__symtraceEmbeddedWorker;
}

/** Stop the embedded worker if it runs (tests; graceful server shutdown). */
export async function stopEmbeddedWorker(o: { graceMs?: number } = {}): Promise<void> {
  const p = ge.__symtraceEmbeddedWorker;
  ge.__symtraceEmbeddedWorker = undefined;
  const b = await p?.catch(() => null);
  await b?.stop(o);
}
