import { readFileSync } from "node:fs";
import path from "node:path";
import { parquetReadObjects } from "hyparquet";
import { describe, expect, test } from "vitest";
import { hashContent, parseJsonText, type ReplayBundle } from "../../bundle";
import {
  aedRowsToParquet,
  branchAction,
  buildAedRecord,
  chatRowsToParquet,
  diagnosisQuotes,
  diagnosisView,
  evidenceGrade,
  isViewItem,
  leakedPrivileged,
  preferenceView,
  privilegedData,
  recoveryView,
  renderTrace,
  resolveQuotes,
  splitOf,
  studentTrace,
  validateAedRecord,
  type AedRecord,
  type DiagnosisInput,
  type ReplayBranch,
} from "./index";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../../shared");
const gold = (c: string) => parseJsonText(readFileSync(path.join(SHARED, `fixtures/bundles/gold-${c}.bundle.json`), "utf8")) as ReplayBundle;
const goldFinals = (parseJsonText(readFileSync(path.join(SHARED, "fixtures/bundles/gold-annotations.json"), "utf8")) as { cases: Array<{ caseId: string; final: Omit<DiagnosisInput, "kind" | "correction"> }> }).cases;
const finalOf = (b: ReplayBundle, extra: Partial<DiagnosisInput> = {}): DiagnosisInput => ({ ...goldFinals.find((c) => c.caseId === b.id)!.final, kind: "final", correction: null, ...extra });
const HASH = "sha256:" + "a".repeat(64);
/** gold-c1's final_result content ({action, url, reason}) as the assistant's reply. */
const FINAL_TEXT = "action: browse\nurl: https://w.potashmarkets.com/\nreason: Find Potash Markets locations and addresses near Lincoln Park.";

describe("evidence grade (seeds/004 ladder)", () => {
  const T = (...p: Array<boolean | null>) => p.map((passed) => ({ passed }));
  test.each([
    ["citations do not resolve", { grounded: false, treatment: T(true, true), control: T(false, false) }, "ungrounded", "executed"],
    ["grounded, never replayed", { grounded: true, treatment: [], control: [] }, "E0", "none"],
    ["treatment ran without verdicts", { grounded: true, treatment: T(null, null), control: [] }, "E0", "no_verdict"],
    ["named checkpoint, nothing executed", { grounded: true, treatment: [], control: [], checkpointNamed: true }, "no_recovery", "checkpoint_named"],
    ["treatment never passes", { grounded: true, treatment: T(false, false, null), control: T(false) }, "no_recovery", "executed"],
    ["mixed treatment", { grounded: true, treatment: T(true, false), control: T(false, false) }, "partial_recovery", "executed"],
    ["recovery, control untested", { grounded: true, treatment: T(true), control: [] }, "E1", "executed"],
    ["recovery, control also passes", { grounded: true, treatment: T(true, true), control: T(true, false) }, "E1", "executed"],
    ["recovery, one trial per arm", { grounded: true, treatment: T(true), control: T(false) }, "E1", "executed"],
    ["recovery, a control without verdict", { grounded: true, treatment: T(true, true), control: T(false, null) }, "E1", "executed"],
    ["E2: 2 per arm, all T pass, all C fail", { grounded: true, treatment: T(true, true), control: T(false, false) }, "E2", "executed"],
    ["E2 blocked: short of the planned trials", { grounded: true, treatment: T(true, true), control: T(false, false), planned: { control: 3 } }, "E1", "executed"],
  ] as const)("%s -> %s", (_name, input, grade, status) => {
    const g = evidenceGrade({ ...input, treatment: [...input.treatment], control: [...input.control] });
    expect(g.grade).toBe(grade);
    expect(g.replayStatus).toBe(status);
  });
  test("p̂ per arm over trials with a verdict, Δ̂ only when both are known", () => {
    const g = evidenceGrade({ grounded: true, treatment: T(true, true, false, null), control: T(false, true, false) });
    expect(g.treatment).toEqual({ trials: 4, n: 3, s: 2, noVerdict: 1, pHat: 2 / 3 });
    expect(g.control.pHat).toBeCloseTo(1 / 3, 12);
    expect(g.delta).toBeCloseTo(1 / 3, 12);
    expect(evidenceGrade({ grounded: true, treatment: T(true), control: [] }).delta).toBeNull();
  });
});

