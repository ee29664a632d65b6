/**
 * The registry of job kinds (issue 23 item 1): every background job of SymTrace is one of
 * JOB_KIND_NAMES, resolved to its JobKind here by an exhaustive switch (a forgotten kind is a type
 * error), and started by `startWorkers` — the one entry of `npm run worker` and of the worker
 * embedded in the app (instrumentation.ts → ensureEmbeddedWorkers).
 *
 * Adding a kind: a lease table in lib/db (leases.ts `LeaseTable` + the kind's row functions), a
 * file in ./kinds/ exporting a `JobKind` factory, its name in JOB_KIND_NAMES and its queue in
 * ./backends.ts QUEUES, one case below.
 */
import { getDb, type Db } from "../db/client";
import { startJobBackend, type JobBackend, type StartJobBackendOptions } from "./backends";
import { JOB_KIND_NAMES, JobWorker, type JobKind, type JobKindName, type JobWorkerOptions } from "./job-worker";
import { attributionKind, type AttributionKindOptions } from "./kinds/attribution";
import { experimentAttemptKind, type ExperimentKindOptions } from "./kinds/experiment-attempt";
import { repairSearchKind, type RepairSearchKindOptions } from "./kinds/repair-search";
import { replayKind, type ReplayKindOptions } from "./kinds/replay";

/** What each kind's factory takes. */
export interface JobKindOptions {
  replay: ReplayKindOptions;
  "experiment-attempt": ExperimentKindOptions;
  "repair-search": RepairSearchKindOptions;
  attribution: AttributionKindOptions;
}

/** The JobKind of `name` with its options (executor, method registry, runners, …). */
export function jobKind<K extends JobKindName>(name: K, o: JobKindOptions[K] = {}): JobKind<{ id: string }> {
  const kind = name as JobKindName;
  switch (kind) {
    case "replay":
      return replayKind(o as ReplayKindOptions) as unknown as JobKind<{ id: string }>;
    case "experiment-attempt":
      return experimentAttemptKind(o as ExperimentKindOptions) as unknown as JobKind<{ id: string }>;
    case "repair-search":
      return repairSearchKind(o as RepairSearchKindOptions) as unknown as JobKind<{ id: string }>;
    case "attribution":
      return attributionKind(o as AttributionKindOptions) as unknown as JobKind<{ id: string }>;
    default: {
      const never: never = kind;
      throw new Error(`unknown job kind ${String(never)}`);
    }
  }
}

/**
 * A worker of one kind outside any backend (tests, the CLI): `start()` polls, `runNext()` /
 * `process(id)` run one job.
 */
export function createWorker<K extends JobKindName>(name: K, o: JobKindOptions[K] & JobWorkerOptions): JobWorker<{ id: string }> {
  return new JobWorker(jobKind(name, o), o);
}

/** Per kind: its factory's options and its worker's (concurrency, lease, polling). */
export type KindSettings<K extends JobKindName> = JobKindOptions[K] & Omit<StartJobBackendOptions, "db" | "url" | "workerId" | "log">;

export interface StartWorkersOptions {
  db: Db;
  /** Connection string of `db` (pg-boss); default DATABASE_URL. */
  url?: string;
  workerId?: string;
  log?: (line: string) => void;
  /** The kinds to run (default all) with their settings. */
  kinds?: { [K in JobKindName]?: KindSettings<K> };
}

/** The workers of one process: one backend per kind. */
export interface Workers {
  backends: Partial<Record<JobKindName, JobBackend>>;
  /** Stop every kind (finish or release the running jobs, see JobWorker.stop). */
  stop(o?: { graceMs?: number }): Promise<void>;
}

/** Start one worker per kind on `db` (pg-boss on PostgreSQL, polling on SQLite). */
export async function startWorkers(o: StartWorkersOptions): Promise<Workers> {
  const kinds = o.kinds ?? Object.fromEntries(JOB_KIND_NAMES.map((k) => [k, {}]));
  const backends: Partial<Record<JobKindName, JobBackend>> = {};
  const started: JobBackend[] = [];
  try {
    for (const name of JOB_KIND_NAMES) {
      const s = kinds[name];
      if (!s) continue;
      const b = await startJobBackend(jobKind(name, s as JobKindOptions[typeof name]), { ...s, db: o.db, url: o.url, workerId: o.workerId, log: o.log });
      backends[name] = b;
      started.push(b);
    }
  } catch (e) {
    await Promise.all(started.map((b) => b.stop({ graceMs: 0 }).catch(() => {})));
    throw e;
  }
  return { backends, stop: async (s) => void (await Promise.all(started.map((b) => b.stop(s)))) };
}

const ge = globalThis as unknown as { __symtraceEmbeddedWorkers?: Promise<Workers | null> };

/**
 * The workers inside the app's Node process, every kind, started once (idempotent; survives
 * Next.js hot reloads through globalThis) at boot by instrumentation.ts — so jobs queued before a
 * restart are resumed without waiting for a request. Uses getDb(): SQLite → polling workers;
 * PostgreSQL → pg-boss workers beside any `npm run worker` processes (scale out with
 * SYMTRACE_EMBEDDED_WORKER=0 on the app). Disabled (null) when SYMTRACE_EMBEDDED_WORKER=0.
 */
export function ensureEmbeddedWorkers(o: Partial<StartWorkersOptions> = {}): Promise<Workers | null> {
  if (process.env.SYMTRACE_EMBEDDED_WORKER === "0") return Promise.resolve(null);
  if (!ge.__symtraceEmbeddedWorkers) {
    ge.__symtraceEmbeddedWorkers = startWorkers({ ...o, db: o.db ?? getDb() });
    ge.__symtraceEmbeddedWorkers.catch((e) => {
      process.stderr.write(`embedded workers failed to start: ${(e as Error).message}\n`);
      ge.__symtraceEmbeddedWorkers = undefined;
    });
  }
  return ge.__symtraceEmbeddedWorkers;
}
