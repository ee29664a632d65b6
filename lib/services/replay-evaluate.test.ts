import { describe, expect, test } from "vitest";
import { buildBundle } from "../bundle";
import { evaluateReplay } from "./replay-evaluate";

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
  });
});
