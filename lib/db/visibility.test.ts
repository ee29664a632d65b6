/**
 * The blindness gate and the one projection of a case's fields (issue 20 items 1 and 3), on the
 * shared samples: an annotator who has not submitted gets no text derived from the dataset's
 * reference labels through getCaseForViewer — not the labels, not the Who&When importer's
 * label notes (`mistake_agent "Orchestrator" matched role ... by prefix`), not the reference
 * answer, not a file name that encodes the answer (gold-c1 … gold-c4).
 *
 * Audited fields of a case as pages and API routes reach it (every one listed, with who sees it
 * before submitting):
 *   Case row: id, bundleId, format, bundleHash, parentBundleId, sourceDataset, sourceSubset,
 *     traceSha256, taskId, taskPrompt, benchmark, mas, model, outcomePassed, node/edge/record/agent
 *     counts, lanesJson, importedAt, finalizedAt, finalAnnotationId — trace facts, shown;
 *   sourceFile — WITHHELD (gold-c<n> names the category);
 *   referenceLabels (rows) — WITHHELD (also behind GET /api/cases/<id>/reference-labels: 403);
 *   header.task.prompt/id/benchmark/split/level — shown; header.task.reference — WITHHELD;
 *   header.config, header.outcome, header.parent, header.initialState, header.graph (rest) — shown;
 *   header.source.dataset/subset/recordKey/traceSha256/record/mas/splitter — shown;
 *   header.source.file — WITHHELD; header.source.notes — label-derived ones WITHHELD, the rest shown;
 *   header.referenceLabels — WITHHELD; header.sourceExtra (unmapped dataset keys) — WITHHELD.
 *   Node API (/api/cases/<id>/nodes/<node>): nodeId, orderIndex, type, agent, label, status, error,
 *     content, contentHash, records, parents, children — trace content only (no case header);
 *   search (/api/cases/<id>/search): node ids and positions matching node id/agent/label/content;
 *   graph window/index/locate: node ids, rows, agents, types, failed flags;
 *   export: CLI only (`symtrace export`, releases: researchers/admins behind the all-cases gate).
 * The e2e probe (e2e/blindness.spec.ts) crawls the running app for the same strings.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { importBundleFile, importMad, importWhoWhen } from "../importers";
import type { Viewer } from "../annotation";
import { freshTestDb } from "./test-db";
import { importCase } from "./cases";
import { assignCases, saveDraft, submitInitial } from "./annotations";
import { upsertUser } from "./users";
import { blindCaseIds, blindnessGate, caseForViewer, caseRowsForViewer, findCaseIdFor, getCaseForViewer, hiddenDerivedCaseIds, isReferenceDerivedNote, pooledViewGate, REFERENCE_FIELDS } from "./visibility";
import { listCasePage } from "./case-list";
import { listCases } from "./cases";
import type { Db } from "./client";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const read = (rel: string) => readFileSync(path.join(SHARED, rel), "utf8");

let db: Db;
let n = 0;
async function user(roles: Viewer["roles"]): Promise<Viewer> {
  const u = await upsertUser(db, { email: `v${++n}-${Date.now()}@t.test`, roles }); // no password: these tests never sign in (a hash costs ~115 ms of CPU)
  return { id: u.id, roles };
}

const HC6 = "who_and_when/hand-crafted/6";
const AG14 = "who_and_when/algorithm-generated/14";
const GOLD = "ag2/webarena_verified_hard_267/attempt_000";
let ids: Record<string, string>;

beforeAll(async () => {
  db = (await freshTestDb()).db;
  const cases = [
    ...importWhoWhen(read("datasets/who_and_when/Hand-Crafted/6.json"), { fileName: "6.json", subset: "Hand-Crafted" }).cases,
    ...importWhoWhen(read("datasets/who_and_when/Algorithm-Generated/14.json"), { fileName: "14.json", subset: "Algorithm-Generated" }).cases,
    ...importBundleFile(read("fixtures/bundles/gold-c2.bundle.json"), { fileName: "gold-c2.bundle.json" }).cases,
    ...importMad(read("datasets/mast_mad/MAD_human_labelled_sample.json"), { fileName: "MAD_human_labelled_sample.json" }).cases.slice(0, 2),
  ];
  ids = {};
  for (const c of cases) ids[c.bundle.id] = (await importCase(db, c)).caseId;
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
});

/** Every text a blind viewer must not receive for this case: label values, label notes, the reference answer, the file name. */
async function secretsOf(caseId: string): Promise<string[]> {
  const c = await db.case.findUniqueOrThrow({ where: { id: caseId }, include: { referenceLabels: true } });
  const header = JSON.parse(c.headerJson) as { task: { reference?: unknown }; source?: { notes?: string[] } };
  const out: string[] = [];
  for (const l of c.referenceLabels) {
    if (l.reason) out.push(l.reason);
    for (const m of JSON.parse(l.failureModesJson) as Array<{ mode: string }>) out.push(m.mode);
  }
  if (c.sourceFile) out.push(c.sourceFile);
  const ref = JSON.stringify(header.task.reference ?? null);
  if (ref !== "null") out.push(ref.slice(1, -1));
  const labels = c.referenceLabels.map((l) => ({ ...l, failureModes: JSON.parse(l.failureModesJson), extra: JSON.parse(l.extraJson) }));
  for (const note of header.source?.notes ?? []) if (isReferenceDerivedNote(note, labels)) out.push(note);
  return out.filter((s) => s.length >= 4);
}

