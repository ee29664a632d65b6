/**
 * Starting MAS processes through a small helper process (issue 25 item 1): spawning from the
 * runner suspends its event loop until the child has exec'd (tens of milliseconds per attempt on a
 * loaded machine, while the proxies of the other attempts wait); the helper
 * (./spawn-helper-child.mjs, one per runner process, started on first use) takes that wait instead.
 * A child started this way behaves as one from `child_process.spawn(file, args, { detached: true,
 * stdio: ["ignore", "pipe", "pipe"] })`: its own process group, stdout and stderr delivered as
 * they come, exit code and signal at close. SYMTRACE_SPAWN_HELPER=0 turns it off.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** A child process started by the helper. */
export interface HelperChild {
  /** Data events carry Buffers, as a piped child's do. */
  readonly stdout: EventEmitter;
  readonly stderr: EventEmitter;
  /** The process id, once the helper has reported it. */
  readonly pid: number | undefined;
  /** Exit code / signal, once it has closed (null before). */
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  /** Resolves at close (after all output was delivered): exit code and signal, or a spawn error. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null; error: string | null }>;
  /** Signal the child's process group (sent through the helper, so it reaches a child whose pid is not known yet). */
  signalGroup(sig: NodeJS.Signals): void;
}

interface Entry {
  child: { stdout: EventEmitter; stderr: EventEmitter; pid: number | undefined; exitCode: number | null; signalCode: NodeJS.Signals | null };
  error: string | null;
  resolve: (v: { code: number | null; signal: NodeJS.Signals | null; error: string | null }) => void;
}

let helper: { proc: ChildProcess; entries: Map<number, Entry> } | null = null;
let nextId = 1;

function helperFile(): string | null {
  try {
    const f = path.join(/*turbopackIgnore: true*/ path.dirname(fileURLToPath(import.meta.url)), "spawn-helper-child.mjs");
    return existsSync(f) ? f : null;
  } catch {
    return null;
  }
}

/** Process id of the running helper, or null (benchmarks read its reaped children's CPU time). */
export function spawnHelperPid(): number | null {
  return helper?.proc.pid ?? null;
}

/** Whether MAS processes are started through the helper here (its file is found; not turned off). */
export function spawnHelperAvailable(): boolean {
  return process.env.SYMTRACE_SPAWN_HELPER !== "0" && helperFile() !== null;
}

/** Keep the runner alive while children run; let it exit when none does. */
function setRef(h: { proc: ChildProcess; entries: Map<number, Entry> }): void {
  const on = h.entries.size > 0;
  const streams = [h.proc.stdin, h.proc.stdout] as unknown as Array<{ ref?: () => void; unref?: () => void } | null>;
  if (on) h.proc.ref();
  else h.proc.unref();
  for (const s of streams) (on ? s?.ref : s?.unref)?.call(s);
}

function getHelper(): { proc: ChildProcess; entries: Map<number, Entry> } {
  if (helper) return helper;
  const file = helperFile();
  if (!file) throw new Error("spawn helper not available");
  const proc: ChildProcess = spawn(process.execPath, [file], { stdio: ["pipe", "pipe", "inherit"], env: { PATH: process.env.PATH ?? "" } as unknown as NodeJS.ProcessEnv });
  const h = { proc, entries: new Map<number, Entry>() };
  helper = h;
  createInterface({ input: proc.stdout! }).on("line", (line) => {
    let m: { ev: string; id: number; pid?: number; d?: string; message?: string; code?: number | null; signal?: NodeJS.Signals | null };
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    const e = h.entries.get(m.id);
    if (!e) return;
    if (m.ev === "pid") e.child.pid = m.pid;
    else if (m.ev === "out") e.child.stdout.emit("data", Buffer.from(m.d ?? "", "utf8"));
    else if (m.ev === "err") e.child.stderr.emit("data", Buffer.from(m.d ?? "", "utf8"));
    else if (m.ev === "error") e.error = m.message ?? "spawn failed";
    else if (m.ev === "close") {
      h.entries.delete(m.id);
      e.child.exitCode = m.code ?? null;
      e.child.signalCode = m.signal ?? null;
      e.resolve({ code: m.code ?? null, signal: m.signal ?? null, error: e.error });
      setRef(h);
    }
  });
  const gone = (why: string) => {
    if (helper === h) helper = null;
    for (const [id, e] of h.entries) {
      h.entries.delete(id);
      e.resolve({ code: null, signal: null, error: e.error ?? `spawn helper ${why}` });
    }
  };
  proc.on("exit", (code, sig) => gone(`exited (${sig ?? code})`));
  proc.on("error", (err) => gone(`failed: ${err.message}`));
  proc.stdin!.on("error", () => {
    /* the helper is gone: reported by its exit */
  });
  setRef(h);
  return h;
}

/**
 * Start `file args` through the helper, detached (own process group), stdout/stderr piped.
 * @param env the child's whole environment
 * @throws Error when the helper is not available (check {@link spawnHelperAvailable})
 */
export function spawnViaHelper(file: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string }): HelperChild {
  const h = getHelper();
  const id = nextId++;
  const child: Entry["child"] = { stdout: new EventEmitter(), stderr: new EventEmitter(), pid: undefined, exitCode: null, signalCode: null };
  let resolve!: Entry["resolve"];
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error: string | null }>((r) => (resolve = r));
  h.entries.set(id, { child, error: null, resolve });
  setRef(h);
  h.proc.stdin!.write(JSON.stringify({ op: "spawn", id, file, args, env: opts.env, cwd: opts.cwd ?? null }) + "\n");
  return {
    stdout: child.stdout,
    stderr: child.stderr,
    get pid() {
      return child.pid;
    },
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    closed,
    signalGroup(sig: NodeJS.Signals) {
      if (helper !== h || !h.entries.has(id)) return;
      h.proc.stdin!.write(JSON.stringify({ op: "signal", id, sig, group: true }) + "\n");
    },
  };
}
