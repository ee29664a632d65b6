/**
 * `npm run bench`: import benchmark (prints figures; not a test, exits 0 unless something errors).
 *
 * On a fresh SQLite database in a temp dir it times
 *   (a) building + validating 536 gold-sized bundles and one 4,001-node bundle in memory,
 *   (b) importing the 536 bundles (importCase, one transaction each),
 *   (c) importing the 4,001-node bundle,
 *   (d) the total import time (b + c),
 *   (e) re-importing all of them (idempotent skip),
 * and exporting the 4,001-node bundle (its bundleHash must equal the original's).
 * Prints an aligned table and one JSON line (`{"bench":"import",...}`) to compare runs.
 * Goal: total import < 10 s on this machine (2 cores).
 *
 * Options (env): BENCH_GOLD=<n> number of gold-sized bundles (default 536),
 * BENCH_TURNS=<n> turns of the big bundle (default 1000 -> 4,001 nodes), BENCH_KEEP=1 keep the db,
 * BENCH_WAL=1 switch the bench database to `journal_mode=WAL, synchronous=NORMAL` first (what-if:
 * openDb does not set these, so the default run measures SQLite's defaults, DELETE journal + FULL sync).
 *
 * BENCH_SMOKE=1 runs every part at a small size (scripts/bench-smoke.ts; `npm test` does this).
 *
 * Then the suspicious-node detection benchmark (scripts/bench-symptoms.ts: rules-only detection on
 * 4k/20k/100k-node traces, goal < 1 s at 100k; BENCH_SYMPTOMS=0 skips it), and the inspector benchmark (scripts/bench-inspector.ts: a 4,001-node case in headless Chromium,
 * its own temp db and production build); BENCH_INSPECTOR=0 skips it.
 * The OTLP/HTTP receiver benchmark (scripts/bench-otlp.ts: sustained spans/s into SQLite through a
 * receiver process, batches of 512 spans, goal >= 20,000 spans/s); BENCH_OTLP=0 skips it.
 * Last, the big-trace benchmark
 * (scripts/bench-bigtrace.ts, issue 16: import rate and peak memory, first node, click -> panel, pan
 * at full zoom-out and tab heap at 20k, 100k and 1M nodes; smoke: 6,402); BENCH_BIGTRACE=0 skips it.
 * Then the experiment runner benchmark
 * (scripts/bench-experiments.ts: 100 calibrated-world cases × all methods × k=3 with 2 workers; wall time,
 * summed MAS process time, runner overhead, goal < 20% of wall); BENCH_EXPERIMENTS=0 skips it.
 * Last, MARS vs a single node-level replay (scripts/bench-mars.ts, issue 15: 30 calibrated failures,
 * repaired by each and by MARS where the single replay failed, Wilson intervals vs the truth table,
 * tree-node checks, MARS calls/tokens per repaired case); BENCH_MARS=0 skips it.
 * Right after the import benchmark, import at the storage limit (scripts/bench-import-limit.ts,
 * issue 25 item 3: our import of one file side by side with a bare better-sqlite3 insert loop of
 * the same rows, as a ratio, goal >= 0.8); BENCH_LIMIT=0 skips it.
 * At the end, the figures of issue 25 together (scripts/bench-goals.ts): each with its goal,
 * "met" / "NOT met" / "not measured" and the load average when it was measured.
 * Then worker scale-out (scripts/bench-workers.ts, issue 23: experiment attempts per second with 1,
 * 2 and 3 `npm run worker` processes on the calibrated world); BENCH_WORKERS=0 skips it.
 * BENCH_IMPORT=0 skips the import benchmark above; BENCH_ONLY=<part>,… runs only the parts named
 * (import, limit, agreement, symptoms, replay, otlp, inspector, bigtrace, experiments, mars, workers).
 */
