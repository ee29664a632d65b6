/**
 * Issue 20 item 4: an attempt without a verdict (no evaluator configured, or an evaluator that
 * cannot judge) is stored as "no_verdict" — passed null, the reason kept — never as "failed"
 * (before: "failed", counted as 0/N in the rates) or "error".
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { ReplayBundle } from "../../../bundle";
import type { AttemptContext, ExperimentSettings } from "./types";
import { concludeAttempt } from "./common";

const settings = (evaluator: string | null): ExperimentSettings => ({ upstream: "http://127.0.0.1:9/v1", toolUpstream: null, model: null, evaluator, reproductionJudge: null, command: null, seed: 1, attempts: 1, budget: { maxCalls: null, maxTokens: null }, timeoutMs: 20_000 });
const bundle = { id: "b1", task: { prompt: "the task" }, graph: { nodes: [], edges: [] } } as unknown as ReplayBundle;
const ctx = (evaluator: string | null): AttemptContext =>
  ({ case: { task: "the task", bundle, reference: null }, method: "rerun", attempt: 1, settings: settings(evaluator), seed: 1, previous: [], signal: new AbortController().signal }) as unknown as AttemptContext;
const produced = { bundle, final: "x", calls: 3, auxCalls: 0, tokens: { prompt: 1, completion: 1, total: 2 }, guidance: null, anchorNodeId: null, masMs: 1 };

describe("concludeAttempt: no verdict is not a failure", () => {
  test("no evaluator configured → no_verdict, passed null, the reason in judgeReason", async () => {
    const o = await concludeAttempt(ctx(null), produced);
    expect(o).toMatchObject({ status: "no_verdict", passed: null, error: null, calls: 3 });
    expect(o.judgeReason).toContain("no verdict: no evaluator configured");
  });

  test("an evaluator that cannot judge (exit 2) → no_verdict with its reason; exit 1 → failed", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-nv-"));
    const script = (code: number) => {
      const f = path.join(dir, `e${code}.mjs`);
      writeFileSync(f, `process.stderr.write("cannot judge this task\\n"); process.exit(${code});\n`);
      return `node ${f}`;
    };
    const nv = await concludeAttempt(ctx(script(2)), produced);
    expect(nv).toMatchObject({ status: "no_verdict", passed: null });
    expect(nv.judgeReason).toMatch(/no verdict: the evaluator could not judge/);
    const failed = await concludeAttempt(ctx(script(1)), produced);
    expect(failed).toMatchObject({ status: "failed", passed: false });
  }, 30_000);
});
