/**
 * `mars` without running a search: the skip reason and bad frozen settings. The search itself on
 * the calibrated world: lib/testing/calibrated/mars-compare.test.ts and cli/experiment-calibrated.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { validateBundle } from "../../../bundle";
import { marsMethod, marsSkipReason, runMarsAttempt } from "./mars";
import type { ExperimentCaseInput, ExperimentSettings } from "./types";

const v = validateBundle(JSON.parse(readFileSync(path.join(import.meta.dirname, "../../../../demo/reference-orchestrator.bundle.json"), "utf8")));
if (!v.ok) throw new Error("fixture");
const c: ExperimentCaseInput = { caseId: "c1", bundle: v.bundle, mas: "x", benchmark: null, task: "t", reference: null, runner: null };
const s: ExperimentSettings = { upstream: "http://127.0.0.1:9/v1", toolUpstream: null, model: null, evaluator: null, reproductionJudge: null, command: null, seed: 1, attempts: 1, budget: { maxCalls: null, maxTokens: null }, timeoutMs: 1000 };
const ctx = (settings: ExperimentSettings) => ({ case: c, method: "mars" as const, attempt: 1, settings, seed: 3, previous: [], signal: new AbortController().signal });

describe("mars method", () => {
  test("skipped with the reason when the MAS cannot be restarted (rollouts are native replays)", async () => {
    expect(marsSkipReason(c, s)).toMatch(/mars rollouts are native partial replays .* case c1 has no registered runner and no MAS command/);
    expect(marsSkipReason(c, { ...s, command: ["node", "mas.js"] })).toBeNull();
    const o = await marsMethod.run(ctx(s));
    expect(o).toMatchObject({ status: "skipped", passed: null, calls: 0, auxCalls: 0 });
  });
  test("bad frozen mars settings: status error naming the field, nothing run", async () => {
    const r = await runMarsAttempt(ctx({ ...s, command: ["node", "mas.js"], mars: { iterations: 0 } as never }));
    expect(r.state).toBeNull();
    expect(r.outcome).toMatchObject({ status: "error", passed: false, calls: 0 });
    expect(r.outcome.error).toMatch(/\$\.settings\.mars\.iterations must be a positive integer/);
  });
});
