/**
 * `symtrace detect --eval [--dataset D] [--dir <file-or-dir>...] [--seed S]`: how good is the
 * detector (rules only)? Without --dir: the database's cases (final annotations, Who&When labels);
 * with --dir: bundle/importable files and symtrace.annotations/v1 files (gold annotations). Prints
 * the lib/symptoms EvalReport (anchor and top-3 hit rates, per-category precision/recall, Wilson
 * 95% intervals, Random-Node and Last-Node baselines, per-case picks). Thin.
 */
import { existsSync } from "node:fs";
import { EVAL_USAGE, type Result } from "./detect";

const fail = (code: number, message: string, p = "$"): Result => ({ code, output: { ok: false, errors: [{ path: p, message }] } });

/** Arguments after `detect --eval`. */
export async function evalCommand(argv: string[]): Promise<Result> {
  if (argv[0] === "--attribution") {
    const { attributionCommand } = await import("./detect-attribution");
    return attributionCommand(argv.slice(1));
  }
  const args = argv.slice();
  let dataset: string | undefined;
  let seed: number | undefined;
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const v = args[i + 1];
    if (a === "--dataset" || a === "--dir" || a === "--seed") {
      if (!v || v.startsWith("--")) return fail(2, `${a} needs a value; usage: ${EVAL_USAGE}`);
      if (a === "--dataset") dataset = v;
      else if (a === "--dir") dirs.push(v);
      else if (!/^\d+$/.test(v) || Number(v) > 0xffffffff) return fail(2, `--seed must be a 32-bit non-negative integer, got ${JSON.stringify(v)}`);
      else seed = Number(v);
      i++;
    } else return fail(2, `unexpected ${a}; usage: ${EVAL_USAGE}`);
  }
  if (dirs.length) {
    const missing = dirs.find((d) => !existsSync(d));
    if (missing) return fail(1, `no such file or directory: ${missing}`, "--dir");
    const { evalFromFiles } = await import("../lib/services/symptoms-eval");
    return { code: 0, output: { source: "files", dataset: dataset ?? null, ...evalFromFiles(dirs, { dataset, seed }) } };
  }
  const { openDb } = await import("../lib/db");
  const { migrate } = await import("../lib/db/migrate");
  const { evalFromDb } = await import("../lib/services/symptoms-eval");
  const handle = openDb();
  await migrate(handle.url);
  try {
    return { code: 0, output: { source: "database", dataset: dataset ?? null, ...(await evalFromDb(handle.db, { dataset, seed })) } };
  } finally {
    await handle.db.$disconnect();
  }
}
