/**
 * `npm run -s calibrated-world -- [options]`: start the calibrated world (lib/testing/calibrated/,
 * README there) and/or record failed source runs in it.
 *
 *   npm run -s calibrated-world -- [--seed 13] [--port 4401] [--tool-port 4402]
 *       serve the model endpoint (OpenAI-compatible, session "live") and the tool server; print one
 *       JSON line {upstream, toolUpstream, model, seed, tasks, truth, evaluator, judge}; run until
 *       SIGINT/SIGTERM.
 *   npm run -s calibrated-world -- --record <n> --out <dir> [--db] [--seed 13] [--tasks N] [--tsx] [--serve ...]
 *       record n failed source runs (a world with session "record", so an experiment's fresh runs
 *       never repeat a recorded sample) as bundle files `<dir>/<nnn>-<task id>.json` (task,
 *       runner `calibrated`, `referenceLabels` [{nodeId, extra: {primaryCategory, categories,
 *       boundaryNodeId}}]); `--db` also imports them into DATABASE_URL (migrated first). Prints one
 *       JSON line {out, cases, runs, passedRuns, detector: {exact, boundary}, files}. With
 *       `--serve` the live world is started afterwards (as above). The MAS runs bundled by esbuild
 *       (fast); `--tsx` runs it as the registered runner does (`node --import tsx mas/calibrated.ts`).
 *
 * Exit codes: 0 ok; 1 a run failed unexpectedly; 2 bad arguments.
 */
import os from "node:os";
import path from "node:path";
import { detectSymptoms } from "../lib/symptoms";
import { buildCalibratedMas, calibratedTsxCommand, REPO_ROOT } from "../lib/testing/calibrated/fast-mas";
import { recordCalibratedFailures } from "../lib/testing/calibrated/record";
import { CALIBRATED_SEED, startCalibratedWorld } from "../lib/testing/calibrated/world";

const USAGE = "calibrated-world [--seed S] [--port P] [--tool-port P] [--tasks N] [--record N --out DIR [--db] [--tsx] [--serve]]";

class BadArgs extends Error {}

function parse(argv: string[]) {
  const o: Record<string, string | true> = {};
  const valued = new Set(["--seed", "--port", "--tool-port", "--tasks", "--record", "--out"]);
  const flags = new Set(["--db", "--tsx", "--serve"]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (valued.has(a)) {
      if (argv[i + 1] === undefined) throw new BadArgs(`${a} needs a value; usage: ${USAGE}`);
      o[a] = argv[++i];
    } else if (flags.has(a)) o[a] = true;
    else throw new BadArgs(`unknown argument ${a}; usage: ${USAGE}`);
  }
  const int = (k: string, min: number, max: number, def: number): number => {
    const v = o[k];
    if (v === undefined) return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new BadArgs(`${k} must be an integer in ${min}..${max}, got ${JSON.stringify(v)}`);
    return n;
  };
  const record = int("--record", 1, 800, 0);
  if (record && typeof o["--out"] !== "string") throw new BadArgs(`--record needs --out <dir>; usage: ${USAGE}`);
  if (!record && (o["--out"] || o["--db"] || o["--tsx"])) throw new BadArgs(`--out, --db and --tsx go with --record; usage: ${USAGE}`);
  return {
    seed: int("--seed", 0, 2 ** 31 - 1, CALIBRATED_SEED),
    port: int("--port", 0, 65535, 0),
    toolPort: int("--tool-port", 0, 65535, 0),
    tasks: int("--tasks", 1, 900, Math.max(48, Math.ceil(record * 1.25) + 8)),
    record,
    out: typeof o["--out"] === "string" ? path.resolve(o["--out"]) : null,
    db: o["--db"] === true,
    tsx: o["--tsx"] === true,
    serve: o["--serve"] === true || !record,
  };
}

async function main(): Promise<number> {
  let a;
  try {
    a = parse(process.argv.slice(2));
  } catch (e) {
    if (e instanceof BadArgs) {
      process.stderr.write(`calibrated-world: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  process.env.SYMTRACE_QUIET = "1";
  if (a.record && a.out) {
    const command = a.tsx ? calibratedTsxCommand() : buildCalibratedMas(path.join(os.tmpdir(), `symtrace-calibrated-mas-${process.pid}`));
    const world = await startCalibratedWorld({ seed: a.seed, session: "record", tasks: a.tasks });
    let res;
    try {
      res = await recordCalibratedFailures(world, {
        count: a.record,
        command,
        outDir: a.out,
        onRun: (r, n) => process.stderr.write(`calibrated-world: ${r.task.id} ${r.passed ? "passed (not kept)" : `failed → case ${n}/${a.record}`}\n`),
      });
    } finally {
      await world.stop();
    }
    let exact = 0;
    let boundary = 0;
    for (const f of res.failures) {
      const d = detectSymptoms(f.bundle);
      if (d.anchorNode === f.reference.nodeId) exact++;
      if (d.anchor === f.reference.boundaryNodeId) boundary++;
    }
    let imported: number | null = null;
    if (a.db) {
      const { openDb } = await import("../lib/db");
      const { importCase } = await import("../lib/db/cases");
      const { migrate } = await import("../lib/db/migrate");
      const h = openDb();
      await migrate(h.url);
      imported = 0;
      for (const f of res.failures) {
        await importCase(h.db, { bundle: f.bundle });
        imported++;
      }
      await h.db.$disconnect();
    }
    process.stdout.write(
      `${JSON.stringify({ out: a.out, cases: res.failures.length, runs: res.runs, passedRuns: res.passedRuns, imported, detector: { exact, boundary, of: res.failures.length }, files: res.failures.map((f) => f.file) })}\n`,
    );
    if (!a.serve) return 0;
  }
  const world = await startCalibratedWorld({ seed: a.seed, port: a.port, toolPort: a.toolPort, tasks: a.tasks });
  process.stdout.write(
    `${JSON.stringify({
      upstream: world.upstream,
      toolUpstream: world.toolUpstream,
      model: world.model,
      seed: world.seed,
      tasks: world.suite.length,
      truth: world.truth,
      evaluator: `node ${path.join(REPO_ROOT, "scripts", "calibrated-evaluator.mjs")}`,
      judge: `node ${path.join(REPO_ROOT, "scripts", "calibrated-reproduction-judge.mjs")}`,
    })}\n`,
  );
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => resolve());
  });
  await world.stop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`calibrated-world: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
