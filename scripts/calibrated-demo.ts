/**
 * Regenerate the shipped demo experiment (demo/experiment) from the calibrated world
 * (lib/testing/calibrated; issue 20 item 6). Nothing of the result is edited afterwards: the frozen
 * settings are exactly the ones the run used (the commands are repo-relative because the script
 * runs in the repo root), the report is the one `experiment run` stored at the end.
 *
 *   node --experimental-wasm-modules --import tsx scripts/calibrated-demo.ts [--cases 30] [--workers 2] [--port 0] [--tool-port 0] [--seed 13] [--keep]
 *
 * Steps: bundle mas/calibrated.ts with esbuild into data/calibrated-mas/calibrated.mjs (run as
 * `node data/calibrated-mas/calibrated.mjs`); record `--cases` failed source runs in a world with
 * session "record"; serve a fresh world (session "live"); `symtrace experiment run` with all nine
 * methods × k = 1, the world's evaluator and reproduction judge, `--seed`; pack the output and the
 * case files into demo/experiment (scripts/demo-data.ts `pack`). Deterministic: draws are keyed on
 * the attempt seeds, so the same code gives the same document up to ids, ports and times.
 * Scripted local endpoints only; no model is called. Prints one JSON line at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runExperimentCommand } from "../cli/experiment";
import { ALL_METHODS } from "../lib/testing/calibrated/check";
import { buildCalibratedMas, REPO_ROOT } from "../lib/testing/calibrated/fast-mas";
import { recordCalibratedFailures } from "../lib/testing/calibrated/record";
import { startCalibratedWorld } from "../lib/testing/calibrated/world";
import { pack } from "./demo-data";

function arg(name: string, d: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : d;
}

async function main(): Promise<void> {
  const cases = Number(arg("--cases", "30"));
  const workers = Number(arg("--workers", "2"));
  const seed = Number(arg("--seed", "13"));
  const port = Number(arg("--port", "0"));
  const toolPort = Number(arg("--tool-port", "0"));
  if (!Number.isInteger(cases) || cases < 1) throw new Error(`--cases must be an integer >= 1, got ${arg("--cases", "")}`);
  process.chdir(REPO_ROOT);
  process.env.SYMTRACE_QUIET = "1";
  const log = (s: string) => process.stderr.write(`[calibrated-demo ${new Date().toISOString()}] ${s}\n`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-calibrated-demo-"));
  const t0 = Date.now();
  // The MAS: bundled into the repo's (git-ignored) data/ so the frozen command is repo-relative.
  buildCalibratedMas(path.join(REPO_ROOT, "data", "calibrated-mas"));
  const mas = ["node", "data/calibrated-mas/calibrated.mjs"];
  const rec = await startCalibratedWorld({ seed, session: "record", port, toolPort });
  let recorded;
  try {
    recorded = await recordCalibratedFailures(rec, { count: cases, command: mas, outDir: path.join(dir, "cases") });
  } finally {
    await rec.stop();
  }
  log(`recorded ${recorded.failures.length} failures in ${recorded.runs} runs (${Math.round((Date.now() - t0) / 1000)} s)`);
  const world = await startCalibratedWorld({ seed, port, toolPort });
  let code: number;
  try {
    const r = await runExperimentCommand(
      [
        "--cases", path.join(dir, "cases"), "--methods", ALL_METHODS.join(","), "--attempts", "1",
        "--name", `Demo: calibrated world, ${cases} recorded failures × ${ALL_METHODS.length} methods × k = 1 (scripts/calibrated-demo.ts)`,
        "--upstream", world.upstream, "--tool-upstream", world.toolUpstream,
        "--evaluator", "node scripts/calibrated-evaluator.mjs",
        "--reproduction-judge", "node scripts/calibrated-reproduction-judge.mjs",
        "--seed", String(seed), "--workers", String(workers), "--out", path.join(dir, "out"), "--", ...mas,
      ],
      { url: `file:${path.join(dir, "db.sqlite")}`, log },
    );
    code = r.code;
    if (code !== 0) throw new Error(`experiment run exited ${code}: ${JSON.stringify(r.output).slice(0, 2000)}`);
  } finally {
    await world.stop();
  }
  const doc = JSON.parse(readFileSync(path.join(dir, "out", "experiment.json"), "utf8")) as { experiment: string; attempts: unknown[] };
  const packed = pack(path.join(dir, "out"), path.join(dir, "cases"), undefined);
  process.stdout.write(JSON.stringify({ ...packed, cases, methods: ALL_METHODS.length, attempts: doc.attempts.length, seconds: Math.round((Date.now() - t0) / 1000), work: dir }) + "\n");
  if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  process.stderr.write(`calibrated-demo: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