describe("the projection of a case (caseForViewer / getCaseForViewer)", () => {
  test("Who&When hand-crafted/6: its prefix-match note names the labelled step; a blind annotator gets neither note nor label, a researcher both", async () => {
    const admin = await user(["admin"]);
    const [a, researcher] = [await user(["annotator"]), await user(["researcher"])];
    await assignCases(db, admin, { caseIds: [ids[HC6]], annotatorIds: [a.id] });
    const stored = await db.case.findUniqueOrThrow({ where: { id: ids[HC6] } });
    const note = 'mistake_agent "Orchestrator" matched role "Orchestrator (thought)" of history[5] by prefix';
    expect(stored.headerJson).toContain(JSON.stringify(note).slice(1, -1));

    const blind = (await getCaseForViewer(db, a, { bundleId: HC6 }))!;
    expect(blind.gate).toMatchObject({ references: false, detector: false });
    const text = JSON.stringify(blind.case);
    expect(text).not.toContain("matched role");
    expect(blind.case.withheld).toEqual({ blind: true, notes: 1 });
    expect(blind.case.referenceLabels).toEqual([]);
    expect(blind.case.sourceFile).toBeNull();
    expect(blind.case.header).not.toHaveProperty("referenceLabels");
    expect(blind.case.header.task).not.toHaveProperty("reference");
    expect(blind.case.header.task.prompt).toBe(stored.taskPrompt); // the task itself is still there
    for (const s of await secretsOf(ids[HC6])) expect(text, s).not.toContain(s);

    const open = (await getCaseForViewer(db, researcher, { bundleId: HC6 }))!;
    expect(open.gate.references).toBe(true);
    expect((open.case.header.source as { notes: string[] }).notes).toEqual([note]);
    expect(open.case.referenceLabels).toHaveLength(1);
    expect(open.case.withheld).toEqual({ blind: false, notes: 0 });
  });

  test("every sample: nothing of the reference layer reaches a blind annotator; the annotator's gate opens on submitting", async () => {
    const admin = await user(["admin"]);
    const a = await user(["annotator"]);
    const all = Object.keys(ids);
    await assignCases(db, admin, { caseIds: all.map((b) => ids[b]), annotatorIds: [a.id] });
    let checked = 0;
    for (const bundleId of all) {
      const secrets = await secretsOf(ids[bundleId]);
      const seen = (await getCaseForViewer(db, a, { bundleId }))!;
      const text = JSON.stringify(seen.case);
      for (const s of secrets) {
        expect(text, `${bundleId}: ${s}`).not.toContain(s);
        checked++;
      }
    }
    // the secrets were real: the gold file name, a Who&When reason, MAD failure modes
    expect(checked).toBeGreaterThan(10);
    expect(await secretsOf(ids[GOLD])).toContain("gold-c2.bundle.json");
    expect((await secretsOf(ids[AG14])).some((s) => s.startsWith("annotation inconsistency: mistake_agent"))).toBe(true);

    // unassigned plain annotator: blind as well; after submitting: the case as stored
    const b = await user(["annotator"]);
    expect((await blindnessGate(db, b, { caseId: ids[GOLD] })).references).toBe(false);
    const d = await saveDraft(db, a, { caseId: ids[GOLD], kind: "initial", version: 0, fields: { categories: ["C2"], primary: "C2", nodeId: "tool_call_0002", nodeType: "tool_call", confidence: "high", rationale: "repeats", evidence: [] } });
    await submitInitial(db, a, { caseId: ids[GOLD], version: d.version });
    const after = (await getCaseForViewer(db, a, { bundleId: GOLD }))!;
    expect(after.gate).toMatchObject({ references: true, detector: true });
    expect(after.case.sourceFile).toBe("gold-c2.bundle.json");
  });

  test("non-label notes stay (MAD swapped fields, Langfuse duplicates); the withheld list", () => {
    const labels = [{ agent: "Orchestrator", nodeId: "msg_0005", reason: "it looped", failureModes: [], extra: { stepRole: "Orchestrator (thought)" } }];
    expect(isReferenceDerivedNote('mistake_agent "X" matched role "Y" of history[5] by prefix', [])).toBe(true);
    expect(isReferenceDerivedNote("annotation inconsistency: …", [])).toBe(true);
    expect(isReferenceDerivedNote("human correction trace.corrections[0] is identical to the trace output", [])).toBe(true);
    expect(isReferenceDerivedNote("the step msg_0005 was split", labels)).toBe(true);
    expect(isReferenceDerivedNote('mas_name/benchmark_name swapped in the source (mas_name "GAIA", benchmark_name "Magentic")', labels)).toBe(false);
    expect(isReferenceDerivedNote("4 duplicate observation(s) (slim copies in trace.observations) dropped; full copies kept", labels)).toBe(false);
    const c = { referenceLabels: labels, sourceFile: "gold-c1.bundle.json", header: { task: { prompt: "p", reference: { x: 1 } }, source: { dataset: "mad", file: "f.json", notes: ["4 duplicate observation(s) dropped", "annotation inconsistency"] }, referenceLabels: labels, sourceExtra: { k: 1 } } };
    const p = caseForViewer(c, { references: false });
    expect(p).toEqual({ referenceLabels: [], sourceFile: null, header: { task: { prompt: "p" }, source: { dataset: "mad", notes: ["4 duplicate observation(s) dropped"] } }, withheld: { blind: true, notes: 1 } });
    expect(c.header.source.notes).toHaveLength(2); // input untouched
    expect(REFERENCE_FIELDS).toContain("header.source.notes (label-derived ones)");
  });
});

