/**
 * Every method on failures recorded in the calibrated world (lib/testing/calibrated, helper D's
 * seeded scripted model served as a LOCAL OpenAI-compatible endpoint; no real model): the contract
 * between what a method injects and how that world's model classifies it (the classes its truth
 * table is calibrated on), and that every attempt ends passed/failed with a reproduction verdict
 * from scripts/calibrated-reproduction-judge.mjs and the evaluator scripts/calibrated-evaluator.mjs.
 * Outcomes are random draws, so only deterministic properties are asserted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseTask } from "../../../testing/calibrated/catalogue.mjs";
import { buildCalibratedMas, REPO_ROOT } from "../../../testing/calibrated/fast-mas";
import { recordCalibratedFailures, type RecordedFailure } from "../../../testing/calibrated/record";
import { classifyGuidance, classifyTaskExtra } from "../../../testing/calibrated/truth";
import { startCalibratedWorld, type CalibratedWorld } from "../../../testing/calibrated/world";
import { CONTROL_GUIDANCE } from "../../../experiments/prompts";
import { CORRECTION_METHODS, METHODS, METHOD_NAMES } from "./index";
import type { AttemptOutcome, ExperimentCaseInput, ExperimentSettings, MethodName } from "./types";

let recordWorld: CalibratedWorld;
let live: CalibratedWorld;
let dir: string;
let command: string[];
let failures: RecordedFailure[];
const results = new Map<string, AttemptOutcome>();

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-exp-methods-"));
  command = buildCalibratedMas(dir);
  recordWorld = await startCalibratedWorld({ seed: 13, session: "record" });
  live = await startCalibratedWorld({ seed: 13, session: "live" });
  failures = (await recordCalibratedFailures(recordWorld, { count: 2, command })).failures;
  const settings: ExperimentSettings = {
    upstream: live.upstream,
    toolUpstream: live.toolUpstream,
    model: live.model,
    evaluator: `node ${path.join(REPO_ROOT, "scripts/calibrated-evaluator.mjs")}`,
    reproductionJudge: { kind: "command", command: `node ${path.join(REPO_ROOT, "scripts/calibrated-reproduction-judge.mjs")}` },
    command,
    seed: 5,
    attempts: 1,
    budget: { maxCalls: null, maxTokens: null },
    timeoutMs: 60_000,
  };
  for (const f of failures) {
    const c: ExperimentCaseInput = { caseId: f.task.id, bundle: f.bundle, mas: "calibrated", benchmark: "calibrated", task: f.task.prompt, reference: f.reference, runner: null };
    for (const m of METHOD_NAMES) {
      results.set(`${f.task.id}|${m}`, await METHODS[m].run({ case: c, method: m, attempt: 1, settings, seed: 1000 + results.size, previous: [], signal: new AbortController().signal }));
    }
  }
}, 300_000);
afterAll(async () => {
  await recordWorld?.stop();
  await live?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (f: RecordedFailure, m: MethodName) => results.get(`${f.task.id}|${m}`)!;

describe("methods × calibrated world (local seeded scripted endpoint)", () => {
  test("2 failures (C1, C2); every attempt ends passed or failed, judged, with live calls counted", () => {
    expect(failures.map((f) => f.task.category)).toEqual(["C1", "C2"]);
    for (const f of failures) {
      for (const m of METHOD_NAMES) {
        const o = get(f, m);
        // The recorded failures carry a reference label but no proposed correction (correction.test.ts runs those arms).
        if (CORRECTION_METHODS.includes(m)) {
          expect([o.status, o.skipReason]).toEqual(["skipped", `case ${f.task.id} has no proposed correction (the final annotation at ${f.reference.nodeId} gives none)`]);
          continue;
        }
        expect([o.status, o.error], `${f.task.id} ${m}`).toEqual([o.passed ? "passed" : "failed", null]);
        expect(o.reproduced, `${f.task.id} ${m}: ${o.judgeReason}`).not.toBeNull();
        if (o.passed) expect(o.reproduced).toBe(false);
        expect(o.calls).toBeGreaterThan(0);
        expect(o.tokens.total).toBeGreaterThan(0);
        expect(o.auxCalls).toBe(m === "critic" ? 1 : 0);
      }
    }
  });

  test("what each method injects is the class the world's truth table calibrates for it", () => {
    for (const f of failures) {
      const { category, item } = f.task;
      const cls = (m: MethodName) => classifyGuidance(get(f, m).guidance ?? "", category, item.sku);
      const extra = (m: MethodName) => parseTask(get(f, m).bundle!.task.prompt)!.extra;
      expect(cls("suspicious-node")).toBe("specific");
      expect(cls("annotated-node")).toBe("specific");
      expect(cls("nudge")).toBe("nudge");
      expect(get(f, "nudge").guidance).toBe(CONTROL_GUIDANCE);
      expect(get(f, "node-resample").guidance).toBeNull();
      // The detector anchors on the world's reference node (D's measured hit rate: 100%).
      expect(get(f, "suspicious-node").anchorNodeId).toBe(f.reference.nodeId);
      expect(get(f, "node-resample").anchorNodeId).toBe(f.reference.nodeId);
      expect(get(f, "annotated-node").anchorNodeId).toBe(f.reference.nodeId);
      // Task level: the rerun adds nothing; reflection a generic extra; the critic's feedback rides in the task.
      expect(extra("rerun")).toBe("");
      expect(classifyTaskExtra(extra("self-reflection"), item.sku)).toBe("task-generic");
      expect(["task-generic", "task-specific"]).toContain(classifyTaskExtra(extra("critic"), item.sku));
      expect(extra("critic")).toContain("Critic feedback: ");
      // Node level counts only the live suffix: every record from the anchor's LLM boundary (B) on.
      const sn = get(f, "suspicious-node");
      const seqB = f.bundle.records.find((r) => r.nodeId === f.reference.boundaryNodeId)!.seq;
      expect(sn.bundle!.records.length - sn.calls).toBe(seqB);
      expect(sn.bundle!.records.slice(0, seqB)).toEqual(f.bundle.records.slice(0, seqB));
    }
  });
});
