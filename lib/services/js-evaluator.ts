/**
 * Evaluators and judges that are JavaScript modules, run in a worker thread instead of a process
 * (issue 25 item 1): a command `node <file>.mjs|.js|.cjs [args]` (no node options, a plain word
 * each, see replay-evaluate `plainArgv`) runs as `new Worker(file)` with the same environment and
 * arguments. The contract of lib/services/replay-evaluate.ts holds: exit code (process.exit or
 * process.exitCode in the worker), stdout and stderr are collected as a process's would be. No
 * process is forked from the (large) runner, and no Node start-up is paid per call.
 *
 * A module that needs a process of its own (process.chdir, signals, native addons that refuse
 * workers) is run as a process with SYMTRACE_EVALUATOR_THREADS=0.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { takeWarmWorker } from "./js-evaluator-warm";

const JS_FILE = /\.(mjs|cjs|js)$/;

/**
 * The module file and its arguments when `argv` is `node <js file> [args]` and worker threads are
 * allowed (SYMTRACE_EVALUATOR_THREADS is not "0"); null otherwise (run a process).
 * @param argv the command split as replay-evaluate's plainArgv splits it
 * @param cwd where relative paths are resolved (default: this process's working directory)
 */
export function jsEvaluatorModule(argv: string[] | null, cwd = process.cwd()): { file: string; args: string[] } | null {
  if (process.env.SYMTRACE_EVALUATOR_THREADS === "0" || !argv || argv.length < 2) return null;
  const prog = argv[0];
  if (prog !== "node" && prog !== process.execPath) return null;
  if (!JS_FILE.test(argv[1]) || argv[1].startsWith("-")) return null;
  const file = path.resolve(/*turbopackIgnore: true*/ cwd, argv[1]);
  return existsSync(/*turbopackIgnore: true*/ file) ? { file, args: argv.slice(2) } : null;
}

/**
 * Run a JavaScript module in a worker thread as if it were `node <file> [args]`.
 * @param env the whole environment the module sees (process.env inside the worker)
 * @param timeoutMs the worker is terminated then (code null, like a killed process)
 * @returns exit code (null when it was terminated or failed to start), stdout, stderr
 */
export function runJsModuleInWorker(file: string, args: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let done = false;
    let worker: Worker;
    try {
      // A worker started ahead when one is idle (./js-evaluator-warm.ts), else a new one.
      worker = takeWarmWorker(file, args, env) ?? new Worker(/*turbopackIgnore: true*/ file, { argv: args, env: env as NodeJS.ProcessEnv, stdout: true, stderr: true, execArgv: [] });
    } catch (e) {
      resolve({ code: null, stdout: "", stderr: (e as Error).message });
      return;
    }
    worker.stdout.setEncoding("utf8");
    worker.stderr.setEncoding("utf8");
    worker.stdout.on("data", (d: string) => (out += d));
    worker.stderr.on("data", (d: string) => (err += d));
    let code: number | null = null;
    const t = setTimeout(() => {
      killed = true;
      void worker.terminate();
    }, timeoutMs);
    let killed = false;
    let uncaught: Error | null = null;
    worker.on("error", (e) => {
      uncaught = e;
    });
    worker.on("exit", (c) => {
      clearTimeout(t);
      code = killed ? null : uncaught ? 1 : c;
      if (uncaught) err += `${(uncaught as Error).stack ?? String(uncaught)}\n`;
      // stdout/stderr end after exit: wait for both before resolving.
      let open = 2;
      const end = () => {
        if (--open === 0 && !done) {
          done = true;
          resolve({ code, stdout: out, stderr: err });
        }
      };
      if (worker.stdout.readableEnded) end();
      else worker.stdout.once("end", end);
      if (worker.stderr.readableEnded) end();
      else worker.stderr.once("end", end);
    });
  });
}
