/**
 * Worker scale-out benchmark (issue 23 item 1): experiment attempts per second with 1, 2 and 3
 * worker PROCESSES (`npm run worker`, scripts/worker.ts, kind experiment-attempt, the real method
 * plug-ins) sharing one database, on the calibrated world (lib/testing/calibrated/: a seeded
 * scripted model and tool server; the MAS bundled by fast-mas.ts; the world's evaluator and
 * reproduction judge). The same recorded failures × methods × k run once per worker count, each
 * on a fresh database; the workers are started and ready before the experiment is created, and
 * the rate is attempts / (experiment created → final).
 *
 * SQLite by default (the workers poll one file); BENCH_WORKERS_DATABASE_URL=postgresql://…/<an
 * existing database> runs it on PostgreSQL (pg-boss), one fresh database per count beside it (its
 * name + `_w<n>`).
 * Sizes: BENCH_WORKERS_CASES (default 8 recorded failures), BENCH_WORKERS_METHODS (default the
 * calibrated methods of the registry), BENCH_WORKERS_ATTEMPTS (k, default 1), BENCH_WORKERS_COUNTS
 * (default "1,2,3"). BENCH_SMOKE=1: 1 case × 3 methods. One JSON line `{"bench":"workers",...}`. Called by
 * scripts/bench.ts (BENCH_WORKERS=0 skips it).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { CALIBRATED_METHODS } from "../lib/experiments/methods";
import { openDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { startExperiment } from "../lib/services/experiments/run";
import { importPaths } from "../lib/services/import-files";
import { buildCalibratedMas, REPO_ROOT } from "../lib/testing/calibrated/fast-mas";
import { recordCalibratedFailures } from "../lib/testing/calibrated/record";
import { startCalibratedWorld } from "../lib/testing/calibrated/world";
import { spawnWorkerProcess } from "../lib/testing/worker-process";

/** scripts/worker.ts (experiment attempts only) as a child process; resolves once it has started. */
async function spawnWorker(url: string, id: string): Promise<ChildProcess> {
  const env = { DATABASE_URL: url, SYMTRACE_WORKER_ID: id, SYMTRACE_WORKER_KIND: "experiment-attempt", SYMTRACE_WORKER_POLL_MS: "100", SYMTRACE_OTLP_ASSEMBLER: "0", SYMTRACE_QUIET: "1" };
  return (await spawnWorkerProcess({ env, ready: [/experiment worker .* started/] })).child;
}

