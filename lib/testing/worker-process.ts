/**
 * Test and benchmark support: a job worker (`scripts/worker.ts`, or the test harness
 * `lib/testing/fake-worker.ts`) as a child process under tsx, as `npm run worker` starts it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export type WorkerProcess = { child: ChildProcess; stderr: () => string };

/**
 * Start a worker process and resolve once its stderr has announced every kind in `ready` (the
 * worker logs `<kind> worker <id> started`).
 *
 * @param o.script  repo-relative entry (default `scripts/worker.ts`)
 * @param o.env     added to this process's environment (DATABASE_URL, SYMTRACE_WORKER_* …)
 * @param o.ready   patterns its stderr must match before the promise resolves, e.g. `/experiment worker .* started/`
 * @param o.track   the child is pushed here at once, so a test's afterAll can kill it even if start-up fails
 * @returns the child and a reader of everything it has written to stderr so far
 * @throws Error (rejection) with its stderr when it exits before it is ready
 */
export function spawnWorkerProcess(o: { script?: string; env: Record<string, string>; ready: RegExp[]; track?: ChildProcess[] }): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", o.script ?? "scripts/worker.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...o.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  o.track?.push(child);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (o.ready.every((re) => re.test(err))) {
        clearInterval(t);
        resolve({ child, stderr: () => err });
      } else if (child.exitCode !== null || child.signalCode !== null) {
        clearInterval(t);
        reject(new Error(`worker exited before it started: ${err.slice(-2000)}`));
      }
    }, 50);
  });
}