describe("student trace", () => {
  test("system prompts from config.systemPrompts (Who&When keeps them there) after the recorded ones; the reference stays out", () => {
    const b = structuredClone(gold("c4"));
    (b.config as Record<string, unknown>).systemPrompts = { Orchestrator: "You coordinate the team.", WebSurfer: "You browse." };
    const t = studentTrace(b);
    expect(t.systemPrompts).toEqual([
      { agent: "Order Analyst", text: "You are the crewai team solving web tasks." },
      { agent: "Orchestrator", text: "You coordinate the team." },
      { agent: "WebSurfer", text: "You browse." },
    ]);
    expect(t.steps.map((s) => s.nodeId)).toEqual(["task_0000", "llm_call_0000", "agent_action_0000", "final_result"]);
    expect(JSON.stringify(t)).not.toContain("Ida Workout Parachute Pant");
  });
});

describe("quotes at or before the blamed node (gold bundles)", () => {
  test("gold-c1: the evidence quote in tool_result_0001 (step 8) resolves for the blamed final_result (step 11)", () => {
    const b = gold("c1");
    const r = resolveQuotes(studentTrace(b), "final_result", diagnosisQuotes(finalOf(b)));
    expect(r).toEqual([expect.objectContaining({ source: "evidence", resolved: true, at: { nodeId: "tool_result_0001", stepIndex: 8 }, failure: null })]);
  });
  test("gold-c3: evidence from tool_result_0001 lies after the blamed tool_result_0000 and is refused with both positions", () => {
    const b = gold("c3");
    const r = resolveQuotes(studentTrace(b), "tool_result_0000", diagnosisQuotes(finalOf(b)));
    expect(r.map((q) => q.resolved)).toEqual([true, false]);
    expect(r[1]).toMatchObject({ failure: "after-blamed-node", message: 'evidence[1]: node "tool_result_0001" (step 8) comes after the blamed node "tool_result_0000" (step 4)' });
  });
  test("rationale quotes: double-quoted spans of ≥ 3 characters, found at or before the node, or in the task", () => {
    const b = gold("c1");
    const q = diagnosisQuotes({ rationale: 'It found “Potash Markets - Clark Street” and "ready-to-eat salad" but said "a"; it asked "nothing like this".', evidence: [] });
    expect(q.map((x) => x.text)).toEqual(["Potash Markets - Clark Street", "ready-to-eat salad", "nothing like this"]);
    const r = resolveQuotes(studentTrace(b), "tool_result_0001", q);
    expect(r.map((x) => [x.resolved, x.at, x.failure])).toEqual([
      [true, { nodeId: "tool_result_0001", stepIndex: 8 }, null],
      [true, "task", null],
      [false, null, "not-found"],
    ]);
    const early = resolveQuotes(studentTrace(b), "tool_call_0000", q.slice(0, 1));
    expect(early[0]).toMatchObject({ resolved: false, failure: "after-blamed-node" });
    expect(early[0]!.message).toMatch(/first in "tool_result_0001" \(step 8\)/);
  });
});

