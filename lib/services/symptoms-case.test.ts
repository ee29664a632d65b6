import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseJsonText, syntheticBundle, type ReplayBundle } from "../bundle";
import { detectSymptoms, symptomLayer } from "../symptoms";
import type { AnnotationFields, Viewer } from "../annotation";
import { assignCases, importCase, saveDraft, submitInitial, upsertUser } from "../db";
import { testDbPerFile } from "../db/test-db";
import { caseDetection, caseEarliestCheck, symptomLayerFor, warningsForFields, windowedSymptomNode, windowedSymptomsFor } from "./symptoms-case";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const gold = parseJsonText(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c2.bundle.json"), "utf8")) as ReplayBundle;

const h = testDbPerFile();
let n = 0;
async function user(roles: Viewer["roles"]): Promise<Viewer> {
  const u = await upsertUser(h.db, { email: `s${++n}-${Date.now()}@t.test`, roles }); // no password: these tests never sign in (a hash costs ~115 ms of CPU)
  return { id: u.id, roles };
}

// gold-c2: tool_call_0002 repeats an earlier action (C2.repeated-action), tool_result_0002 follows it.
const fields: AnnotationFields = { categories: ["C2"], primary: "C2", nodeId: "tool_result_0002", nodeType: "tool_result", confidence: "high", rationale: "repeats the page", evidence: [{ nodeId: "llm_call_0003", quote: "llm" }] };

describe("earliest-node check on a stored case", () => {
  test("warnings for a chosen node (a researcher): the upstream C2 rule and the downstream evidence; cached per bundle hash", async () => {
    const { caseId } = await importCase(h.db, { bundle: { ...gold, id: `s/${++n}` } });
    const researcher = await user(["researcher"]);
    const w = await caseEarliestCheck(h.db, researcher, caseId, { node: "tool_result_0002", categories: ["C2"], evidence: fields.evidence });
    expect(w!.detector).toBe(true);
    expect(w!.warnings.map((x) => [x.kind, x.nodeId, x.kind === "upstream-rule" ? x.ruleId : x.quote])).toEqual([
      ["upstream-rule", "tool_call_0002", "C2.repeated-action"],
      ["downstream-evidence", "llm_call_0003", "llm"],
    ]);
    expect((await caseEarliestCheck(h.db, researcher, caseId, { node: "tool_result_0002", categories: ["C3"], evidence: [] }))!.warnings).toEqual([]);
    expect(await caseDetection(h.db, caseId)).toBe(await caseDetection(h.db, caseId));
    expect(await caseDetection(h.db, "no-such-case")).toBeNull();
  });

  test("issue 20 item 2: an unassisted annotator before submitting gets only checks of their own inputs (downstream evidence), never a rule hit — even choosing the last node and all four categories", async () => {
    const { caseId } = await importCase(h.db, { bundle: { ...gold, id: `s/${++n}` } });
    const admin = await user(["admin"]);
    const [plain, helped] = [await user(["annotator"]), await user(["annotator"])];
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [plain.id] });
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [helped.id], assisted: true });
    const last = gold.order[gold.order.length - 1];
    const all = { node: last, categories: ["C1", "C2", "C3", "C4"] as const, evidence: [] };
    const blind = await caseEarliestCheck(h.db, plain, caseId, { ...all, categories: [...all.categories] });
    expect(blind).toEqual({ warnings: [], detector: false });
    // the same question from a researcher: the detector has plenty to say (so the empty answer above is the gate, not the data)
    const full = await caseEarliestCheck(h.db, await user(["researcher"]), caseId, { ...all, categories: [...all.categories] });
    expect(full!.warnings.filter((x) => x.kind === "upstream-rule").length).toBeGreaterThanOrEqual(3);
    // own inputs still checked: an evidence quote downstream of the chosen node
    const own = await caseEarliestCheck(h.db, plain, caseId, { node: "tool_result_0002", categories: ["C2"], evidence: fields.evidence });
    expect(own).toEqual({ warnings: [{ kind: "downstream-evidence", nodeId: "llm_call_0003", quote: "llm" }], detector: false });
    // assisted: the rule hit too
    const assisted = await caseEarliestCheck(h.db, helped, caseId, { node: "tool_result_0002", categories: ["C2"], evidence: [] });
    expect(assisted!.detector).toBe(true);
    expect(assisted!.warnings.map((x) => (x.kind === "upstream-rule" ? x.ruleId : x.kind))).toEqual(["C2.repeated-action"]);
    // recorded at submit: the plain annotator's shown warnings carry no rule; the assisted one's do, and it is recorded as assisted
    for (const v of [plain, helped]) {
      const d = await saveDraft(h.db, v, { caseId, kind: "initial", version: 0, fields: { ...fields, evidence: [] } });
      await submitInitial(h.db, v, { caseId, version: d.version, warningsShown: await warningsForFields(h.db, v, caseId, d) });
    }
    const rows = await h.db.annotation.findMany({ where: { caseId }, select: { userId: true, assisted: true, warningsShownJson: true } });
    const byUser = new Map(rows.map((r) => [r.userId, r]));
    expect(byUser.get(plain.id)).toMatchObject({ assisted: false });
    expect(JSON.parse(byUser.get(plain.id)!.warningsShownJson!)).toEqual([]);
    expect(byUser.get(helped.id)).toMatchObject({ assisted: true });
    expect((JSON.parse(byUser.get(helped.id)!.warningsShownJson!) as Array<{ ruleId?: string }>).map((w) => w.ruleId)).toEqual(["C2.repeated-action"]);
    // after submitting, the plain annotator gets the detector-based warnings too
    const after = await caseEarliestCheck(h.db, plain, caseId, { node: "tool_result_0002", categories: ["C2"], evidence: [] });
    expect(after).toMatchObject({ detector: true, warnings: [{ kind: "upstream-rule", ruleId: "C2.repeated-action", nodeId: "tool_call_0002" }] });
  });

  test("submit records the warnings for the submitted tuple and the assignment's assisted flag", async () => {
    const { caseId } = await importCase(h.db, { bundle: { ...gold, id: `s/${++n}` } });
    const admin = await user(["admin"]);
    const a = await user(["annotator"]);
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [a.id], assisted: true });
    const d = await saveDraft(h.db, a, { caseId, kind: "initial", version: 0, fields: { ...fields, evidence: [] } });
    const warningsShown = await warningsForFields(h.db, a, caseId, d);
    await submitInitial(h.db, a, { caseId, version: d.version, warningsShown });
    const row = await h.db.annotation.findFirstOrThrow({ where: { caseId, userId: a.id } });
    expect(row.assisted).toBe(true);
    expect(JSON.parse(row.warningsShownJson!)).toEqual(warningsShown);
    expect((JSON.parse(row.warningsShownJson!) as Array<{ nodeId: string }>)[0].nodeId).toBe("tool_call_0002");
  });
});

