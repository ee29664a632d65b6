import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { buildBundle } from "../bundle";
import { evaluateReplay, plainArgv } from "./replay-evaluate";

const bundle = buildBundle({
  id: "r",
  task: { prompt: "How much?" },
  config: {},
  nodes: [{ id: "final_result_0000", type: "final_result", content: { final: "€16.00" } }],
  edges: [],
});

describe("evaluateReplay (SYMTRACE_REPLAY_EVALUATOR)", () => {
  test("exit 0 passes, exit 1 fails; the final answer and task reach the command; JSON stdout becomes details", async () => {
    const pass = await evaluateReplay(bundle, `node -e 'const f=JSON.parse(process.env.SYMTRACE_FINAL);console.log(JSON.stringify({got:f.final,task:process.env.SYMTRACE_TASK}));process.exit(f.final==="€16.00"?0:1)'`);
    expect(pass).toEqual({ passed: true, evaluator: expect.any(String), details: { got: "€16.00", task: "How much?" } });
    const fail = await evaluateReplay(bundle, "exit 1");
    expect(fail?.passed).toBe(false);
  });
  test("no evaluator → null; a crashing evaluator → unknown with the error", async () => {
    expect(await evaluateReplay(bundle, null)).toBeNull();
    const bad = await evaluateReplay(bundle, "exit 7");
    expect(bad?.passed).toBeNull();
    expect(JSON.stringify(bad?.details)).toContain("exited with 7");
    const said = await evaluateReplay(bundle, "echo 'first' >&2; echo 'no reference answer for this task' >&2; exit 3");
    expect((said?.details as { error: string }).error).toBe("evaluator exited with 3: no reference answer for this task");
  });
});

describe("plainArgv: which commands run without a shell", () => {
  test("a program with plain words is split at spaces; anything a shell would interpret keeps the shell", () => {
    expect(plainArgv("node scripts/calibrated-evaluator.mjs")).toEqual(["node", "scripts/calibrated-evaluator.mjs"]);
    expect(plainArgv("  /usr/bin/python3   eval.py --k=3 ")).toEqual(["/usr/bin/python3", "eval.py", "--k=3"]);
    for (const c of ["exit 1", "echo x", "true", "node -e 'x'", "node a.js > out", "A=1 node a.js", "node a.js; rm x", "node $HOME/a.js", "node *.js", "a | b", "node a.js && b", ""]) expect(plainArgv(c), c).toBeNull();
  });
  test("a plain command gives the same verdict as through the shell", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-plain-"));
    const script = path.join(dir, "e.mjs");
    writeFileSync(script, 'console.log(JSON.stringify({ final: JSON.parse(process.env.SYMTRACE_FINAL).final, ppid: process.ppid })); process.exit(2 - 2);');
    const direct = await evaluateReplay(bundle, `node ${script}`);
    const viaShell = await evaluateReplay(bundle, `node "${script}"`);
    expect(direct).toMatchObject({ passed: true, details: { final: "€16.00", ppid: process.pid } });
    expect(viaShell).toMatchObject({ passed: true, details: { final: "€16.00" } });
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("scripts/hilltop-evaluator.mjs (the e2e and demo evaluator)", () => {
  const hilltop = (final: string) =>
    buildBundle({ id: "h", task: { prompt: "What does entry to Hilltop Gardens cost for 2 adults and 3 children, and what are its Saturday opening hours?" }, config: {}, nodes: [{ id: "final_result_0000", type: "final_result", content: { final } }], edges: [] });
  const cmd = "node scripts/hilltop-evaluator.mjs";
  test("the per-person total (€21.00) fails, the family ticket (€16.00) with the hours passes; another task is unknown", async () => {
    const fail = await evaluateReplay(hilltop("costs €21.00 in total; on Saturday it is open 09:00–18:00."), cmd);
    expect(fail).toMatchObject({ passed: false, details: { missing: ["€16.00"] } });
    expect((await evaluateReplay(hilltop("The family ticket, €16.00. Saturday 09:00–18:00."), cmd))?.passed).toBe(true);
    const other = await evaluateReplay(bundle, cmd);
    expect(other?.passed).toBeNull();
    expect((other?.details as { error: string }).error).toBe("evaluator exited with 2: not the Hilltop Gardens task (2 adults, 3 children): no reference answer");
  });
});
