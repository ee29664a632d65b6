/**
 * How workers learn about jobs — one interface (JobBackend) for every job kind (./kinds.ts):
 *
 * - "poll" (SQLite, the embedded default): JobWorker.start() claims the oldest claimable job
 *   every idlePollMs (at once when woken by enqueueJobs in the same process). Any number of
 *   processes may poll one SQLite file; the conditional claim keeps jobs exclusive.
 * - "pg-boss" (PostgreSQL): enqueueJobs sends one pg-boss job `{ id }` per row to the kind's
 *   queue (keyed by the row id, no pg-boss retries); every worker process `work`s the queue and
 *   claims the row for the id it is given (a duplicate delivery finds the row taken and does
 *   nothing). A maintenance timer (every leaseMs / 2) sweeps and re-sends jobs for claimable rows:
 *   queued ones whose send was lost and running ones whose lease expired (their worker died) — so a
 *   crash is resumed by any live worker on any machine.
 *
 * pg-boss keeps its own tables in schema "pgboss" of the same database (created on first start).
 */
import type PgBossType from "pg-boss";
import { providerOfDb, type Db } from "../db/client";
import { resolveDatabaseUrl } from "../db/url";
import { JobWorker, errorText, type JobKind, type JobKindName, type JobWorkerOptions } from "./job-worker";

export interface JobBackend<J extends { id: string } = { id: string }> {
  kind: "poll" | "pg-boss";
  worker: JobWorker<J>;
  /** Poll now (poll backend; pg-boss workers are notified through the queue). */
  wake(): void;
  /** Stop taking jobs; finish or release the current ones (see JobWorker.stop). */
  stop(o?: { graceMs?: number }): Promise<void>;
}

export interface StartJobBackendOptions extends JobWorkerOptions {
  /** Connection string of `db` (needed for pg-boss); default DATABASE_URL. */
  url?: string;
  /** pg-boss polling interval in seconds (default 1, minimum 0.5). */
  pgBossPollingSeconds?: number;
}

// ------------------------------------------------------------------ pg-boss

type Boss = PgBossType;
const g = globalThis as unknown as { __symtraceBosses?: Map<string, Promise<Boss>>; __symtraceBossQueues?: WeakMap<Boss, Set<string>> };

/** The process's started pg-boss instance for `url` (one per URL). Its "error" events are logged, never thrown. */
export function getBoss(url: string): Promise<Boss> {
  g.__symtraceBosses ??= new Map();
  let p = g.__symtraceBosses.get(url);
  if (!p) {
    p = (async () => {
      const { default: PgBoss } = await import("pg-boss");
      const boss = new PgBoss({ connectionString: url, application_name: "symtrace-jobs", max: 4 });
      boss.on("error", (e) => process.stderr.write(`pg-boss: ${e.message}\n`));
      await boss.start();
      return boss;
    })();
    p.catch(() => g.__symtraceBosses?.delete(url));
    g.__symtraceBosses.set(url, p);
  }
  return p;
}

/** pg-boss for `url` with the kind's queue created (once per process and queue). */
async function bossWithQueue(url: string, q: JobKind["queue"]): Promise<Boss> {
  const boss = await getBoss(url);
  g.__symtraceBossQueues ??= new WeakMap();
  const made = g.__symtraceBossQueues.get(boss) ?? new Set<string>();
  g.__symtraceBossQueues.set(boss, made);
  if (!made.has(q.name)) {
    const create = () => boss.createQueue(q.name, { name: q.name, policy: q.policy, retryLimit: 0, expireInSeconds: q.expireInSeconds });
    // Two processes creating the queue at the same moment may deadlock in PostgreSQL: try again once.
    await create().catch(async () => {
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 300));
      await create();
    });
    made.add(q.name);
  }
  return boss;
}

/** Stop and forget the pg-boss instance of `url` (tests, process shutdown). */
export async function closeBoss(url: string): Promise<void> {
  const p = g.__symtraceBosses?.get(url);
  if (!p) return;
  g.__symtraceBosses?.delete(url);
  const boss = await p.catch(() => null);
  await boss?.stop({ graceful: false, wait: true, timeout: 2000 }).catch(() => {});
}

/** One pg-boss job per id, keyed by the id (a re-send while one waits is dropped). @returns jobs created */
async function sendJobs(url: string, q: JobKind["queue"], ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const boss = await bossWithQueue(url, q);
  let sent = 0;
  for (const id of ids) if (await boss.send(q.name, { id }, { singletonKey: id })) sent++;
  return sent;
}

// ------------------------------------------------------------------ backends