describe("symptom layer visibility (blindness, enforced on the server)", () => {
  test("an annotator without assisted gets no detection data before submitting and gets it after; assisted gets it before; a researcher always", async () => {
    const { caseId } = await importCase(h.db, { bundle: { ...gold, id: `s/${++n}` } });
    const admin = await user(["admin"]);
    const [plain, helped, researcher] = [await user(["annotator"]), await user(["annotator"]), await user(["researcher"])];
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [plain.id] });
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [plain.id, helped.id], assisted: false });
    expect(await symptomLayerFor(h.db, plain, caseId)).toBeNull();
    expect(await symptomLayerFor(h.db, helped, caseId)).toBeNull();
    const r = await symptomLayerFor(h.db, researcher, caseId);
    expect(r!.anchor).toBe("llm_call_0003");
    expect(r!.nodes.find((x) => x.id === "tool_call_0002")!.rules.map((x) => x.id)).toEqual(["C2.repeated-action"]);
    // an admin makes helped's existing assignment assisted (only the chosen annotator)
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [helped.id], assisted: true });
    expect((await symptomLayerFor(h.db, helped, caseId))!.anchor).toBe("llm_call_0003");
    expect(await symptomLayerFor(h.db, plain, caseId)).toBeNull();
    // plain submits: now they see it; the annotation records assisted = false, helped's = true
    for (const v of [plain, helped]) {
      const d = await saveDraft(h.db, v, { caseId, kind: "initial", version: 0, fields: { ...fields, evidence: [] } });
      await submitInitial(h.db, v, { caseId, version: d.version });
    }
    expect((await symptomLayerFor(h.db, plain, caseId))!.nodes.length).toBe(4);
    const rows = await h.db.annotation.findMany({ where: { caseId }, select: { userId: true, assisted: true } });
    expect(Object.fromEntries(rows.map((x) => [x.userId, x.assisted]))).toEqual({ [plain.id]: false, [helped.id]: true });
  });
});

describe("the windowed inspector's symptom layer (issue 16: large cases)", () => {
  test("ids, rows and c_f of every flagged node, the anchor's row; one node's rules; blind, over the limit", async () => {
    const b = syntheticBundle({ id: `s/${++n}-big`, turns: 40, seed: 9 });
    const { caseId } = await importCase(h.db, { bundle: b });
    const want = detectSymptoms(b);
    expect(want.nodes.length).toBeGreaterThan(0);
    const researcher = await user(["researcher"]);
    const w = await windowedSymptomsFor(h.db, researcher, caseId, {});
    expect(w.ids).toEqual(want.nodes.map((x) => x.id));
    expect(w.rows).toEqual(want.nodes.map((x) => b.order.indexOf(x.id)));
    expect(w.cf).toEqual(want.nodes.map((x) => x.cf));
    expect([w.anchor, w.anchorNode, w.nodeCount]).toEqual([want.anchor, want.anchorNode, b.graph.nodes.length]);
    expect(w.anchorRow).toBe(want.anchor ? b.order.indexOf(want.anchor) : null);
    expect(await windowedSymptomsFor(h.db, researcher, caseId, {})).toBe(w); // cached per bundle hash
    const one = await windowedSymptomNode(h.db, researcher, caseId, want.nodes[0].id, {});
    expect(one.nodes).toEqual(symptomLayer(want).nodes.slice(0, 1));
    expect(one.anchor).toBe(want.anchor);
    expect((await windowedSymptomNode(h.db, researcher, caseId, "no-such-node", {})).nodes).toEqual([]);

    const admin = await user(["admin"]);
    const a = await user(["annotator"]);
    await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [a.id] });
    await expect(windowedSymptomsFor(h.db, a, caseId, {})).rejects.toMatchObject({ status: 403 });
    await expect(windowedSymptomNode(h.db, a, caseId, want.nodes[0].id, {})).rejects.toMatchObject({ status: 403 });
    await expect(windowedSymptomsFor(h.db, researcher, caseId, { SYMTRACE_SYMPTOMS_MAX_NODES: 100 })).rejects.toThrow(/up to 100 nodes \(SYMTRACE_SYMPTOMS_MAX_NODES\); this one has 162/);
    await expect(windowedSymptomsFor(h.db, researcher, caseId, { SYMTRACE_SYMPTOMS_MAX_NODES: 100 })).rejects.toMatchObject({ status: 413 });
  });
});
