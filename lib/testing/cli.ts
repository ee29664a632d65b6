import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * `symtrace <args>` as a user runs it: a real process (tsx, wasm modules) in the repo root with
 * DATABASE_URL set, at most two minutes.
 */
export function spawnSymtrace(args: string[], dbUrl: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", path.join(ROOT, "cli/symtrace.ts"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: dbUrl },
    timeout: 120_000,
  });
}

/**
 * {@link spawnSymtrace} without blocking this process (a server in the test keeps answering while
 * the command runs), with `env` added.
 * @returns exit status (null when killed), stdout, stderr
 */
export function spawnSymtraceAsync(args: string[], dbUrl: string, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", path.join(ROOT, "cli/symtrace.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: dbUrl, ...env },
      timeout: 120_000,
    });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("error", reject);
    p.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * `symtrace <args>` run in this process (cli/main.ts runSymtrace) with DATABASE_URL (and `env`) set for the
 * call: the same dispatcher, output and exit codes as the process, without the ~1.3 s start-up of
 * a new Node process (tsx, Prisma, wasm) per command. For tests about a command's behaviour; tests
 * about the process itself (exit status, no stack trace on stderr, two processes on one database)
 * use {@link spawnSymtrace}. Commands run one at a time: calls made together queue (the output sink and
 * process.env are shared).
 * @returns the shape of spawnSync's result that the tests read: status, stdout, stderr ("")
 */
export function runSymtraceHere(args: string[], dbUrl: string, env: Record<string, string> = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  // one command at a time: calls made together (Promise.all) queue behind each other
  const run = queue.then(() => runOne(args, dbUrl, env));
  queue = run.catch(() => undefined);
  return run;
}

let queue: Promise<unknown> = Promise.resolve();

async function runOne(args: string[], dbUrl: string, env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  const { runSymtrace } = await import("../../cli/main");
  const vars = { ...env, DATABASE_URL: dbUrl };
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  let stdout = "";
  try {
    const status = await runSymtrace(args, (text) => {
      stdout += text;
    });
    return { status, stdout, stderr: "" };
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