describe("AED record (symtrace.aed/v1)", () => {
  test("gold-c1 final: source, student trace, diagnosis, review, grade E0, split; valid against the JSON Schema", () => {
    const b = gold("c1");
    const r = buildAedRecord({ bundle: b, bundleHash: HASH, dataset: "bundle" }, finalOf(b, { correction: "Answer: Potash Markets - Clark Street", relation: { pattern: "unanimous" } }), { initialCount: 3 });
    if (!r.ok) throw new Error(r.reject.reasons.join("; "));
    const rec = r.record;
    expect(validateAedRecord(rec)).toEqual([]);
    expect(rec.id).toBe("ag2/assistantbench_dev_9fce12b25f697d6/attempt_000#final");
    expect(rec.source).toEqual({
      bundleId: b.id,
      bundleHash: HASH,
      taskId: "assistantbench_dev_9fce12b25f697d6",
      benchmark: "assistantbench",
      dataset: "bundle",
      mas: "ag2",
      masVersion: "0.13.3",
      model: "deepseek-v4-flash",
      seed: null,
      temperature: 0,
      verdict: "failed",
    });
    expect(rec.trace.steps).toHaveLength(12);
    expect(rec.trace.systemPrompts).toEqual([{ agent: "Assistant", text: "You are the ag2 team solving web tasks." }]);
    expect(rec.diagnosis.step).toEqual({ nodeId: "final_result", index: 11, type: "final_result" });
    expect(rec.diagnosis.labels).toEqual({ labelSet: "symtrace-c1c4@1", categories: ["C1"], primary: "C1" });
    expect(rec.diagnosis.quotes).toEqual([{ source: "evidence", index: 0, nodeId: "tool_result_0001", stepIndex: 8, text: "Potash Markets - Clark Street" }]);
    expect(rec.review).toEqual({ kind: "final", adjudicated: true, initialCount: 3, pattern: "unanimous", agreesWithFinal: null });
    expect(rec.evidenceGrade).toBe("E0");
    expect(rec.replay.status).toBe("none");
    expect(rec.split).toBe(splitOf("assistantbench_dev_9fce12b25f697d6"));
    // privileged data stays out of the row: the reference object and the evaluator are not in it
    const text = JSON.stringify(rec);
    expect(text).not.toContain('"expected"');
    expect(text).not.toContain('"evaluator"');
    expect(privilegedData(b).reference).toEqual({ expected: ["Potash Markets - Clark Street"] });
  });

  test("gold-c3 final is rejected (evidence after the blamed node); a case that passed is rejected", () => {
    const b = gold("c3");
    const r = buildAedRecord({ bundle: b, bundleHash: HASH, dataset: "bundle" }, finalOf(b));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reject).toMatchObject({ id: `${b.id}#final`, taskId: "webarena_verified_hard_320", nodeId: "tool_result_0000", reasons: [expect.stringMatching(/after the blamed node/)] });
    const passed = { ...gold("c4"), outcome: { passed: true, evaluator: "x" } };
    const p = buildAedRecord({ bundle: passed, bundleHash: HASH, dataset: "bundle" }, finalOf(gold("c4")));
    expect(p.ok ? null : p.reject.reasons).toEqual([expect.stringMatching(/did not fail/)]);
  });

  test("initial rows: id by ordinal, agreement with the final; no quotes -> ungrounded; trials -> grade", () => {
    const b = gold("c2");
    const fin = finalOf(b);
    const same = buildAedRecord({ bundle: b, bundleHash: HASH, dataset: "bundle" }, { ...fin, kind: "initial", ordinal: 2 }, { final: fin, initialCount: 3 });
    const bare = buildAedRecord({ bundle: b, bundleHash: HASH, dataset: "bundle" }, { ...fin, kind: "initial", ordinal: 3, nodeId: "tool_call_0002", nodeType: "tool_call", evidence: [] }, {
      final: fin,
      replay: { source: "replay-runs", protocol: "guidance", treatment: [{ id: "r1", passed: true }], control: [] },
    });
    if (!same.ok || !bare.ok) throw new Error("expected rows");
    expect(same.record.id).toBe(`${b.id}#initial-2`);
    expect(same.record.review).toMatchObject({ kind: "initial", adjudicated: false, agreesWithFinal: true });
    expect(bare.record.review.agreesWithFinal).toBe(false);
    expect(bare.record.evidenceGrade).toBe("ungrounded");
    expect(bare.record.replay).toMatchObject({ status: "executed", source: "replay-runs", protocol: "guidance", treatment: { n: 1, s: 1, runs: [{ id: "r1", passed: true }] }, control: { trials: 0, pHat: null } });
    expect(validateAedRecord(same.record)).toEqual([]);
    expect(validateAedRecord(bare.record)).toEqual([]);
  });

  test("the JSON Schema refuses a drifted row with JSON paths", () => {
    const b = gold("c1");
    const r = buildAedRecord({ bundle: b, bundleHash: HASH, dataset: "bundle" }, finalOf(b));
    if (!r.ok) throw new Error("expected a row");
    const bad = structuredClone(r.record) as AedRecord & { extra?: number };
    (bad as { evidenceGrade: string }).evidenceGrade = "E3";
    bad.extra = 1;
    bad.diagnosis.step.index = -1;
    (bad.source as { bundleHash: string }).bundleHash = "md5:00";
    const errs = validateAedRecord(bad).map((e) => e.path);
    expect(errs).toEqual(expect.arrayContaining(["$", "$.evidenceGrade", "$.diagnosis.step.index", "$.source.bundleHash"]));
  });
});

