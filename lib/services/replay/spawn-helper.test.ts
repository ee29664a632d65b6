/**
 * MAS processes started through the spawn helper (./spawn-helper.ts) behave as ones spawned by
 * the runner: final answer, exit code, stderr tail, environment, working directory, a stop that
 * reaches the whole process group, a spawn error for a missing program.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMasProcess } from "./process";
import { spawnHelperAvailable, spawnViaHelper } from "./spawn-helper";

const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-spawn-helper-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const mas = path.join(dir, "mas.mjs");
writeFileSync(
  mas,
  [
    'process.stderr.write("working\\n");',
    'console.log("not json");',
    "console.log(JSON.stringify({ final: { task: process.env.SYMTRACE_TASK, cwd: process.cwd(), arg: process.argv[2] } }));",
    "process.exit(Number(process.argv[3] ?? 0));",
  ].join("\n"),
);

describe("spawn helper", () => {
  it("is available from the sources", () => {
    expect(spawnHelperAvailable()).toBe(true);
  });

  it("runMasProcess through the helper: final answer, exit code, stderr tail, env, cwd — as spawned directly", async () => {
    const run = async () => runMasProcess([process.execPath, mas, "a1", "3"], { SYMTRACE_TASK: "the task" }, { cwd: dir }).done;
    const viaHelper = await run();
    process.env.SYMTRACE_SPAWN_HELPER = "0";
    let direct;
    try {
      direct = await run();
    } finally {
      delete process.env.SYMTRACE_SPAWN_HELPER;
    }
    expect(viaHelper).toEqual({ exitCode: 3, signal: null, final: { task: "the task", cwd: dir, arg: "a1" }, spawnError: null, stderrTail: "working\n" });
    expect(viaHelper).toEqual(direct);
  });

  it("benchmark hook: with SYMTRACE_PROCESS_TIMING_FILE in the child's environment, its lifetime spawn -> exit is appended, through the helper and directly", async () => {
    for (const helper of ["1", "0"]) {
      const file = path.join(dir, `process-times-${helper}.txt`);
      process.env.SYMTRACE_SPAWN_HELPER = helper;
      const before = Date.now();
      try {
        const r = await runMasProcess([process.execPath, "-e", "setTimeout(() => {}, 300)"], { SYMTRACE_PROCESS_TIMING_FILE: file }).done;
        expect(r.exitCode).toBe(0);
      } finally {
        delete process.env.SYMTRACE_SPAWN_HELPER;
      }
      const after = Date.now();
      const { readFileSync } = await import("node:fs");
      const lines = readFileSync(file, "utf8").trim().split("\n");
      expect(lines, `helper=${helper}`).toHaveLength(1);
      const [ms, start] = lines[0].split(" ").map(Number);
      // the child sleeps 300 ms; spawned after `before`, gone before `after`
      expect(ms).toBeGreaterThanOrEqual(300);
      expect(start).toBeGreaterThanOrEqual(before - 1);
      expect(start + ms).toBeLessThanOrEqual(after + 1);
    }
  });

  it("stop reaches the child's whole process group, even right after the start", async () => {
    const pidFile = path.join(dir, "grandchild.pid");
    const p = runMasProcess(["sh", "-c", `sleep 30 & echo $! > ${pidFile}; wait`], {});
    await new Promise((r) => setTimeout(r, 500));
    p.stop();
    const r = await p.done;
    expect(r.signal).toBe("SIGTERM");
    const { readFileSync } = await import("node:fs");
    const grandchild = Number(readFileSync(pidFile, "utf8").trim());
    await new Promise((res) => setTimeout(res, 200));
    // Gone, or a zombie waiting to be reaped by init (no longer running).
    const state = (() => {
      try {
        return readFileSync(`/proc/${grandchild}/stat`, "utf8").split(") ")[1][0];
      } catch {
        return "gone";
      }
    })();
    expect(["gone", "Z"]).toContain(state);
    const q = runMasProcess(["sleep", "30"], {});
    q.kill();
    expect((await q.done).signal).toBe("SIGKILL");
  });

  it("a program that does not exist: a spawn error, as spawned directly", async () => {
    const r = await runMasProcess([path.join(dir, "no-such-program")], {}).done;
    expect(r.exitCode).toBeNull();
    expect(r.spawnError).toMatch(/ENOENT/);
    const c = spawnViaHelper("true", [], { env: process.env });
    expect(await c.closed).toEqual({ code: 0, signal: null, error: null });
    expect(c.pid).toBeGreaterThan(0);
  });
});
