/**
 * Worker threads started ahead for JavaScript evaluators and judges (issue 25 item 1): starting a
 * worker thread (a V8 isolate and Node's bootstrap) is most of the cost of a `node <module>.mjs`
 * evaluator run in a thread (./js-evaluator.ts) — ~100 ms for an attempt's evaluator and judge on
 * a loaded 2-core machine. Here up to two idle workers are kept started; a run takes one and hands
 * it its module, arguments and environment, and a replacement starts when that run ends (while the
 * next attempt's MAS runs, off the attempt's critical path).
 *
 * Each worker runs one module once, then ends, as before: nothing is shared between runs. Inside,
 * the worker sets `process.argv` to `[node, <file>, ...args]` and `process.env` to exactly the
 * given environment (each value as process.env makes it a string, as the Worker `env` option does),
 * then imports the module: what the module sees is what `new Worker(file, { argv, env })` gives it. Only ES modules (`.mjs`) take
 * this path (a CommonJS entry loaded by import() would see no `require.main`); others, and every
 * module when SYMTRACE_EVALUATOR_WARM=0, get a new worker per run. Environment read by Node itself
 * at start-up (NODE_OPTIONS, …) is that of the runner's process, as for any worker thread.
 * Idle workers do not keep the process alive (unref).
 */
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/** Idle workers kept started at most. */
export const WARM_WORKERS = 2;

// CommonJS (eval): wait for one module to run, then stop listening so the worker ends with it.
const BOOT = `
const { parentPort } = require("node:worker_threads");
parentPort.once("message", (m) => {
  parentPort.unref();
  process.argv.splice(1, process.argv.length - 1, m.file, ...m.args);
  for (const k of Object.keys(process.env)) delete process.env[k];
  for (const [k, v] of Object.entries(m.env)) process.env[k] = v;
  import(m.url).catch((e) => process.nextTick(() => { throw e; }));
});
`;

const idle: Worker[] = [];
let started = false;

function startOne(): void {
  let w: Worker;
  try {
    w = new Worker(BOOT, { eval: true, stdout: true, stderr: true, execArgv: [] });
  } catch {
    return;
  }
  w.unref();
  // An idle worker that dies (it should not) leaves the pool; a taken one is the caller's.
  const gone = () => {
    const i = idle.indexOf(w);
    if (i >= 0) idle.splice(i, 1);
  };
  w.once("exit", gone);
  w.once("error", gone);
  idle.push(w);
}

/** Whether `file` may run in a started-ahead worker (an .mjs module, not turned off). */
export function warmEligible(file: string): boolean {
  return process.env.SYMTRACE_EVALUATOR_WARM !== "0" && file.endsWith(".mjs");
}

/**
 * A worker already started, running `file` with `args` and exactly `env` as its environment; null
 * when none is idle (the first call of a process starts the pool: the caller makes its own worker).
 * The caller owns the worker (listeners, timeout, terminate). When it exits, a replacement starts.
 */
export function takeWarmWorker(file: string, args: readonly string[], env: Record<string, string | undefined>): Worker | null {
  if (!warmEligible(file)) return null;
  if (!started) {
    started = true;
    for (let i = 0; i < WARM_WORKERS; i++) startOne();
    return null;
  }
  const w = idle.shift();
  if (!w) return null;
  w.removeAllListeners("exit");
  w.removeAllListeners("error");
  w.ref();
  w.once("exit", () => {
    if (idle.length < WARM_WORKERS) startOne();
  });
  w.postMessage({ url: pathToFileURL(file).href, file, args: [...args], env });
  return w;
}

/** Idle started workers now (tests). */
export function warmWorkerCount(): number {
  return idle.length;
}