/**
 * The pg-boss queue of each kind (name, policy, job expiry). "stately" (replay): at most one waiting
 * job per run id. "short" (attempts, searches): a SIGKILLed worker's job stays active in pg-boss
 * until it expires; under stately a second job of that key could never become active beside it and
 * pg-boss's fetch of the whole queue then fails every poll. Duplicates are harmless (the claim).
 */
export const JOB_QUEUES: Record<JobKindName, JobKind["queue"]> = {
  replay: { name: "symtrace-replay-run", policy: "stately", expireInSeconds: 4 * 3600 },
  "experiment-attempt": { name: "symtrace-experiment-attempt", policy: "short", expireInSeconds: 4 * 3600 },
  "repair-search": { name: "symtrace-repair-search", policy: "short", expireInSeconds: 12 * 3600 },
  attribution: { name: "symtrace-attribution-job", policy: "short", expireInSeconds: 3600 },
};

const localWorkers = new Set<JobWorker<{ id: string }>>();

/**
 * Make queued jobs of `kind` reach a worker. SQLite: wake this process's polling workers of that
 * kind. PostgreSQL: one pg-boss job per id.
 * @param o.url connection string of `db` (PostgreSQL; default DATABASE_URL)
 * @returns jobs sent (0 on SQLite)
 */
export async function enqueueJobs(db: Db, kind: JobKindName, ids: string[], o: { url?: string } = {}): Promise<number> {
  if (providerOfDb(db) !== "postgresql") {
    for (const w of localWorkers) if (w.kind.name === kind) w.wake();
    return 0;
  }
  return sendJobs(o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL), JOB_QUEUES[kind], ids);
}

/**
 * Start a worker of one kind on `db`: the pg-boss backend when `db` is PostgreSQL, else the
 * polling one. Sweeps at start and every leaseMs / 2; new jobs a handler creates are enqueued.
 */
export async function startJobBackend<J extends { id: string }>(kind: JobKind<J>, o: StartJobBackendOptions): Promise<JobBackend<J>> {
  const pg = providerOfDb(o.db) === "postgresql";
  const url = pg ? (o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL)) : "";
  const log = o.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const worker: JobWorker<J> = new JobWorker(kind, {
    ...o,
    log,
    enqueue: async (ids) => {
      await o.enqueue?.(ids);
      if (pg) await sendJobs(url, kind.queue, ids).catch((e) => log(`${kind.name} enqueue failed (a sweep re-sends): ${errorText(e)}`));
      else worker.wake();
    },
  });
  const local = worker as unknown as JobWorker<{ id: string }>;
  localWorkers.add(local);
  if (!pg) {
    worker.start();
    return {
      kind: "poll",
      worker,
      wake: () => worker.wake(),
      stop: async (s) => {
        await worker.stop(s);
        localWorkers.delete(local);
      },
    };
  }

  const boss = await bossWithQueue(url, kind.queue);
  const workIds: string[] = [];
  for (let i = 0; i < Math.max(1, o.concurrency ?? 1); i++) {
    workIds.push(
      await boss.work<{ id: string }>(kind.queue.name, { batchSize: 1, pollingIntervalSeconds: o.pgBossPollingSeconds ?? 1 }, async (jobs) => {
        // Never throw: the row, not pg-boss, records failures.
        for (const job of jobs) await worker.process(job.data.id).catch((e) => log(`${kind.label} ${job.data.id}: ${errorText(e)}`));
      }),
    );
  }
  const leaseMs = worker.leaseMs;
  let busy = false;
  const maintain = async () => {
    await worker.sweep();
    await sendJobs(url, kind.queue, await kind.claimable(o.db, { olderThanMs: Math.max(2000, leaseMs / 3) }));
  };
  const timer = setInterval(
    () => {
      if (busy || worker.stopped) return;
      busy = true;
      void maintain()
        .catch((e) => log(`${kind.name} worker ${worker.id}: maintenance failed: ${errorText(e)}`))
        .finally(() => (busy = false));
    },
    Math.max(500, leaseMs / 2),
  );
  timer.unref?.();
  // Resume at once what a dead worker left (expired leases) or a lost send left queued.
  busy = true;
  void maintain()
    .catch((e) => log(`${kind.name} worker ${worker.id}: maintenance failed: ${errorText(e)}`))
    .finally(() => (busy = false));
  return {
    kind: "pg-boss",
    worker,
    wake: () => {},
    stop: async (s) => {
      clearInterval(timer);
      for (const id of workIds) await boss.offWork({ id }).catch(() => {});
      await worker.stop(s);
      localWorkers.delete(local);
    },
  };
}
