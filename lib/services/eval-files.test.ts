import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { buildBundle } from "../bundle";
import { writeEvalFile } from "./eval-files";
import { evaluateReplay } from "./replay-evaluate";

describe("evaluator files: one directory per process, one file per run", () => {
  test("each file holds its text under its own name in the same directory; remove() unlinks it once", () => {
    const a = writeEvalFile("bundle.json", '{"id":"a"}');
    const b = writeEvalFile("bundle.json", '{"id":"b"}');
    expect(a.path).not.toBe(b.path);
    expect(path.dirname(a.path)).toBe(path.dirname(b.path));
    expect(path.basename(path.dirname(a.path))).toMatch(/^symtrace-eval-/);
    expect(readFileSync(a.path, "utf8")).toBe('{"id":"a"}');
    expect(readFileSync(b.path, "utf8")).toBe('{"id":"b"}');
    a.remove();
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(b.path)).toBe(true);
    a.remove(); // idempotent, no throw
    b.remove();
    expect(existsSync(b.path)).toBe(false);
  });

  test("evaluateReplay: the evaluator reads the bundle from SYMTRACE_BUNDLE; the file is gone after the run", async () => {
    const bundle = buildBundle({ id: "ev-files", task: { prompt: "How much?" }, config: {}, nodes: [{ id: "final_result_0000", type: "final_result", content: { final: "€16.00" } }], edges: [] });
    const out = await evaluateReplay(bundle, `node -e 'const fs=require("fs");const b=JSON.parse(fs.readFileSync(process.env.SYMTRACE_BUNDLE,"utf8"));console.log(JSON.stringify({id:b.id,file:process.env.SYMTRACE_BUNDLE}))'`);
    expect(out?.passed).toBe(true);
    const d = out?.details as { id: string; file: string };
    expect(d.id).toBe("ev-files");
    expect(path.basename(d.file)).toMatch(/^\d+-bundle\.json$/);
    expect(existsSync(d.file)).toBe(false);
  });
});