describe("the one gate (blindnessGate)", () => {
  test("all cases: closed while the viewer has any open annotator assignment; per case: assisted opens the detector only", async () => {
    const admin = await user(["admin"]);
    const [r, a] = [await user(["researcher", "annotator"]), await user(["annotator"])];
    expect(await blindnessGate(db, r, { allCases: true })).toMatchObject({ references: true, openOwn: 0 });
    await assignCases(db, admin, { caseIds: [ids[HC6], ids[AG14]], annotatorIds: [r.id] });
    expect(await blindnessGate(db, r, { allCases: true })).toMatchObject({ references: false, detector: false, openOwn: 2 });
    // assigned researcher: blind on that case, not on another
    expect((await blindnessGate(db, r, { caseId: ids[HC6] })).references).toBe(false);
    expect((await blindnessGate(db, r, { caseId: ids[GOLD] })).references).toBe(true);
    await assignCases(db, admin, { caseIds: [ids[HC6]], annotatorIds: [a.id], assisted: true });
    expect(await blindnessGate(db, a, { caseId: ids[HC6] })).toMatchObject({ references: false, detector: true, assisted: true });
  });
});

describe("views that pool every case (pooledViewGate) and the case list (caseRowsForViewer)", () => {
  test("experiments, repair searches, attribution: closed for a researcher who also annotates while an assignment is open, naming how many; open again after submitting", async () => {
    const admin = await user(["admin"]);
    const r = await user(["researcher", "annotator"]);
    expect(await pooledViewGate(db, r, "experiments")).toEqual({ open: true, openOwn: 0, refusal: null });
    await assignCases(db, admin, { caseIds: [ids[GOLD], ids[HC6]], annotatorIds: [r.id] });
    expect(await pooledViewGate(db, r, "experiments")).toEqual({ open: false, openOwn: 2, refusal: "Experiments are hidden while you have unsubmitted annotations of your own (2 open annotator assignments)" });
    expect((await pooledViewGate(db, r, "repair-searches")).refusal).toBe("Repair searches are hidden while you have unsubmitted annotations of your own (2 open annotator assignments)");
    expect((await pooledViewGate(db, r, "attribution")).open).toBe(false);
    // an admin or a researcher without assignments: open
    expect((await pooledViewGate(db, admin, "experiments")).open).toBe(true);
    expect((await pooledViewGate(db, await user(["researcher"]), "repair-searches")).open).toBe(true);
    const fields = { categories: ["C2" as const], primary: "C2" as const, nodeId: "tool_call_0002", nodeType: "tool_call" as const, confidence: "high" as const, rationale: "repeats", evidence: [] };
    const d = await saveDraft(db, r, { caseId: ids[GOLD], kind: "initial", version: 0, fields });
    await submitInitial(db, r, { caseId: ids[GOLD], version: d.version });
    expect(await pooledViewGate(db, r, "experiments")).toMatchObject({ open: false, openOwn: 1, refusal: expect.stringMatching(/\(1 open annotator assignment\)$/) });
    await db.assignment.updateMany({ where: { userId: r.id }, data: { status: "submitted" } });
    expect((await pooledViewGate(db, r, "experiments")).open).toBe(true);
  });

  test("case list rows: the label count and finalization withheld on the rows the viewer is blind on only, in one batch", async () => {
    const admin = await user(["admin"]);
    const r = await user(["researcher", "annotator"]);
    await assignCases(db, admin, { caseIds: [ids[HC6]], annotatorIds: [r.id] });
    const page = await listCasePage(db, { pageSize: 200 });
    const hc6 = page.cases.find((c) => c.id === ids[HC6])!;
    const ag14 = page.cases.find((c) => c.id === ids[AG14])!;
    expect(hc6._count.referenceLabels).toBeGreaterThan(0); // the real count the viewer must not see
    expect(ag14._count.referenceLabels).toBeGreaterThan(0);
    expect([...(await blindCaseIds(db, r, page.cases.map((c) => c.id)))]).toEqual([ids[HC6]]);
    const rows = await caseRowsForViewer(db, r, page.cases);
    expect(rows.find((c) => c.id === ids[HC6])).toMatchObject({ _count: { referenceLabels: 0 }, finalizedAt: null, labelsWithheld: true });
    expect(rows.find((c) => c.id === ids[AG14])).toMatchObject({ _count: { referenceLabels: ag14._count.referenceLabels }, labelsWithheld: false });
    // a researcher without assignments sees every count; a plain annotator none
    expect((await caseRowsForViewer(db, await user(["researcher"]), page.cases)).every((c) => !c.labelsWithheld)).toBe(true);
    expect((await caseRowsForViewer(db, await user(["annotator"]), page.cases)).every((c) => c.labelsWithheld && c._count.referenceLabels === 0)).toBe(true);
    expect(hc6._count.referenceLabels).toBeGreaterThan(0); // input untouched
  });
});

