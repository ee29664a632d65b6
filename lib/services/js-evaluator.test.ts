import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildBundle } from "../bundle";
import { jsEvaluatorModule, runJsModuleInWorker } from "./js-evaluator";
import { warmEligible, warmWorkerCount } from "./js-evaluator-warm";
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

const envProbe = path.join(dir, "env.mjs");
writeFileSync(
  envProbe,
  [
    'import { isMainThread } from "node:worker_threads";',
    'import { pathToFileURL } from "node:url";',
    "const self = pathToFileURL(process.argv[1]).href === import.meta.url;",
    'console.log(JSON.stringify({ argv: process.argv.slice(1), env: { ...process.env }, self, main: isMainThread }));',
    "process.exitCode = Number(process.env.CODE ?? 0);",
  ].join("\n"),
);

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

  it("a worker started ahead runs the module exactly as a new worker does (argv, only the given environment, exit code, errors)", async () => {
    const env = { CODE: "4", ONLY: "this", SKIPPED: undefined };
    const fresh = async (f: string) => {
      process.env.SYMTRACE_EVALUATOR_WARM = "0";
      try {
        return await runJsModuleInWorker(f, ["p", "q"], env, 10_000);
      } finally {
        delete process.env.SYMTRACE_EVALUATOR_WARM;
      }
    };
    expect(warmEligible(envProbe)).toBe(true);
    expect(warmEligible(path.join(dir, "x.cjs"))).toBe(false);
    const want = await fresh(envProbe);
    expect(want.code).toBe(4);
    expect(JSON.parse(want.stdout)).toEqual({ argv: [envProbe, "p", "q"], env: { CODE: "4", ONLY: "this", SKIPPED: "undefined" }, self: true, main: false });
    await runJsModuleInWorker(envProbe, [], {}, 10_000); // the pool starts with a process's first run
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 300)); // the replacement of the last one starts after its exit
      expect(warmWorkerCount()).toBeGreaterThan(0);
      const got = await runJsModuleInWorker(envProbe, ["p", "q"], env, 10_000);
      expect(got).toEqual(want);
    }
    const e = await runJsModuleInWorker(throws, [], {}, 10_000);
    expect(e.code).toBe(1);
    expect(e.stderr).toContain("boom in the evaluator");
    const h = await runJsModuleInWorker(hang, [], {}, 300);
    expect(h.code).toBeNull();
  });
});
