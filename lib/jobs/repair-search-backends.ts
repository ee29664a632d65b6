/**
 * How repair-search workers learn about searches (as ./experiment-backends.ts does for attempts):
 *
 * - "poll" (SQLite): RepairSearchWorker.start() claims the oldest claimable search every
 *   idlePollMs (at once when woken by enqueueRepairSearches in the same process).
 * - "pg-boss" (PostgreSQL): one job `{ searchId }` per search on queue REPAIR_SEARCH_QUEUE (policy
 *   short: at most one waiting job per search; no pg-boss retries). Every worker process `work`s the
 *   queue and claims the row for the id it is given. A maintenance timer (every leaseMs / 2) sweeps
 *   and re-sends jobs for claimable searches (queued ones whose send was lost or which a stopping
 *   worker released, running ones whose lease expired because their worker died), so a crashed
 *   search is resumed by any live worker from its last saved iteration.
 */
import { getDb, providerOfDb, type Db } from "../db/client";
import { listClaimableRepairSearchIds } from "../db/repair-searches";
import { resolveDatabaseUrl } from "../db/url";
import { getBoss } from "./backends";
import { DEFAULT_REPAIR_SEARCH_LEASE_MS, RepairSearchWorker, type RepairSearchWorkerOptions } from "./repair-search-worker";

export const REPAIR_SEARCH_QUEUE = "symtrace-repair-search";

export interface RepairSearchWorkerBackend {
  kind: "poll" | "pg-boss";
  worker: RepairSearchWorker;
  wake(): void;
  stop(o?: { graceMs?: number }): Promise<void>;
}

export interface StartRepairSearchWorkerOptions extends RepairSearchWorkerOptions {
  /** Connection string of `db` (pg-boss); default DATABASE_URL. */
  url?: string;
  /** pg-boss polling interval in seconds (default 1). */
  pgBossPollingSeconds?: number;
}

const queues = new WeakSet<object>();

async function bossWithQueue(url: string) {
  const boss = await getBoss(url);
  if (!queues.has(boss)) {
    const create = () => boss.createQueue(REPAIR_SEARCH_QUEUE, { name: REPAIR_SEARCH_QUEUE, policy: "short", retryLimit: 0, expireInSeconds: 12 * 3600 });
    // Two processes creating the queue at the same moment may deadlock in PostgreSQL: try again once.
    await create().catch(async () => {
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 300));
      await create();
    });
    queues.add(boss);
  }
  return boss;
}

/** One job per search keyed by its id (policy short: a re-send while one waits is dropped; the row's claim runs a search once). */
async function sendSearchJobs(url: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const boss = await bossWithQueue(url);
  let sent = 0;
  for (const searchId of ids) if (await boss.send(REPAIR_SEARCH_QUEUE, { searchId }, { singletonKey: searchId })) sent++;
  return sent;
}

const localWorkers = new Set<RepairSearchWorker>();

/**
 * Make searches reach a worker. SQLite: wake this process's polling workers. PostgreSQL: one
 * pg-boss job per search.
 * @returns jobs sent (0 on SQLite)
 */
export async function enqueueRepairSearches(db: Db, searchIds: string[], o: { url?: string } = {}): Promise<number> {
  if (providerOfDb(db) !== "postgresql") {
    for (const w of localWorkers) w.wake();
    return 0;
  }
  return sendSearchJobs(o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL), searchIds);
}

/** Start a repair-search worker on `db`: pg-boss on PostgreSQL, else polling. */
export async function startRepairSearchWorkerBackend(o: StartRepairSearchWorkerOptions): Promise<RepairSearchWorkerBackend> {
  const pg = providerOfDb(o.db) === "postgresql";
  const worker = new RepairSearchWorker(o);
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
  const url = o.url ?? resolveDatabaseUrl(process.env.DATABASE_URL);
  const boss = await bossWithQueue(url);
  const workIds: string[] = [];
  for (let i = 0; i < Math.max(1, o.concurrency ?? 1); i++) {
    workIds.push(
      await boss.work<{ searchId: string }>(REPAIR_SEARCH_QUEUE, { batchSize: 1, pollingIntervalSeconds: o.pgBossPollingSeconds ?? 1 }, async (jobs) => {
        for (const job of jobs) await worker.processSearch(job.data.searchId).catch((e) => process.stderr.write(`repair-search ${job.data.searchId}: ${(e as Error).message}\n`));
      }),
    );
  }
  const leaseMs = o.leaseMs ?? DEFAULT_REPAIR_SEARCH_LEASE_MS;
  let busy = false;
  const maintain = async () => {
    await worker.sweep();
    await sendSearchJobs(url, await listClaimableRepairSearchIds(o.db));
  };
  const timer = setInterval(
    () => {
      if (busy || worker.stopped) return;
      busy = true;
      void maintain()
        .catch((e) => process.stderr.write(`repair-search worker ${worker.id}: maintenance failed: ${(e as Error).message}\n`))
        .finally(() => (busy = false));
    },
    Math.max(500, leaseMs / 2),
  );
  timer.unref?.();
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

const gr = globalThis as unknown as { __symtraceRepairSearchWorker?: Promise<RepairSearchWorkerBackend | null> };

/**
 * The repair-search worker inside the app's process, started once (idempotent); disabled with
 * SYMTRACE_EMBEDDED_WORKER=0 (then run `npm run worker` processes).
 */
export function ensureEmbeddedRepairSearchWorker(o: Partial<StartRepairSearchWorkerOptions> = {}): Promise<RepairSearchWorkerBackend | null> {
  if (process.env.SYMTRACE_EMBEDDED_WORKER === "0") return Promise.resolve(null);
  if (!gr.__symtraceRepairSearchWorker) {
    gr.__symtraceRepairSearchWorker = startRepairSearchWorkerBackend({ ...o, db: o.db ?? getDb() });
    gr.__symtraceRepairSearchWorker.catch((e) => {
      process.stderr.write(`embedded repair-search worker failed to start: ${(e as Error).message}\n`);
      gr.__symtraceRepairSearchWorker = undefined;
    });
  }
  return gr.__symtraceRepairSearchWorker;
}

/** Stop the embedded repair-search worker if it runs. */
export async function stopEmbeddedRepairSearchWorker(o: { graceMs?: number } = {}): Promise<void> {
  const p = gr.__symtraceRepairSearchWorker;
  gr.__symtraceRepairSearchWorker = undefined;
  const b = await p?.catch(() => null);
  await b?.stop(o);
}