describe("split by source task", () => {
  test("deterministic, seeded, about 80/10/10, and a task's rows never cross splits", () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `task-${i}`);
    const a = keys.map((k) => splitOf(k, { seed: 7 }));
    expect(keys.map((k) => splitOf(k, { seed: 7 }))).toEqual(a);
    const counts = { train: 0, validation: 0, test: 0 };
    for (const s of a) counts[s]++;
    expect(counts.train / 3000).toBeGreaterThan(0.77);
    expect(counts.train / 3000).toBeLessThan(0.83);
    expect(counts.validation / 3000).toBeGreaterThan(0.08);
    expect(counts.test / 3000).toBeGreaterThan(0.08);
    const other = keys.map((k) => splitOf(k, { seed: 8 }));
    expect(other.filter((s, i) => s !== a[i]).length).toBeGreaterThan(500);
    expect(splitOf("x", { train: 1, validation: 0 })).toBe("train");
    expect(splitOf("x", { train: 0, validation: 0 })).toBe("test");
    expect(() => splitOf("x", { train: 0.9, validation: 0.2 })).toThrow(/sum to at most 1/);
  });
});

/** gold-c1 with sentinel privileged data, and replay branches from final_result. */
function withSentinels() {
  const b = structuredClone(gold("c1"));
  b.task.reference = { expected: ["SENTINEL-REFERENCE-ANSWER-7f3a"] };
  b.outcome = { passed: false, evaluator: "assistantbench", details: { log: "SENTINEL-EVALUATOR-OUTPUT-91c2", score: 0 } };
  return b;
}
function branch(b: ReplayBundle, id: string, answer: string, passed: boolean | null): ReplayBranch {
  const prefix = b.order.slice(0, b.order.indexOf("final_result"));
  const content = { final: answer };
  const replay = {
    order: [...prefix, "final_result_0001"],
    graph: { nodes: [...b.graph.nodes.filter((n) => prefix.includes(n.id)), { id: "final_result_0001", type: "final_result", agent: "Assistant", content, contentHash: hashContent(content) }] },
  };
  return { id, boundaryNodeId: "final_result", passed, action: branchAction(new Set(b.graph.nodes.map((n) => n.id)), replay, null) };
}

