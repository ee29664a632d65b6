import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildBundle } from "../bundle";
import { jsEvaluatorModule, runJsModuleInWorker } from "./js-evaluator";
import { evaluateReplay } from "./replay-evaluate";

const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-jseval-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const evaluator = path.join(dir, "ev.mjs");
writeFileSync(
  evaluator,
  [
    'import { isMainThread } from "node:worker_threads";',
    "const final = JSON.parse(process.env.SYMTRACE_FINAL);",
    'console.log(JSON.stringify({ final, task: process.env.SYMTRACE_TASK, args: process.argv.slice(2), main: isMainThread }));',
    'console.error("note on stderr");',
    'process.exit(final === "right" ? 0 : final === "wrong" ? 1 : 3);',
  ].join("\n"),
);
const hang = path.join(dir, "hang.mjs");
writeFileSync(hang, "setInterval(() => {}, 1000);\n");
const throws = path.join(dir, "throws.mjs");
writeFileSync(throws, 'throw new Error("boom in the evaluator");\n');

const bundleWith = (final: unknown) =>
  buildBundle({ id: "jseval/1", task: { prompt: "the task" }, config: {}, nodes: [{ id: "f", type: "final_result", content: final }], edges: [], records: [] });

describe("JavaScript evaluators in a worker thread", () => {
  it("recognizes `node <module>` commands only", () => {
    expect(jsEvaluatorModule(["node", evaluator, "a"])).toEqual({ file: evaluator, args: ["a"] });
    expect(jsEvaluatorModule(["node", "--inspect", evaluator])).toBeNull();
    expect(jsEvaluatorModule(["python3", "ev.py"])).toBeNull();
    expect(jsEvaluatorModule(["node", path.join(dir, "missing.mjs")])).toBeNull();
    expect(jsEvaluatorModule(null)).toBeNull();
  });

  it("gives the exit code, stdout, stderr, environment and arguments of a process", async () => {
    const r = await runJsModuleInWorker(evaluator, ["x", "y"], { ...process.env, SYMTRACE_FINAL: '"wrong"', SYMTRACE_TASK: "t" }, 10_000);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ final: "wrong", task: "t", args: ["x", "y"], main: false });
    expect(r.stderr).toBe("note on stderr\n");
  });

  it("a module that does not end is stopped at the timeout (code null); an uncaught error is exit 1", async () => {
    const t0 = Date.now();
    const r = await runJsModuleInWorker(hang, [], {}, 300);
    expect(r.code).toBeNull();
    expect(Date.now() - t0).toBeLessThan(5_000);
    const e = await runJsModuleInWorker(throws, [], {}, 10_000);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain("boom in the evaluator");
  });

  it("evaluateReplay: the same outcome in a worker thread as in a process", async () => {
    const cmd = `node ${evaluator}`;
    for (const final of ["right", "wrong", "other"]) {
      const inWorker = await evaluateReplay(bundleWith(final), cmd, { thread: true });
      process.env.SYMTRACE_EVALUATOR_THREADS = "0";
      try {
        const inProcess = await evaluateReplay(bundleWith(final), cmd, { thread: true });
        expect(inWorker?.passed).toBe(inProcess?.passed);
        expect(inWorker?.passed).toBe(final === "right" ? true : final === "wrong" ? false : null);
        expect(inWorker?.details).toMatchObject(final === "other" ? { error: expect.stringContaining("evaluator exited with 3") } : { final, task: "the task", main: false });
        expect(inProcess?.details).toMatchObject(final === "other" ? { error: expect.stringContaining("evaluator exited with 3") } : { final, task: "the task", main: true });
      } finally {
        delete process.env.SYMTRACE_EVALUATOR_THREADS;
      }
    }
  });
});
