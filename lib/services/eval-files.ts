/**
 * The files an evaluator or reproduction judge reads (SYMTRACE_BUNDLE, SYMTRACE_SOURCE_BUNDLE;
 * lib/services/replay-evaluate.ts, lib/services/experiments/reproduction.ts), issue 25 item 1.
 * They were written into a new temporary directory per run, removed recursively after it: three
 * directories per experiment attempt, and the recursive removal (a failing rmdir, a listing, an
 * unlink, a second rmdir, all synchronous) blocked the runner's event loop ~12 ms a time on a
 * loaded machine (CPU profile of scripts/bench-experiments.ts: 2.2 s over 90 attempts at load 8).
 * Here every file goes into one directory of this process (`symtrace-eval-<random>` under the OS
 * temp dir, made on first use, removed at process exit) under a name of its own, and a run
 * unlinks only its file. What an evaluator sees is unchanged: a path to a private file holding
 * the bundle's JSON, gone after the run.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

let dir: string | null = null;
let seq = 0;

function evalDir(): string {
  if (dir) return dir;
  const d = mkdtempSync(path.join(os.tmpdir(), "symtrace-eval-"));
  dir = d;
  process.once("exit", () => {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      /* best effort at exit */
    }
  });
  return d;
}

/** A file written for one evaluator run. */
export interface EvalFile {
  /** Absolute path (what SYMTRACE_BUNDLE / SYMTRACE_SOURCE_BUNDLE name). */
  path: string;
  /** Unlink it (idempotent; never throws). */
  remove(): void;
}

/**
 * Write `text` (a bundle's JSON) to a new file of this process's evaluator directory.
 * @param name the file's base name, e.g. "bundle.json" (prefixed with a unique number)
 * @throws Error when the temp directory or the file cannot be written (the fs error)
 */
export function writeEvalFile(name: string, text: string): EvalFile {
  const file = path.join(evalDir(), `${++seq}-${name}`);
  writeFileSync(file, text);
  let gone = false;
  return {
    path: file,
    remove() {
      if (gone) return;
      gone = true;
      try {
        unlinkSync(file);
      } catch {
        /* already removed (e.g. by the evaluator) */
      }
    },
  };
}
