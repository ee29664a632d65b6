/**
 * The calibrated world (lib/testing/calibrated/, issue 13 item 8): suite, traps, the model's
 * calibration (draw frequencies against the truth table), reproducibility, recorded failures and
 * the detector's anchor on them, the evaluator and the reproduction judge.
 * Uses only local scripted endpoints (no model is called).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { resolveTarget } from "../../replay";
import { CONTROL_GUIDANCE, detectSymptoms, suspiciousNodeGuidance } from "../../symptoms";
import { CATEGORY_INFO } from "../../annotation/protocol";
import { annotatedNodeGuidance, criticTaskPrompt, REPAIR_SIGNALS, rerunTaskPrompt, selfReflectionTaskPrompt } from "../../experiments/prompts";
import { wilsonInterval } from "../../agreement";
import type { ChatRequest } from "../scripted-openai";
import { amountOf, failureAmount, itemOf, parseTask, referenceAmount } from "./catalogue.mjs";
import { buildCalibratedMas, REPO_ROOT } from "./fast-mas";
import { calibratedResponder, diagnosisText, type Decision } from "./policy";
import { recordCalibratedFailures, type RecordedFailure } from "./record";
import { attemptTruth, checkAttemptRates } from "./check";
import { toolAnswer } from "./tools";
import { classifyGuidance, classifyTaskExtra, DEFAULT_TRUTH, expectedAttemptRates, type InjectionClass } from "./truth";
import { generateSuite, startCalibratedWorld, type CalibratedWorld } from "./world";

const run = promisify(execFile);

describe("suite and catalogue", () => {
  test("48 tasks from a seed, deterministic, categories in turn, distinct items, answers ≠ failure answers", () => {
    const a = generateSuite(13);
    expect(a).toHaveLength(48);
    expect(generateSuite(13)).toEqual(a);
    expect(generateSuite(14).map((t) => t.prompt)).not.toEqual(a.map((t) => t.prompt));
    expect(a.map((t) => t.category).slice(0, 8)).toEqual(["C1", "C2", "C3", "C4", "C1", "C2", "C3", "C4"]);
    expect(new Set(a.map((t) => t.item.sku)).size).toBe(48);
    for (const t of a) {
      expect(t.item.category).toBe(t.category);
      expect(t.answer).not.toBe(t.failureAnswer);
      const p = parseTask(t.prompt)!;
      expect(p).toMatchObject({ index: t.index, n: t.item.n, qty: t.qty, extra: "" });
      expect(referenceAmount(p.item, p.qty)).toBe(t.answer);
    }
  });

  test("a task inside a longer text (self-reflection) is found, with the rest as extra", () => {
    const t = generateSuite(13)[2];
    const p = parseTask(`Your previous answer was wrong.\n\n${t.prompt}\n\nIdentify possible mistakes first.`)!;
    expect(p.base).toBe(t.prompt);
    expect(p.extra).toBe("Your previous answer was wrong.\n\n\n\nIdentify possible mistakes first.");
    expect(parseTask("What does entry to Hilltop Gardens cost?")).toBeNull();
  });

  test("C1 prices by quantity tier; C4 failures answer the flyer price; amounts parse from answers", () => {
    const c1 = itemOf(104); // 104 % 4 = 0 → C1
    expect(c1.category).toBe("C1");
    expect(referenceAmount(c1, 12)).toBe(Math.round(12 * c1.tiers![1].unit_price * 100) / 100);
    const c4 = itemOf(107);
    expect(failureAmount(c4, 3)).toBe(Math.round(3 * c4.flyer * 100) / 100);
    expect(amountOf("Final answer: 86.80")).toBe(86.8);
    expect(amountOf({ final: "Final answer: 12" })).toBe(12);
    expect(() => itemOf(1000)).toThrow(/100\.\.999/);
  });

  test("tools: the C3 sku is renumbered (404 NotFound), the new sku answers; calculator; bad arguments", () => {
    const c3 = itemOf(106);
    expect(toolAnswer("lookup", { sku: c3.sku })).toEqual([404, { status: "failed", error: { type: "NotFound", message: `no item with sku ${c3.sku}: it was renumbered to ${c3.renamed}` } }]);
    expect(toolAnswer("lookup", { sku: c3.renamed })[1]).toMatchObject({ status: "success", unit_price: c3.price });
    expect(toolAnswer("calculator", { expression: "3 * 2.50" })).toEqual([200, { status: "success", expression: "3 * 2.50", result: 7.5 }]);
    expect(toolAnswer("lookup", {})[0]).toBe(400);
    expect(toolAnswer("nope", {})[0]).toBe(404);
  });
});

describe("what the model understands", () => {
  const cases: Array<[string, InjectionClass]> = [
    ["", "none"],
    [CONTROL_GUIDANCE, "nudge"],
    [suspiciousNodeGuidance("llm_call_0001", ["C3"], ["$.content.error.message: no item"]), "specific"],
    [suspiciousNodeGuidance("llm_call_0001", ["C1", "C3"], ["x"]), "specific"],
    [suspiciousNodeGuidance("llm_call_0001", ["C2"], ["x"]), "nudge"],
    [`- Unresolved runtime condition (C3) at tool_result_0000: ${CATEGORY_INFO.C3.repair}`, "specific"],
    [CATEGORY_INFO.C3.repair.toLowerCase().replace(/\.$/, ""), "specific"],
    [CATEGORY_INFO.C1.repair, "nudge"],
    [diagnosisText(itemOf(106)), "specific"],
    ["Please try harder.", "nudge"],
  ];
  test.each(cases)("%j → %s (task of category C3)", (text, cls) => {
    expect(classifyGuidance(text, "C3", itemOf(106).sku)).toBe(cls);
  });

  test("the Annotated-Node template (lib/experiments annotatedNodeGuidance) counts as specific only for the task's category", () => {
    expect(classifyGuidance(annotatedNodeGuidance("tool_result_0000", "C3"), "C3", "K-106")).toBe("specific");
    expect(classifyGuidance(annotatedNodeGuidance("tool_result_0000", "C1"), "C3", "K-106")).toBe("nudge");
    expect(classifyGuidance(REPAIR_SIGNALS.C3, "C3", "K-106")).toBe("specific");
  });

  test("task-level templates (lib/experiments E.1): the rerun template is no information; a previous answer + reflection is generic; a critic diagnosis is specific", () => {
    const t = generateSuite(13)[2];
    const input = { task: t.prompt, taskId: t.id, benchmark: "calibrated" };
    const extra = (text: string) => classifyTaskExtra(parseTask(text)!.extra, t.item.sku);
    expect(extra(rerunTaskPrompt(input))).toBe("none");
    expect(extra(selfReflectionTaskPrompt(input, "Final answer: 10.00"))).toBe("task-generic");
    expect(extra(criticTaskPrompt(input, "Final answer: 10.00", diagnosisText(t.item)))).toBe("task-specific");
    expect(extra(criticTaskPrompt(input, "Final answer: 10.00", "Review: re-check every step."))).toBe("task-generic");
    expect(extra(t.prompt)).toBe("none");
  });
});

describe("recorded failures, calibration and the detector", () => {
  let dir: string;
  let world: CalibratedWorld;
  let failures: RecordedFailure[];
  let runs = 0;
  const N = 8;

  beforeAll(async () => {
    process.env.SYMTRACE_QUIET = "1";
    dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-calibrated-"));
    world = await startCalibratedWorld({ seed: 13, session: "record" });
    const r = await recordCalibratedFailures(world, { count: N, command: buildCalibratedMas(dir), outDir: path.join(dir, "cases") });
    failures = r.failures;
    runs = r.runs;
  }, 300_000);
  afterAll(async () => {
    await world?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("every recorded failure shows its trap; the reference label names node, category and boundary", () => {
    expect(failures).toHaveLength(N);
    expect(runs).toBeGreaterThanOrEqual(N);
    for (const f of failures) {
      expect(f.bundle.config.runner).toMatchObject({ name: "calibrated" });
      expect(f.bundle.outcome?.passed).toBe(false);
      const label = (f.bundle as unknown as { referenceLabels: Array<{ nodeId: string; extra: Record<string, unknown> }> }).referenceLabels[0];
      expect(label.nodeId).toBe(f.reference.nodeId);
      expect(label.extra).toMatchObject({ primaryCategory: f.task.category, boundaryNodeId: resolveTarget(f.bundle, f.reference.nodeId).boundaryNodeId });
      const expectedType = { C1: "agent_action", C2: "tool_call", C3: "tool_result", C4: "agent_action" }[f.task.category];
      expect(f.bundle.graph.nodes.find((n) => n.id === f.reference.nodeId)?.type).toBe(expectedType);
    }
  });

  test("lib/symptoms' detector anchors on the failing node (X = 100% exact node and boundary on the recorded failures)", () => {
    let exact = 0;
    let boundary = 0;
    for (const f of failures) {
      const d = detectSymptoms(f.bundle);
      if (d.anchorNode === f.reference.nodeId) exact++;
      if (d.anchor === f.reference.boundaryNodeId) boundary++;
      expect(d.nodes.find((n) => n.id === d.anchorNode)?.categories).toContain(f.task.category);
    }
    expect(exact / failures.length).toBeGreaterThanOrEqual(0.95);
    expect(boundary).toBe(failures.length);
  });

  test("evaluator fails and the judge reproduces every recorded failure; a reference answer passes and does not reproduce", async () => {
    const node = process.execPath;
    const evaluator = path.join(REPO_ROOT, "scripts", "calibrated-evaluator.mjs");
    const judge = path.join(REPO_ROOT, "scripts", "calibrated-reproduction-judge.mjs");
    const exit = (p: Promise<unknown>) => p.then(() => 0, (e: { code?: number }) => e.code ?? -1);
    for (const f of failures.slice(0, 4)) {
      const final = f.bundle.graph.nodes.find((n) => n.type === "final_result")!.content as { final: unknown };
      const env = { ...process.env, SYMTRACE_TASK: f.task.prompt, SYMTRACE_FINAL: JSON.stringify(final.final), SYMTRACE_BUNDLE: f.file! };
      expect(await exit(run(node, [evaluator], { env }))).toBe(1);
      expect(await exit(run(node, [judge], { env }))).toBe(0);
      const good = { ...env, SYMTRACE_FINAL: JSON.stringify(`Final answer: ${f.task.answer.toFixed(2)}`) };
      expect(await exit(run(node, [evaluator], { env: good }))).toBe(0);
      expect(await exit(run(node, [judge], { env: good }))).toBe(1);
    }
    expect(await exit(run(node, [evaluator], { env: { ...process.env, SYMTRACE_TASK: "another task", SYMTRACE_FINAL: "null" } }))).toBe(2);
  });

  /** The request the MAS sent at the repair boundary B of a recorded failure. */
  function boundaryRequest(f: RecordedFailure): ChatRequest {
    return f.bundle.records.find((r) => r.nodeId === f.reference.boundaryNodeId)!.request as ChatRequest;
  }

  test("calibration: recovery frequencies at B match the truth table for none / nudge / specific (2,000 draws each, 99.9% Wilson)", () => {
    const decisions: Decision[] = [];
    const respond = calibratedResponder({ seed: 7, session: "calibration", truth: DEFAULT_TRUTH, onDecision: (d) => decisions.push(d) });
    const f = failures.find((x) => x.task.category === "C3")!;
    const req = boundaryRequest(f);
    const variants: Array<[InjectionClass, ChatRequest]> = [
      ["none", req],
      ["nudge", { ...req, messages: [...req.messages, { role: "user", content: CONTROL_GUIDANCE }] }],
      ["specific", { ...req, messages: [...req.messages, { role: "user", content: suspiciousNodeGuidance(f.reference.boundaryNodeId, ["C3"], ["no item"]) }] }],
    ];
    for (const [cls, r] of variants) {
      const n = 2000;
      let hits = 0;
      for (let i = 0; i < n; i++) {
        const reply = respond(r);
        if (reply.toolCalls?.[0]?.name === "lookup") hits++; // recovery at B (C3): look the new sku up
      }
      const [lo, hi] = wilsonInterval(hits, n, 3.290527)!;
      expect(DEFAULT_TRUTH.recover[cls]).toBeGreaterThanOrEqual(lo);
      expect(DEFAULT_TRUTH.recover[cls]).toBeLessThanOrEqual(hi);
    }
    expect(decisions.filter((d) => d.position === "B")).toHaveLength(6000);
  });

  test("reproducible: the same seed and session give the same draws for the same request sequence; another session differs", () => {
    const req = boundaryRequest(failures[0]);
    const seq = (session: string) => {
      const ds: number[] = [];
      const respond = calibratedResponder({ seed: 13, session, truth: DEFAULT_TRUTH, onDecision: (d) => ds.push(d.u) });
      for (let i = 0; i < 20; i++) respond(req);
      return ds;
    };
    expect(seq("live")).toEqual(seq("live"));
    expect(seq("live")).not.toEqual(seq("record"));
    expect(new Set(seq("live")).size).toBe(20);
  });

  test("with an attempt seed (the MAS's `user` field), the draw does not depend on arrival order", () => {
    const req = boundaryRequest(failures[0]);
    const draws = (users: string[]) => {
      const byUser = new Map<string, number>();
      const respond = calibratedResponder({ seed: 13, session: "live", truth: DEFAULT_TRUTH, onDecision: (d) => byUser.set(String(byUser.size), d.u) });
      const out: Record<string, number> = {};
      for (const u of users) {
        respond({ ...req, user: `symtrace-attempt-${u}` });
        out[u] = byUser.get(String(byUser.size - 1))!;
      }
      return out;
    };
    const a = draws(["1", "2", "3"]);
    expect(draws(["3", "1", "2"])).toEqual(a);
    expect(new Set(Object.values(a)).size).toBe(3);
  });

  test("check: an attempt's truth follows from its anchor (before / at / after B) and its injected text", () => {
    const f = failures.find((x) => x.task.category === "C3")!;
    const c = { caseKey: "c", bundle: f.bundle, boundaryNodeId: f.reference.boundaryNodeId };
    const base = { caseKey: "c", attempt: 1, status: "passed", passed: true, reproduced: false, taskText: null };
    const sn = suspiciousNodeGuidance(f.reference.boundaryNodeId, ["C3"], ["no item"]);
    const last = f.bundle.order.filter((id) => f.bundle.records.some((r) => r.nodeId === id && r.boundary === "llm")).pop()!;
    expect(attemptTruth({ ...base, method: "suspicious-node", anchorNodeId: f.reference.nodeId, guidance: sn }, c)).toEqual({ p: 0.85, cls: "specific" });
    expect(attemptTruth({ ...base, method: "nudge", anchorNodeId: f.reference.nodeId, guidance: CONTROL_GUIDANCE }, c)).toEqual({ p: 0.4, cls: "nudge" });
    expect(attemptTruth({ ...base, method: "node-resample", anchorNodeId: f.reference.nodeId, guidance: "" }, c)).toEqual({ p: 0.1, cls: "none" });
    expect(attemptTruth({ ...base, method: "random-node", anchorNodeId: "task_0000", guidance: CONTROL_GUIDANCE }, c)).toEqual({ p: 0.1, cls: "nudge" });
    expect(attemptTruth({ ...base, method: "last-node", anchorNodeId: last, guidance: CONTROL_GUIDANCE }, c)).toEqual({ p: 0.05, cls: "nudge" });
    expect(attemptTruth({ ...base, method: "critic", anchorNodeId: null, guidance: null, taskText: `${f.task.prompt}\n\n${diagnosisText(f.task.item)}` }, c)).toEqual({ p: 0.75, cls: "task-specific" });
    expect(attemptTruth({ ...base, method: "self-reflection", anchorNodeId: null, guidance: null, taskText: `${f.task.prompt}\nIdentify possible mistakes.` }, c)).toEqual({ p: 0.35, cls: "task-generic" });
    const rows = checkAttemptRates(
      [
        { ...base, method: "rerun", anchorNodeId: null, guidance: null },
        { ...base, method: "rerun", anchorNodeId: null, guidance: null, status: "failed", passed: false, reproduced: true },
        { ...base, method: "rerun", anchorNodeId: null, guidance: null, status: "skipped", passed: null, reproduced: null },
      ],
      [c],
    );
    expect(rows).toEqual([expect.objectContaining({ method: "rerun", n: 2, passed: 1, measured: 0.5, expected: 0.1, judged: 2, reproduced: 1, expectedRep: 0.9 })]);
    expect(rows[0].ok).toBe(rows[0].lo <= 0.1);
  });

  test("per-attempt truth of each method follows from the table", () => {
    const e = expectedAttemptRates();
    expect(e).toMatchObject({ rerun: 0.1, "node-resample": 0.1, nudge: 0.4, "suspicious-node": 0.85, "annotated-node": 0.85, "last-node": 0.05, freshFail: 0.9 });
    expect(e.critic).toBeCloseTo(0.59, 10);
    expect(e["self-reflection+call"]).toBeCloseTo(0.47, 10);
  });
});
