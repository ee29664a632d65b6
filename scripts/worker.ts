/**
 * `npm run worker`: a standalone worker process (lib/jobs) for replay runs, experiment attempts and repair searches. PostgreSQL (DATABASE_URL
 * postgresql://…): takes runs from pg-boss; SQLite: polls the database file. Runs until SIGTERM /
 * SIGINT, then finishes the current run or releases it (interrupted, retryable) after
 * SYMTRACE_WORKER_GRACE_MS (default 5000). One line per run on stderr.
 *
 * Environment: DATABASE_URL; SYMTRACE_WORKER_CONCURRENCY (default 1); SYMTRACE_WORKER_STALE_MS
 * (default 30000); SYMTRACE_WORKER_HEARTBEAT_MS (default 1000); SYMTRACE_WORKER_ID.
 * SYMTRACE_WORKER_KIND=all|replay|experiment|repair-search (default all); SYMTRACE_WORKER_LEASE_MS
 * (experiment attempt and repair-search lease, default 30000: a killed worker's attempt / search is
 * taken over after it expires; a search resumes from its last saved iteration).
 * SYMTRACE_REPAIR_SEARCH_CONCURRENCY (searches at once per process, default 1).
 * Test hook: SYMTRACE_WORKER_FAKE_EXECUTOR=slow|fast|fail runs a fake replay executor. Experiment
 * methods are always the real ones here; only the test harness (lib/testing/fake-worker.ts) starts
 * this worker with fake methods injected (`runWorker({ methods })`), and they stamp what they touch.
 * The OTLP trace assembler (lib/services/otlp-assembler.ts) runs here too: SYMTRACE_OTLP_IDLE_SECONDS
 * (default 30); SYMTRACE_OTLP_ASSEMBLER=0 turns it off.
 */
import path from "node:path";
import { openDb, resolveDatabaseUrl } from "../lib/db";
import {
  closeBoss,
  fakeExecutorFromEnv,
  newWorkerId,
  startExperimentWorkerBackend,
  startRepairSearchWorkerBackend,
  startWorkerBackend,
  type ExperimentWorkerBackend,
  type RepairSearchWorkerBackend,
  type WorkerBackend,
} from "../lib/jobs";
import type { MethodRegistry } from "../lib/jobs/experiment-types";
import { otlpIdleMs, startOtlpAssembler } from "../lib/services/otlp-assembler";

const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) ? Number(v) : d);

/** Set at once, before anything starts, so a signal during start-up (e.g. while pg-boss connects) still stops cleanly. */
let requestStop: ((signal: string) => void) | null = null;
let pendingSignal: string | null = null;
for (const sig of ["SIGTERM", "SIGINT"] as const) {
  process.on(sig, () => (requestStop ? requestStop(sig) : (pendingSignal ??= sig)));
}

/**
 * Run the worker until SIGTERM / SIGINT.
 * @param inject.methods an experiment-method registry injected by the test harness (default: the real methods)
 */
export async function runWorker(inject: { methods?: MethodRegistry } = {}): Promise<void> {
  const url = resolveDatabaseUrl(process.env.DATABASE_URL);
  const { db, provider } = openDb(url);
  const workerId = process.env.SYMTRACE_WORKER_ID || newWorkerId("worker:");
  const executor = fakeExecutorFromEnv(process.env, workerId) ?? undefined;
  const log = (line: string) => process.stderr.write(line + "\n");
  const kind = process.env.SYMTRACE_WORKER_KIND ?? "all";
  if (!["all", "replay", "experiment", "repair-search"].includes(kind)) throw new Error(`SYMTRACE_WORKER_KIND must be all, replay, experiment or repair-search; got ${kind}`);
  let backend: WorkerBackend | null = null;
  let experiments: ExperimentWorkerBackend | null = null;
  let searches: RepairSearchWorkerBackend | null = null;
  if (kind === "all" || kind === "replay") {
    backend = await startWorkerBackend({
      db,
      url,
      workerId,
      executor,
      concurrency: num(process.env.SYMTRACE_WORKER_CONCURRENCY, 1),
      staleAfterMs: num(process.env.SYMTRACE_WORKER_STALE_MS, 30_000),
      heartbeatMs: num(process.env.SYMTRACE_WORKER_HEARTBEAT_MS, 1000),
      log,
    });
    log(`replay worker ${workerId} started (${provider}, ${backend.kind}${executor ? ", fake executor " + process.env.SYMTRACE_WORKER_FAKE_EXECUTOR : ""})`);
  }
  if (kind === "all" || kind === "experiment") {
    const methods = inject.methods;
    experiments = await startExperimentWorkerBackend({
      db,
      url,
      workerId,
      methods,
      concurrency: num(process.env.SYMTRACE_WORKER_CONCURRENCY, 1),
      leaseMs: num(process.env.SYMTRACE_WORKER_LEASE_MS, 30_000),
      idlePollMs: num(process.env.SYMTRACE_WORKER_POLL_MS, 1000),
      log,
    });
    log(`experiment worker ${workerId} started (${provider}, ${experiments.kind}${methods && Object.values(methods).some((m) => m?.fake) ? ", FAKE methods (test harness)" : ""})`);
  }
  if (kind === "all" || kind === "repair-search") {
    searches = await startRepairSearchWorkerBackend({
      db,
      url,
      workerId,
      concurrency: num(process.env.SYMTRACE_REPAIR_SEARCH_CONCURRENCY, 1),
      leaseMs: num(process.env.SYMTRACE_WORKER_LEASE_MS, 30_000),
      idlePollMs: num(process.env.SYMTRACE_WORKER_POLL_MS, 1000),
      log,
    });
    log(`repair-search worker ${workerId} started (${provider}, ${searches.kind})`);
  }
  const assembler = process.env.SYMTRACE_OTLP_ASSEMBLER === "0" ? null : startOtlpAssembler({ db, idleMs: otlpIdleMs(), log });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`replay worker ${workerId}: ${signal}, stopping`);
    void (async () => {
      await assembler?.stop();
      const graceMs = num(process.env.SYMTRACE_WORKER_GRACE_MS, 5000);
      await Promise.all([backend?.stop({ graceMs }), experiments?.stop({ graceMs }), searches?.stop({ graceMs })]);
      if (provider === "postgresql") await closeBoss(url);
      await db.$disconnect();
      log(`replay worker ${workerId} stopped`);
      process.exit(0);
    })().catch((e) => {
      log(`replay worker ${workerId}: stop failed: ${(e as Error).message}`);
      process.exit(1);
    });
  };
  requestStop = shutdown;
  if (pendingSignal) shutdown(pendingSignal);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  runWorker().catch((e) => {
    process.stderr.write(`replay worker failed: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