import { SMOKE } from "./bench-smoke"; // first: sets the smoke sizes before the parts read them
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { goldSizedBundle, syntheticBundle } from "../lib/bundle/synthetic";
import { openDb } from "../lib/db/client";
import { bundleHash, exportBundle, importCase, type ImportStatus } from "../lib/db/cases";
import { migrate } from "../lib/db/migrate";
import { runInspectorBench } from "./bench-inspector";
import { runAgreementBench } from "./bench-agreement";
import { runReplayBench } from "./bench-replay";
import { runSymptomsBench } from "./bench-symptoms";
import { runOtlpBench } from "./bench-otlp";
import { runBigTraceBench } from "./bench-bigtrace";
import { runExperimentsBench } from "./bench-experiments";
import { runMarsBench } from "./bench-mars";
import { runImportLimitBench } from "./bench-import-limit";
import { printGoals } from "./bench-goals";
import { runWorkersBench } from "./bench-workers";

const GOAL_MS = 10_000;
const GOLD = Number(process.env.BENCH_GOLD ?? 536);
const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const WAL = process.env.BENCH_WAL === "1";

async function timed<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

function mustValidate(b: ReplayBundle): ReplayBundle {
  // syntheticBundle already validated once (buildBundle); validate the serialized form again as
  // an importer would after reading a file.
  const res = validateBundle(JSON.parse(JSON.stringify(b)));
  if (!res.ok) throw new Error(`${b.id}: ${res.issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  return res.bundle;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-bench-"));
  const url = `file:${path.join(dir, "bench.db")}`;
  const [, migrateMs] = await timed(() => migrate(url));
  const { db } = openDb(url);
  try {
    if (WAL) {
      await db.$queryRawUnsafe("PRAGMA journal_mode=WAL");
      await db.$executeRawUnsafe("PRAGMA synchronous=NORMAL");
    }
    const pragmas = {
      journal: String(Object.values((await db.$queryRawUnsafe<Array<Record<string, unknown>>>("PRAGMA journal_mode"))[0])[0]),
      synchronous: String(Object.values((await db.$queryRawUnsafe<Array<Record<string, unknown>>>("PRAGMA synchronous"))[0])[0]),
    };
    // (a) build + validate in memory
    const [golds, buildGoldMs] = await timed(() => Array.from({ length: GOLD }, (_, i) => mustValidate(goldSizedBundle(i))));
    const [big, buildBigMs] = await timed(() =>
      mustValidate(syntheticBundle({ id: `bench/big/${TURNS}`, turns: TURNS, taskNode: false, seed: 42 })),
    );

    const expectAll = (got: ImportStatus[], want: ImportStatus, what: string) => {
      const bad = got.filter((s) => s !== want);
      if (bad.length) throw new Error(`${what}: expected all "${want}", got ${bad.length} other (${bad[0]})`);
    };

    // (b) 536 gold-sized imports, (c) the big one
    const [goldStatus, importGoldMs] = await timed(async () => {
      const out: ImportStatus[] = [];
      for (const b of golds) out.push((await importCase(db, { bundle: b })).status);
      return out;
    });
    expectAll(goldStatus, "imported", "gold-sized import");
    const [bigRes, importBigMs] = await timed(() => importCase(db, { bundle: big }));
    expectAll([bigRes.status], "imported", "big import");
    const totalImportMs = importGoldMs + importBigMs;

    // (e) re-import everything: idempotent skip
    const [reStatus, reimportMs] = await timed(async () => {
      const out: ImportStatus[] = [];
      for (const b of golds) out.push((await importCase(db, { bundle: b })).status);
      out.push((await importCase(db, { bundle: big })).status);
      return out;
    });
    expectAll(reStatus, "skipped", "re-import");

    // export the big one and compare its bundleHash
    const [exported, exportBigMs] = await timed(() => exportBundle(db, { caseId: bigRes.caseId }));
    if (!exported) throw new Error("export of the big bundle returned null");
    const roundTrip = bundleHash(exported) === bundleHash(big) ? "ok" : "mismatch";

    const [counts] = await timed(async () => ({
      cases: await db.case.count(),
      nodes: await db.node.count(),
      edges: await db.edge.count(),
      records: await db.boundaryRecord.count(),
    }));

    const rows: Array<[string, number, string]> = [
      ["migrate (fresh db)", migrateMs, ""],
      [`build+validate ${GOLD} gold-sized`, buildGoldMs, `${(buildGoldMs / GOLD).toFixed(2)} ms each`],
      [`build+validate ${big.graph.nodes.length}-node`, buildBigMs, ""],
      [`import ${GOLD} gold-sized`, importGoldMs, `${(importGoldMs / GOLD).toFixed(2)} ms each`],
      [`import ${big.graph.nodes.length}-node`, importBigMs, `${big.graph.nodes.length} nodes, ${big.graph.edges.length} edges, ${big.records.length} records`],
      ["total import", totalImportMs, totalImportMs < GOAL_MS ? `goal < ${GOAL_MS} ms: met` : `goal < ${GOAL_MS} ms: NOT met`],
      [`re-import all ${GOLD + 1} (skip)`, reimportMs, `${(reimportMs / (GOLD + 1)).toFixed(2)} ms each`],
      [`export ${big.graph.nodes.length}-node`, exportBigMs, `bundleHash round trip: ${roundTrip}`],
    ];
    const w = Math.max(...rows.map((r) => r[0].length));
    console.log(
      `import benchmark (SQLite ${url}, journal_mode=${pragmas.journal}, synchronous=${pragmas.synchronous}, node ${process.version}, ${os.cpus().length} cpus)`,
    );
    for (const [name, ms, note] of rows) console.log(`  ${name.padEnd(w)}  ${ms.toFixed(0).padStart(7)} ms  ${note}`);
    console.log(`  rows: ${counts.cases} cases, ${counts.nodes} nodes, ${counts.edges} edges, ${counts.records} records`);
    console.log(
      JSON.stringify({
        bench: "import",
        goal_ms: GOAL_MS,
        total_ms: Math.round(totalImportMs),
        goal_met: totalImportMs < GOAL_MS,
        gold_count: GOLD,
        big_nodes: big.graph.nodes.length,
        migrate_ms: Math.round(migrateMs),
        build_gold_ms: Math.round(buildGoldMs),
        build_big_ms: Math.round(buildBigMs),
        import_gold_ms: Math.round(importGoldMs),
        import_big_ms: Math.round(importBigMs),
        reimport_ms: Math.round(reimportMs),
        export_big_ms: Math.round(exportBigMs),
        roundtrip: roundTrip,
        sqlite_journal: pragmas.journal,
        sqlite_synchronous: pragmas.synchronous,
        node: process.version,
        cpus: os.cpus().length,
        smoke: SMOKE,
      }),
    );
  } finally {
    await db.$disconnect();
    if (process.env.BENCH_KEEP === "1") console.error(`bench: kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Whether a part runs: BENCH_ONLY=<part>,<part>… runs just those (e.g. `inspector,bigtrace`);
 * otherwise every part but those set to 0 (BENCH_IMPORT=0, BENCH_LIMIT=0, …).
 * Parts: import, limit, agreement, symptoms, replay, otlp, inspector, bigtrace, experiments, mars, workers.
 */
function runs(part: string): boolean {
  const only = process.env.BENCH_ONLY?.split(",").map((p) => p.trim()).filter(Boolean);
  if (only?.length) return only.includes(part);
  return process.env[`BENCH_${part.toUpperCase()}`] !== "0";
}

Promise.resolve()
  .then(() => (runs("import") ? main() : undefined))
  .then(() => (runs("limit") ? runImportLimitBench() : undefined))
  .then(() => (runs("agreement") ? runAgreementBench() : undefined))
  .then(() => (runs("symptoms") ? runSymptomsBench() : undefined))
  .then(() => (runs("replay") ? runReplayBench() : undefined))
  .then(() => (runs("otlp") ? runOtlpBench() : undefined))
  .then(() => (runs("inspector") ? runInspectorBench() : undefined))
  .then(() => (runs("bigtrace") ? runBigTraceBench() : undefined))
  .then(() => (runs("experiments") ? runExperimentsBench() : undefined))
  .then(() => (runs("mars") ? runMarsBench() : undefined))
  .then(() => (runs("workers") ? runWorkersBench() : undefined))
  .then(() => printGoals())
  .catch((e) => {
    console.error(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  });
