/**
 * Import at the storage limit (issue 25 item 3; run by `npm run bench`, BENCH_LIMIT=0 skips it).
 *
 * One synthetic bundle file (lib/bundle writeSyntheticBundleFile, as the big-trace benchmark
 * writes them) of BENCH_LIMIT_NODES nodes (default 100,002; smoke 6,402) is imported, in turn,
 * A B A B … (BENCH_LIMIT_ROUNDS pairs, default 2; smoke 1), each in its own child process on a
 * freshly migrated SQLite database:
 *   A. our import: `importPaths` as `symtrace import` runs it (scripts/bench-import-child.ts:
 *      read, validate, hash and store; the streamed path from 8 MiB);
 *   B. the limit: the same rows (dumped beforehand from the same file through the same row
 *      mapping) inserted by a bare better-sqlite3 loop, prepared statements, one transaction
 *      (scripts/bench-import-bare.ts; only the inserts and the commit are timed).
 * Prints both rates, the ratio B/A per pair (our import as a share of the limit; goal >= 0.8),
 * peak resident memory of each, and the load average; one JSON line `{"bench":"import-limit",...}`.
 */
import "./bench-smoke";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { streamBundleFile } from "../lib/bundle/stream";
import { writeSyntheticBundleFile } from "../lib/bundle/synthetic-file";
import { bundleRowSink } from "../lib/db/stream-rows";
import { goalFigure } from "./bench-goals";

const ROOT = path.resolve(import.meta.dirname, "..");
const GOAL_RATIO = 0.8;
const CASE_ID = "cbenchlimit00000000000000";

function child<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", script, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    c.stdout.on("data", (d) => (out += d));
    c.stderr.on("data", (d) => (err += d));
    c.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${script} failed (${code}): ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() as string) as T);
      } catch (e) {
        reject(new Error(`${script} printed no figures: ${out.slice(-500)} ${String(e)}`));
      }
    });
  });
}