/** A fresh database for one run: a SQLite file in `dir`, or a new PostgreSQL database beside `base`. */
async function freshDb(dir: string, base: string | undefined, n: number): Promise<string> {
  if (!base) return `file:${path.join(dir, `bench-w${n}.db`)}`;
  const u = new URL(base);
  const name = `${u.pathname.slice(1) || "symtrace_bench"}_w${n}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  u.pathname = `/${name}`;
  return u.toString();
}

/** Run the benchmark and print its table and JSON line. */
export async function runWorkersBench(): Promise<void> {
  const smoke = process.env.BENCH_SMOKE === "1";
  // Smoke (CI): 1 case × 3 methods per worker count — enough to run every step, not to measure.
  const cases = Number(process.env.BENCH_WORKERS_CASES ?? (smoke ? 1 : 8));
  const k = Number(process.env.BENCH_WORKERS_ATTEMPTS ?? 1);
  const counts = (process.env.BENCH_WORKERS_COUNTS ?? "1,2,3").split(",").map(Number);
  const methods = (process.env.BENCH_WORKERS_METHODS ?? (smoke ? "rerun,suspicious-node,last-node" : CALIBRATED_METHODS.join(","))).split(",");
  const base = process.env.BENCH_WORKERS_DATABASE_URL;
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-bench-workers-"));
  const prevQuiet = process.env.SYMTRACE_QUIET;
  process.env.SYMTRACE_QUIET = "1";
  const children: ChildProcess[] = [];
  try {
    const mas = buildCalibratedMas(path.join(dir, "mas"));
    const rec = await startCalibratedWorld({ seed: 13, session: "record", tasks: Math.max(48, Math.ceil(cases * 1.25) + 8) });
    try {
      await recordCalibratedFailures(rec, { count: cases, command: mas, outDir: path.join(dir, "cases") });
    } finally {
      await rec.stop();
    }
    const world = await startCalibratedWorld({ seed: 13 });
    const results: Array<{ workers: number; attempts: number; wall_ms: number; per_s: number; statuses: Record<string, number> }> = [];
    try {
      for (const n of counts) {
        const url = await freshDb(dir, base, n);
        await migrate(url);
        const { db } = openDb(url);
        try {
          const imp = await importPaths(db, [path.join(dir, "cases")]);
          const bundleIds = [...new Set(imp.cases.map((c) => c.bundleId))];
          const workers = [];
          for (let i = 0; i < n; i++) workers.push(await spawnWorker(url, `bench-w${n}-${i + 1}`));
          children.push(...workers);
          const t0 = performance.now();
          const e = await startExperiment(
            db,
            {
              name: `bench: ${n} worker(s)`,
              settings: {
                upstream: world.upstream,
                toolUpstream: world.toolUpstream,
                model: null,
                evaluator: `node ${path.join(REPO_ROOT, "scripts", "calibrated-evaluator.mjs")}`,
                reproductionJudge: { kind: "command", command: `node ${path.join(REPO_ROOT, "scripts", "calibrated-reproduction-judge.mjs")}` },
                command: mas,
                seed: 13,
                attempts: k,
                budget: { maxCalls: null, maxTokens: null },
                timeoutMs: 120_000,
              },
              methods: methods as never,
              cases: { kind: "list", bundleIds },
            },
            { url },
          );
          for (;;) {
            const s = await db.experiment.findUnique({ where: { id: e.id }, select: { status: true } });
            if (!s || ["finished", "cancelled", "budget-exhausted"].includes(s.status)) break;
            await new Promise((r) => setTimeout(r, 200));
          }
          const wallMs = performance.now() - t0;
          const rows = await db.experimentAttempt.findMany({ where: { experimentId: e.id }, select: { status: true } });
          const statuses: Record<string, number> = {};
          for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          results.push({ workers: n, attempts: rows.length, wall_ms: Math.round(wallMs), per_s: Number((rows.length / (wallMs / 1000)).toFixed(2)), statuses });
          await Promise.all(
            workers.map((c) => {
              const exit = new Promise((r) => c.once("exit", r));
              c.kill("SIGTERM");
              return exit;
            }),
          );
        } finally {
          await db.$disconnect();
        }
      }
    } finally {
      await world.stop();
    }
    const one = results.find((r) => r.workers === 1)?.per_s ?? null;
    console.log(`worker benchmark (calibrated world, ${cases} cases × ${methods.length} methods × k=${k}, ${base ? "PostgreSQL + pg-boss" : "SQLite polling"}, node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg()[0].toFixed(1)})`);
    for (const r of results) console.log(`  ${r.workers} worker process(es)  ${r.attempts} attempts in ${(r.wall_ms / 1000).toFixed(1)} s = ${r.per_s} attempts/s${one ? ` (×${(r.per_s / one).toFixed(2)})` : ""}  ${JSON.stringify(r.statuses)}`);
    console.log(JSON.stringify({ bench: "workers", database: base ? "postgresql" : "sqlite", cases, methods: methods.length, attempts_k: k, load1: Number(os.loadavg()[0].toFixed(2)), cpus: os.cpus().length, results }));
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    if (prevQuiet === undefined) delete process.env.SYMTRACE_QUIET;
    else process.env.SYMTRACE_QUIET = prevQuiet;
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  runWorkersBench().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
