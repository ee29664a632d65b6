/**
 * `npm run worker`: a standalone worker process (lib/jobs) for replay runs, experiment attempts, repair searches and attribution jobs. PostgreSQL (DATABASE_URL
 * postgresql://…): takes runs from pg-boss; SQLite: polls the database file. Runs until SIGTERM /
 * SIGINT, then finishes the current run or releases it (interrupted, retryable) after
 * SYMTRACE_WORKER_GRACE_MS (default 5000). One line per run on stderr.
 *
 * Environment: DATABASE_URL; SYMTRACE_WORKER_CONCURRENCY (default 1); SYMTRACE_WORKER_STALE_MS
 * (default 30000); SYMTRACE_WORKER_HEARTBEAT_MS (default 1000); SYMTRACE_WORKER_ID.
 * SYMTRACE_WORKER_KIND=all | a comma-separated list of replay, experiment-attempt (or experiment),
 * repair-search, attribution (default all; lib/jobs/kinds.ts); SYMTRACE_WORKER_POLL_MS (SQLite polling, default 1000); SYMTRACE_WORKER_LEASE_MS
 * (experiment attempt and repair-search lease, default 30000: a killed worker's attempt / search is
 * taken over after it expires; a search resumes from its last saved iteration).
 * SYMTRACE_REPAIR_SEARCH_CONCURRENCY (searches at once per process, default 1). SYMTRACE_ATTRIBUTION_CONCURRENCY
 * (attribution jobs at once, default 4; their endpoint is the run's, the API key and call cache
 * this process's SYMTRACE_ATTRIBUTION_API_KEY / _CACHE_DIR). SYMTRACE_WORKER_RUNNER:
 * take only experiments reserved for that runner (`Experiment.runner`; default: the unreserved ones).
 * The replay executor and the experiment methods are always the real ones here; only the test
 * harness (lib/testing/fake-worker.ts: a fake replay executor, fake experiment methods) starts
 * this worker with fake methods injected (`runWorker({ methods })`), and they stamp what they touch.
 * The OTLP trace assembler (lib/services/otlp-assembler.ts) runs here too: SYMTRACE_OTLP_IDLE_SECONDS
 * (default 30); SYMTRACE_OTLP_ASSEMBLER=0 turns it off.
 */
import path from "node:path";
import { openDb, resolveDatabaseUrl } from "../lib/db";
import { closeBoss, JOB_KIND_NAMES, newWorkerId, startWorkers, type JobKindName, type ReplayExecutor, type StartWorkersOptions } from "../lib/jobs";
import type { MethodRegistry } from "../lib/services/experiments/methods/types";
import { otlpIdleMs, startOtlpAssembler } from "../lib/services/otlp-assembler";

const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) ? Number(v) : d);

/** Set at once, before anything starts, so a signal during start-up (e.g. while pg-boss connects) still stops cleanly. */
let requestStop: ((signal: string) => void) | null = null;
let pendingSignal: string | null = null;
for (const sig of ["SIGTERM", "SIGINT"] as const) {
  process.on(sig, () => (requestStop ? requestStop(sig) : (pendingSignal ??= sig)));
}

/** SYMTRACE_WORKER_KIND: all, or a comma-separated list of kinds ("experiment" = experiment-attempt). */
export function workerKinds(v: string | undefined): JobKindName[] {
  const names = (v ?? "all").split(",").map((k) => k.trim()).filter(Boolean);
  if (names.includes("all")) return [...JOB_KIND_NAMES];
  const kinds = names.map((k) => (k === "experiment" ? "experiment-attempt" : k));
  for (const k of kinds) if (!(JOB_KIND_NAMES as readonly string[]).includes(k)) throw new Error(`SYMTRACE_WORKER_KIND must be all or a list of ${JOB_KIND_NAMES.join(", ")} (experiment = experiment-attempt); got ${v}`);
  return kinds as JobKindName[];
}

/**
 * Run the worker until SIGTERM / SIGINT.
 * @param inject.methods an experiment-method registry injected by the test harness (default: the real methods)
 * @param inject.executor a replay executor injected by the test harness (default: the real one)
 */
export async function runWorker(inject: { methods?: MethodRegistry; executor?: ReplayExecutor } = {}): Promise<void> {
  const url = resolveDatabaseUrl(process.env.DATABASE_URL);
  const { db, provider } = openDb(url);
  const workerId = process.env.SYMTRACE_WORKER_ID || newWorkerId("worker:");
  const executor = inject.executor;
  const log = (line: string) => process.stderr.write(line + "\n");
  const selected = workerKinds(process.env.SYMTRACE_WORKER_KIND);
  const concurrency = num(process.env.SYMTRACE_WORKER_CONCURRENCY, 1);
  const leaseMs = num(process.env.SYMTRACE_WORKER_LEASE_MS, 30_000);
  const idlePollMs = num(process.env.SYMTRACE_WORKER_POLL_MS, 1000);
  const all: NonNullable<StartWorkersOptions["kinds"]> = {
    replay: { executor, concurrency, leaseMs: num(process.env.SYMTRACE_WORKER_STALE_MS, 30_000), renewMs: num(process.env.SYMTRACE_WORKER_HEARTBEAT_MS, 1000), controlPollMs: 500, idlePollMs },
    "experiment-attempt": { methods: inject.methods, runner: process.env.SYMTRACE_WORKER_RUNNER || null, concurrency, leaseMs, idlePollMs },
    "repair-search": { concurrency: num(process.env.SYMTRACE_REPAIR_SEARCH_CONCURRENCY, 1), leaseMs, idlePollMs },
    attribution: { concurrency: num(process.env.SYMTRACE_ATTRIBUTION_CONCURRENCY, 4), leaseMs, idlePollMs },
  };
  const workers = await startWorkers({ db, url, workerId, log, kinds: Object.fromEntries(selected.map((k) => [k, all[k]])) });
  for (const [name, b] of Object.entries(workers.backends)) {
    const extra = name === "replay" && executor ? ", FAKE replay executor (test harness)" : name === "experiment-attempt" && inject.methods && Object.values(inject.methods).some((m) => m?.fake) ? ", FAKE methods (test harness)" : "";
    log(`${name === "experiment-attempt" ? "experiment" : name} worker ${workerId} started (${provider}, ${b.kind}${extra})`);
  }
  const assembler = process.env.SYMTRACE_OTLP_ASSEMBLER === "0" ? null : startOtlpAssembler({ db, idleMs: otlpIdleMs(), log });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`worker ${workerId}: ${signal}, stopping`);
    void (async () => {
      await assembler?.stop();
      const graceMs = num(process.env.SYMTRACE_WORKER_GRACE_MS, 5000);
      await workers.stop({ graceMs });
      if (provider === "postgresql") await closeBoss(url);
      await db.$disconnect();
      log(`worker ${workerId} stopped`);
      process.exit(0);
    })().catch((e) => {
      log(`worker ${workerId}: stop failed: ${(e as Error).message}`);
      process.exit(1);
    });
  };
  requestStop = shutdown;
  if (pendingSignal) shutdown(pendingSignal);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  runWorker().catch((e) => {
    process.stderr.write(`worker failed: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
