// Spawn helper (lib/services/replay/spawn-helper.ts): a small Node process that starts the MAS
// processes of a large runner, so the runner's event loop never waits on a fork/exec (the parent is
// suspended until the child has exec'd, long on a loaded machine). Requests arrive as JSON lines on
// stdin, events leave as JSON lines on stdout. Plain JavaScript, no imports beyond Node's own: it
// starts in a few tens of milliseconds and stays small. Exits when its stdin closes (the runner is
// gone); the children it started live on in their own process groups, as they would have.
// Benchmark hook: when a child's environment has SYMTRACE_PROCESS_TIMING_FILE, one line
// "<lifetime ms> <spawn epoch ms>" is appended there when the child exits (spawn -> exit as its
// parent sees it: what `time <command>` would report, the process's start-up and teardown included).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const children = new Map();
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.op === "spawn") {
    let child;
    const t0 = performance.timeOrigin + performance.now();
    try {
      child = spawn(m.file, m.args, { env: m.env, cwd: m.cwd ?? undefined, stdio: ["ignore", "pipe", "pipe"], detached: true });
    } catch (e) {
      send({ ev: "error", id: m.id, message: e.message });
      send({ ev: "close", id: m.id, code: null, signal: null });
      return;
    }
    children.set(m.id, child);
    if (child.pid !== undefined) send({ ev: "pid", id: m.id, pid: child.pid });
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => send({ ev: "out", id: m.id, d }));
    child.stderr.on("data", (d) => send({ ev: "err", id: m.id, d }));
    child.once("error", (e) => send({ ev: "error", id: m.id, message: e.message }));
    const timing = m.env?.SYMTRACE_PROCESS_TIMING_FILE;
    if (timing) child.once("exit", () => appendFileSync(timing, `${(performance.timeOrigin + performance.now() - t0).toFixed(1)} ${t0.toFixed(1)}\n`));
    child.once("close", (code, signal) => {
      children.delete(m.id);
      send({ ev: "close", id: m.id, code, signal });
    });
  } else if (m.op === "signal") {
    const child = children.get(m.id);
    if (!child || child.pid === undefined) return;
    try {
      process.kill(m.group ? -child.pid : child.pid, m.sig);
    } catch {
      /* already gone */
    }
  }
});
process.stdin.on("end", () => process.exit(0));