/** Dump the rows our import would store for `file` as NDJSON (the case row first). */
async function dumpRows(file: string, out: string): Promise<{ rows: number }> {
  const fd = openSync(out, "w");
  let buf: string[] = [];
  let rows = 0;
  const put = (tag: string) => (row: unknown[]) => {
    buf.push(JSON.stringify([tag, ...row]));
    rows++;
    if (buf.length >= 2000) {
      writeSync(fd, buf.join("\n") + "\n");
      buf = [];
    }
  };
  try {
    const now = Date.now();
    writeSync(fd, JSON.stringify({ id: CASE_ID, bundleId: "bench/limit", bundleHash: "", headerJson: "{}", sourceDataset: "bundle", taskPrompt: "", nodeCount: 0, edgeCount: 0, recordCount: 0, importedAt: now, updatedAt: now }) + "\n");
    const res = await streamBundleFile(file, bundleRowSink(CASE_ID, { node: put("n"), edge: put("e"), record: put("r") }));
    if (!res.ok) throw new Error(`bench bundle is invalid: ${JSON.stringify(res.issues.slice(0, 3))}`);
    if (buf.length) writeSync(fd, buf.join("\n") + "\n");
  } finally {
    closeSync(fd);
  }
  return { rows };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Run the side-by-side measurement and print it.
 * @returns the JSON object printed
 */
export async function runImportLimitBench(): Promise<Record<string, unknown>> {
  const smoke = process.env.BENCH_SMOKE === "1";
  const target = Number(process.env.BENCH_LIMIT_NODES ?? (smoke ? 6402 : 100_002));
  const rounds = Number(process.env.BENCH_LIMIT_ROUNDS ?? (smoke ? 1 : 2));
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-limitbench-"));
  try {
    const turns = Math.max(1, Math.round((target - 2) / 4));
    const nodes = 4 * turns + 2;
    const file = path.join(dir, `limit-${nodes}.bundle.json`);
    await writeSyntheticBundleFile(file, { id: `bench/limit-${nodes}`, turns, seed: 42, historyTurns: 1 });
    const fileMb = statSync(file).size / 2 ** 20;
    const rowsFile = path.join(dir, "rows.ndjson");
    const { rows } = await dumpRows(file, rowsFile);
    const load0 = os.loadavg()[0];
    const pairs: Array<{ oursMs: number; oursCpuS: number; oursRssMb: number; bareMs: number; bareCpuS: number; bareRssMb: number; ratio: number }> = [];
    for (let i = 0; i < rounds; i++) {
      const a = await child<{ ms: number; cpuS: number; rssBeforeMb: number; maxRssMb: number; nodes: number; status: string }>("scripts/bench-import-child.ts", [file, `file:${path.join(dir, `ours-${i}.db`)}`]);
      if (a.status !== "imported" || a.nodes !== nodes) throw new Error(`our import: ${JSON.stringify(a)}`);
      const b = await child<{ insertMs: number; insertCpuS: number; maxRssMb: number; rows: number }>("scripts/bench-import-bare.ts", [rowsFile, `file:${path.join(dir, `bare-${i}.db`)}`]);
      if (b.rows !== rows) throw new Error(`bare loop inserted ${b.rows} of ${rows} rows`);
      pairs.push({ oursMs: a.ms, oursCpuS: a.cpuS, oursRssMb: a.maxRssMb, bareMs: b.insertMs, bareCpuS: b.insertCpuS, bareRssMb: b.maxRssMb, ratio: b.insertMs / a.ms });
      rmSync(path.join(dir, `ours-${i}.db`), { force: true });
      rmSync(path.join(dir, `bare-${i}.db`), { force: true });
    }
    const ratio = median(pairs.map((p) => p.ratio));
    const oursMs = median(pairs.map((p) => p.oursMs));
    const bareMs = median(pairs.map((p) => p.bareMs));
    const load = os.loadavg()[0];
    const rate = (ms: number) => Math.round((nodes * 1000) / ms);
    console.log(`import at the storage limit (${nodes.toLocaleString("en")} nodes, ${fileMb.toFixed(0)} MB file, ${rows.toLocaleString("en")} rows; ${rounds} pair${rounds === 1 ? "" : "s"} A B; ${os.cpus().length} cpus, load average ${load0.toFixed(1)} -> ${load.toFixed(1)})`);
    for (const [i, p] of pairs.entries()) {
      console.log(`  pair ${i + 1}: our import ${p.oursMs} ms (${rate(p.oursMs)} nodes/s, peak RSS ${p.oursRssMb} MB, process CPU ${p.oursCpuS} s incl. start-up and migration); bare insert loop ${p.bareMs} ms (${rate(p.bareMs)} nodes/s, insert CPU ${p.bareCpuS} s, peak RSS ${p.bareRssMb} MB); ratio ${p.ratio.toFixed(2)}`);
    }
    const met = ratio >= GOAL_RATIO;
    console.log(`  our import / bare loop (median of pairs): x${ratio.toFixed(2)} (goal >= ${GOAL_RATIO}: ${met ? "met" : "NOT met"}); ${rate(oursMs)} vs ${rate(bareMs)} nodes/s`);
    goalFigure({ item: 3, name: "bundle import / bare better-sqlite3 insert loop (same rows, same run)", value: `x${ratio.toFixed(2)}`, goal: `>= ${GOAL_RATIO}x`, met, note: `${nodes.toLocaleString("en")} nodes: ${rate(oursMs)} vs ${rate(bareMs)} nodes/s, peak RSS ${Math.max(...pairs.map((p) => p.oursRssMb))} MB` });
    const result = { bench: "import-limit", smoke, nodes, rows, file_mb: Math.round(fileMb), rounds, pairs, ratio: Number(ratio.toFixed(3)), goal_ratio: GOAL_RATIO, goal_met: met, ours_nodes_per_s: rate(oursMs), bare_nodes_per_s: rate(bareMs), load: os.loadavg(), cpus: os.cpus().length };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  runImportLimitBench().catch((e) => {
    console.error(`bench-import-limit: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  });
}