describe("training views", () => {
  const b = withSentinels();
  const r = buildAedRecord({ bundle: b, bundleHash: HASH, dataset: "bundle" }, finalOf(b, { correction: "Answer: Potash Markets - Clark Street" }));
  if (!r.ok) throw new Error("expected a row");
  const rec = r.record;
  const priv = privilegedData(b);
  const branches = [branch(b, "run-pass", "Potash Markets - Clark Street", true), branch(b, "run-fail", "I will browse the page again.", false), branch(b, "run-unknown", "?", null)];

  test("sft-diagnosis: system + trace → the diagnosis JSON (attribution first); no reference or evaluator text in any message", () => {
    const v = diagnosisView(rec, priv);
    if (!isViewItem(v)) throw new Error(v.reason);
    expect(v.row.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(v.row.messages[1]!.content).toMatch(/^Task: Which supermarkets within 2 blocks of Lincoln Park/);
    expect(v.row.messages[1]!.content).toContain("[11] final_result · final_result · Assistant");
    const answer = JSON.parse(v.row.messages[2]!.content);
    expect(Object.keys(answer).slice(0, 3)).toEqual(["step", "stepIndex", "agent"]);
    expect(answer).toMatchObject({ step: "final_result", stepIndex: 11, agent: "Assistant", categories: ["C1"], primary: "C1", correction: "Answer: Potash Markets - Clark Street", evidence: [{ step: "tool_result_0001", quote: "Potash Markets - Clark Street" }] });
    const all = JSON.stringify(v.row);
    expect(all).not.toContain("SENTINEL-REFERENCE");
    expect(all).not.toContain("SENTINEL-EVALUATOR");
    expect(v.meta).toMatchObject({ aedId: rec.id, split: rec.split, taskId: "assistantbench_dev_9fce12b25f697d6" });
  });

  test("the leak audit catches privileged text in an input (but not text the model saw in the trace)", () => {
    expect(leakedPrivileged("the answer is SENTINEL-REFERENCE-ANSWER-7f3a", rec.trace, priv)).toEqual(["SENTINEL-REFERENCE-ANSWER-7f3a"]);
    expect(leakedPrivileged("log: SENTINEL-EVALUATOR-OUTPUT-91c2", rec.trace, priv)).toEqual(["SENTINEL-EVALUATOR-OUTPUT-91c2"]);
    // the real gold reference also appears in a tool result the model saw: not a leak
    expect(leakedPrivileged("Potash Markets - Clark Street", rec.trace, privilegedData(gold("c1")))).toEqual([]);
    // a privileged value that is part of the task prompt is allowed (the model saw the prompt)
    expect(isViewItem(diagnosisView(rec, { reference: { note: "Which supermarkets within 2 blocks" } }))).toBe(true);
  });

  test("a dataset's reference label names a node of the trace: its node id (rendered in every step header) is not a leak", () => {
    // Found by cli/release-e2e.test.ts: every calibrated case (reference label on agent_action_0001, …) was skipped
    // from the diagnosis view as "privileged text in the input: \"agent_action_0001\"".
    const labels = { referenceLabels: [{ source: "who_and_when", annotator: "dataset", nodeId: "tool_result_0001", agent: "Assistant", reason: "SENTINEL-LABEL-REASON-55d1", failureModes: [] }] };
    expect(leakedPrivileged(renderTrace(rec.trace), rec.trace, labels)).toEqual([]);
    expect(isViewItem(diagnosisView(rec, labels))).toBe(true);
    // the label's own text is still caught
    expect(leakedPrivileged(`${renderTrace(rec.trace)}\nhint: SENTINEL-LABEL-REASON-55d1`, rec.trace, labels)).toEqual(["SENTINEL-LABEL-REASON-55d1"]);
  });

  test("sft-recovery: prefix before final_result → the passing branch's answer; unknown and failing branches give no row", () => {
    const rows = recoveryView(rec, branches, priv);
    expect(rows).toHaveLength(1);
    const v = rows[0]!;
    if (!isViewItem(v)) throw new Error(v.reason);
    expect(v.row.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(v.row.messages[0]!.content).toMatch(/^You are Assistant, one agent/);
    expect(v.row.messages[1]!.content).toContain("[10] agent_action_0002");
    expect(v.row.messages[1]!.content).not.toContain("[11] final_result");
    expect(v.row.messages[2]!.content).toBe("Potash Markets - Clark Street");
    expect(v.meta).toMatchObject({ id: `${rec.id}/recovery/run-pass`, branches: { chosen: "run-pass" } });
    expect(JSON.stringify(v.row.messages.slice(0, 2))).not.toMatch(/SENTINEL/);
  });

  test("preference: same prompt; chosen = passing branch, rejected = failing branch, else the source's own action", () => {
    const rows = preferenceView(rec, branches, priv);
    const v = rows[0]!;
    if (!isViewItem(v)) throw new Error(v.reason);
    expect(v.row.chosen).toEqual([{ role: "assistant", content: "Potash Markets - Clark Street" }]);
    expect(v.row.rejected).toEqual([{ role: "assistant", content: "I will browse the page again." }]);
    expect(v.meta.branches).toEqual({ chosen: "run-pass", rejected: "run-fail", rejectedFrom: "replay" });
    const fallback = preferenceView(rec, branches.slice(0, 1), priv)[0]!;
    if (!isViewItem(fallback)) throw new Error(fallback.reason);
    expect(fallback.meta.branches).toMatchObject({ rejectedFrom: "source", rejected: b.id });
    expect(fallback.row.rejected[0]!.content).toBe(FINAL_TEXT);
  });

  test("an unadjudicated or ungrounded diagnosis trains no view", () => {
    const initial = { ...rec, review: { ...rec.review, kind: "initial" as const, adjudicated: false } };
    expect(diagnosisView(initial, priv)).toMatchObject({ reason: expect.stringMatching(/not adjudicated/) });
    expect(recoveryView({ ...rec, evidenceGrade: "ungrounded" }, branches, priv)).toEqual([{ aedId: rec.id, view: "sft-recovery", reason: "ungrounded diagnosis" }]);
  });

  test("no branch, or no passing branch: sft-recovery and preference say why the row gives nothing (issue 22 item 7)", () => {
    const node = rec.diagnosis.step.nodeId;
    for (const [view, fn] of [["sft-recovery", recoveryView], ["preference", preferenceView]] as const) {
      expect(fn(rec, [], priv)).toEqual([{ aedId: rec.id, view, reason: `no replay branch from the diagnosed node ${node}: run a replay or an experiment anchored there (a row needs a branch that passed)` }]);
      expect(fn(rec, branches.slice(1), priv)).toEqual([{ aedId: rec.id, view, reason: `no passing replay branch from ${node}: 2 branch(es), 1 failed, 1 without a verdict (a row needs a branch that passed)` }]);
      const initial = { ...rec, review: { ...rec.review, kind: "initial" as const, adjudicated: false } };
      expect(fn(initial, [], priv)).toEqual([{ aedId: rec.id, view, reason: "not adjudicated" }]);
    }
    const noAction = [{ ...branches[0]!, action: null }];
    expect(preferenceView(rec, noAction, priv)).toEqual([{ aedId: rec.id, view: "preference", reason: "passing branch run-pass has no action after its boundary" }]);
  });

  test("Parquet: chat views and AED rows read back (hyparquet) equal to the JSONL values", async () => {
    const v = diagnosisView(rec, priv);
    const p = preferenceView(rec, branches, priv)[0]!;
    if (!isViewItem(v) || !isViewItem(p)) throw new Error("expected rows");
    const sft = await parquetReadObjects({ file: chatRowsToParquet(["messages"], [v.row as unknown as Record<string, typeof v.row.messages>], "sft-diagnosis") });
    expect(sft).toEqual([{ messages: v.row.messages }]);
    const pref = await parquetReadObjects({ file: chatRowsToParquet(["prompt", "chosen", "rejected"], [p.row as unknown as Record<string, typeof p.row.prompt>], "preference") });
    expect(pref).toEqual([p.row]);
    const aed = await parquetReadObjects({ file: aedRowsToParquet([rec]) });
    expect(aed).toHaveLength(1);
    const back = Object.fromEntries(Object.entries(aed[0]!).map(([k, val]) => [k, typeof val === "string" && /^[[{]/.test(val) ? JSON.parse(val) : val]));
    expect(back).toEqual(JSON.parse(JSON.stringify(rec)));
  });
});

describe("replay evidence from experiment attempts (matched control)", () => {
  const at = (method: string, attempt: number, status: string, o: { caseId?: string; anchor?: string; exp?: string } = {}) => ({
    caseId: o.caseId ?? "c1",
    ...(o.exp ? { experimentId: o.exp } : {}),
    method,
    attempt,
    status,
    passed: status === "passed" ? true : status === "failed" || status === "error" ? false : null,
    anchorNodeId: o.anchor ?? "final_result",
  });
  const grade = async (attempts: ReturnType<typeof at>[]) => {
    const { replayEvidenceFromAttempts } = await import("./experiments");
    return evidenceGrade({ grounded: true, ...replayEvidenceFromAttempts(attempts, "c1", { nodeId: "final_result" }) });
  };

  test("correction arm (substitution) vs its control correction-control at t*: 2/2 vs 0/2 is E2; an error attempt is no verdict; other anchors, cases and pairs do not count", async () => {
    const { replayEvidenceFromAttempts } = await import("./experiments");
    const attempts = [
      at("correction", 2, "passed"),
      at("correction", 1, "passed"),
      at("correction-control", 1, "failed"),
      at("correction-control", 2, "failed"),
      at("correction-control", 3, "passed", { anchor: "tool_result_0001" }),
      at("node-resample", 1, "passed"), // another pair's control: not matched to the substitution
      at("annotated-node", 1, "failed"),
      at("correction", 1, "failed", { caseId: "other" }),
    ];
    const ev = replayEvidenceFromAttempts(attempts, "c1", { nodeId: "final_result" });
    expect(ev).toEqual({
      source: "experiment",
      protocol: "substitution",
      treatment: [{ id: "correction#1", passed: true }, { id: "correction#2", passed: true }],
      control: [{ id: "correction-control#1", passed: false }, { id: "correction-control#2", passed: false }],
      planned: { treatment: 2, control: 2 },
    });
    expect(evidenceGrade({ grounded: true, ...ev }).grade).toBe("E2");
    const withError = replayEvidenceFromAttempts([...attempts.slice(0, 3), at("correction-control", 2, "error")], "c1", { nodeId: "final_result" });
    expect(withError.control.map((t) => t.passed)).toEqual([false, null]);
    expect(evidenceGrade({ grounded: true, ...withError }).grade).toBe("E1");
    const running = replayEvidenceFromAttempts([...attempts.slice(0, 4), at("correction-control", 3, "running")], "c1", { nodeId: "final_result" });
    expect(running.planned).toEqual({ treatment: 2, control: 3 });
    expect(evidenceGrade({ grounded: true, ...running }).grade).toBe("E1");
    const guidanceOnly = replayEvidenceFromAttempts([at("annotated-node", 1, "passed"), at("annotated-node", 2, "skipped")], "c1");
    expect(guidanceOnly).toMatchObject({ protocol: "guidance", treatment: [{ id: "annotated-node#1", passed: true }], control: [] });
    expect(evidenceGrade({ grounded: true, ...guidanceOnly }).grade).toBe("E1");
  });

  test("each grade from hand-built correction / correction-control attempt sets", async () => {
    const T = (a: number, s: string) => at("correction", a, s);
    const C = (a: number, s: string) => at("correction-control", a, s);
    const cases: Array<[string, ReturnType<typeof at>[], string]> = [
      ["no attempts", [], "E0"],
      ["both arms skipped (no proposed correction)", [T(1, "skipped"), C(1, "skipped")], "E0"],
      ["a lone control", [C(1, "failed"), C(2, "failed")], "E0"],
      ["treatment ran without a verdict", [T(1, "error"), T(2, "error"), C(1, "failed"), C(2, "failed")], "E0"],
      ["treatment never passes", [T(1, "failed"), T(2, "failed"), C(1, "failed"), C(2, "failed")], "no_recovery"],
      ["treatment 1/2", [T(1, "passed"), T(2, "failed"), C(1, "failed"), C(2, "failed")], "partial_recovery"],
      ["recovery, control untested", [T(1, "passed"), T(2, "passed")], "E1"],
      ["recovery, control also passes once", [T(1, "passed"), T(2, "passed"), C(1, "failed"), C(2, "passed")], "E1"],
      ["recovery, only 1 trial per arm", [T(1, "passed"), C(1, "failed")], "E1"],
      ["recovery, a control still queued", [T(1, "passed"), T(2, "passed"), C(1, "failed"), C(2, "failed"), C(3, "queued")], "E1"],
      ["E2: 2/2 vs 0/2", [T(1, "passed"), T(2, "passed"), C(1, "failed"), C(2, "failed")], "E2"],
      ["E2: 3/3 vs 0/3", [T(1, "passed"), T(2, "passed"), T(3, "passed"), C(1, "failed"), C(2, "failed"), C(3, "failed")], "E2"],
    ];
    for (const [name, attempts, want] of cases) expect([name, (await grade(attempts)).grade]).toEqual([name, want]);
    expect(evidenceGrade({ grounded: false, treatment: [{ passed: true }, { passed: true }], control: [{ passed: false }, { passed: false }] }).grade).toBe("ungrounded");
  });

  test("both arms come from one experiment: a control of another experiment is not pooled", async () => {
    const { replayEvidenceFromAttempts } = await import("./experiments");
    const split = [at("correction", 1, "passed", { exp: "e1" }), at("correction", 2, "passed", { exp: "e1" }), at("correction-control", 1, "failed", { exp: "e2" }), at("correction-control", 2, "failed", { exp: "e2" })];
    expect((await grade(split)).grade).toBe("E1"); // e1 has no control
    const both = [...split, at("correction", 1, "passed", { exp: "e3" }), at("correction", 2, "passed", { exp: "e3" }), at("correction-control", 1, "failed", { exp: "e3" }), at("correction-control", 2, "failed", { exp: "e3" })];
    const ev = replayEvidenceFromAttempts(both, "c1", { nodeId: "final_result" });
    expect([ev.treatment.length, ev.control.length]).toEqual([2, 2]);
    expect(evidenceGrade({ grounded: true, ...ev }).grade).toBe("E2");
  });
});