describe("derived cases (replays, experiment attempts) stay blind with their source", () => {
  test("a replay of a gold case carrying label-derived guidance: hidden from a blind annotator (list, lookup, page), shown to a researcher and after the annotator submits on the source", async () => {
    const src = await importBundleFile(read("fixtures/bundles/gold-c3.bundle.json"), { fileName: "gold-c3.bundle.json" }).cases[0];
    const sourceId = (await importCase(db, src)).caseId;
    const guidance = "Annotated failure category: C3 at target tool_result_0001";
    const derived = { ...src.bundle, id: `${src.bundle.id}~replay-1`, parent: { bundleId: src.bundle.id, targetNodeId: "tool_result_0001", guidance, mode: "selective" } } as typeof src.bundle;
    const derivedId = (await importCase(db, { bundle: derived })).caseId;
    const admin = await user(["admin"]);
    const [a, other, researcher] = [await user(["annotator"]), await user(["annotator"]), await user(["researcher"])];
    await assignCases(db, admin, { caseIds: [sourceId], annotatorIds: [a.id] });

    for (const v of [a, other]) {
      expect((await hiddenDerivedCaseIds(db, v)).has(derivedId)).toBe(true);
      expect(await findCaseIdFor(db, v, { bundleId: derived.id })).toBeNull();
      expect(await getCaseForViewer(db, v, { bundleId: derived.id })).toBeNull();
      const listed = await listCases(db, { take: 1000, exclude: await hiddenDerivedCaseIds(db, v) });
      expect(listed.cases.map((c) => c.id)).not.toContain(derivedId);
      expect(listed.cases.map((c) => c.id)).toContain(sourceId); // the source itself is listed (its labels are projected away)
    }
    expect(await findCaseIdFor(db, researcher, { bundleId: derived.id })).toBe(derivedId);
    expect((await getCaseForViewer(db, researcher, { bundleId: derived.id }))!.case.header.parent).toMatchObject({ guidance });

    const d = await saveDraft(db, a, { caseId: sourceId, kind: "initial", version: 0, fields: { categories: ["C3"], primary: "C3", nodeId: "tool_result_0001", nodeType: "tool_result", confidence: "high", rationale: "the refund page failed", evidence: [] } });
    await submitInitial(db, a, { caseId: sourceId, version: d.version });
    expect(await findCaseIdFor(db, a, { bundleId: derived.id })).toBe(derivedId);
    expect(await findCaseIdFor(db, other, { bundleId: derived.id })).toBeNull(); // still blind: never submitted there
    // a researcher assigned to annotate the source, not submitted: blind on its derivatives only
    const ra = await user(["researcher", "annotator"]);
    await assignCases(db, admin, { caseIds: [sourceId], annotatorIds: [ra.id] });
    expect([...(await hiddenDerivedCaseIds(db, ra))]).toEqual([derivedId]);
  });
});
