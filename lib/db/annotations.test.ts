import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseJsonText, type ReplayBundle } from "../bundle";
import type { AnnotationFields, Viewer } from "../annotation";
import { importCase } from "./cases";
import { assignCases, finalizeCase, getCaseAnnotationsFor, removeAssignment, reopenAnnotation, saveDraft, submitInitial, WorkflowError } from "./annotations";
import { upsertUser } from "./users";
import { testDbPerFile } from "./test-db";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const gold = parseJsonText(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c2.bundle.json"), "utf8")) as ReplayBundle;

const h = testDbPerFile();
let n = 0;

const f = (over: Partial<AnnotationFields> = {}): AnnotationFields => ({
  categories: ["C2"],
  primary: "C2",
  nodeId: "tool_result_0002",
  nodeType: "tool_result",
  confidence: "high",
  rationale: "repeats the page",
  evidence: [],
  ...over,
});

async function user(roles: Viewer["roles"]): Promise<Viewer> {
  const u = await upsertUser(h.db, { email: `u${++n}-${Date.now()}@t.test`, roles }); // no password: these tests never sign in (a hash costs ~115 ms of CPU)
  return { id: u.id, roles };
}

/** A fresh case with three annotators and two adjudicators assigned. */
async function setup() {
  const b = { ...gold, id: `t/${++n}-${Date.now()}` };
  const { caseId } = await importCase(h.db, { bundle: b });
  const admin = await user(["admin"]);
  const [a1, a2, a3] = [await user(["annotator"]), await user(["annotator"]), await user(["annotator"])];
  const [j1, j2] = [await user(["adjudicator"]), await user(["adjudicator"])];
  await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [a1.id, a2.id, a3.id], adjudicatorId: j1.id });
  await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [a1.id, a2.id, a3.id], adjudicatorId: j2.id });
  return { caseId, admin, a: [a1, a2, a3], j: [j1, j2] };
}

async function submitAll(caseId: string, annotators: Viewer[], fields: AnnotationFields[]) {
  for (const [i, v] of annotators.entries()) {
    const d = await saveDraft(h.db, v, { caseId, kind: "initial", version: 0, fields: fields[i] });
    await submitInitial(h.db, v, { caseId, version: d.version });
  }
}

describe(`annotation workflow in lib/db (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("a stale version is refused with the saved copy, and nothing is overwritten", async () => {
    const { caseId, a } = await setup();
    const first = await saveDraft(h.db, a[0], { caseId, kind: "initial", version: 0, fields: f({ rationale: "first" }) });
    await saveDraft(h.db, a[0], { caseId, kind: "initial", version: first.version, fields: f({ rationale: "second" }) });
    const err = await saveDraft(h.db, a[0], { caseId, kind: "initial", version: first.version, fields: f({ rationale: "stale" }) }).catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowError);
    expect(err.status).toBe(409);
    expect((err.current as AnnotationFields).rationale).toBe("second");
    const events = await h.db.auditEvent.findMany({ where: { caseId, action: "annotation.save_conflict" } });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].dataJson).attempted.rationale).toBe("stale");
  });

  test("the proposed correction is saved with the draft, seen by the adjudicator, kept in the final and prefilled as replay guidance", async () => {
    const { caseId, a, j } = await setup();
    const fix = "Query the coordinates of another place instead of reloading the Stephen King page.";
    const d = await saveDraft(h.db, a[0], { caseId, kind: "initial", version: 0, fields: f({ correction: fix }) });
    expect(d.correction).toBe(fix);
    await submitInitial(h.db, a[0], { caseId, version: d.version });
    await submitAll(caseId, a.slice(1), [f(), f({ correction: "   " })]);
    const seen = await getCaseAnnotationsFor(h.db, j[0], { caseId });
    expect(seen.initials.map((x) => x.correction)).toEqual(expect.arrayContaining([fix, "", ""]));
    const fin = await finalizeCase(h.db, j[0], { caseId, fields: f({ correction: fix }) });
    expect(fin.correction).toBe(fix);
    const { describeReplayTarget } = await import("../services/replay-start");
    const t = await describeReplayTarget(h.db, { viewer: j[0], caseId, node: "tool_result_0002", registry: [], settings: { upstream: null, model: null, toolUpstream: null } });
    expect(t.status).toBe(200);
    expect(t.body.correction).toBe(fix);
    expect(t.body.guidance).toContain(`Proposed correction at tool_result_0002: instead of the original step, do this:\n${fix}`);
    const other = await describeReplayTarget(h.db, { viewer: j[0], caseId, node: "tool_call_0002", registry: [], settings: { upstream: null, model: null, toolUpstream: null } });
    expect(other.body.correction).toBeNull();
  });

  test("submission validates every protocol rule with field names", async () => {
    const { caseId, a } = await setup();
    const d = await saveDraft(h.db, a[0], { caseId, kind: "initial", version: 0, fields: f({ categories: ["C1"], primary: "C2", evidence: [{ nodeId: "tool_result_0002", quote: "not in this node at all" }] }) });
    const err = await submitInitial(h.db, a[0], { caseId, version: d.version }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.fieldErrors.map((x: { field: string }) => x.field).sort()).toEqual(["evidence[0].quote", "primary"]);
    const bad = await saveDraft(h.db, a[0], { caseId, kind: "initial", version: d.version, fields: f({ nodeId: "tool_result_0002", nodeType: "llm_call" }) }).catch((e) => e);
    expect(bad.fieldErrors).toEqual([{ field: "nodeType", message: 'Node type "llm_call" does not match the graph: "tool_result_0002" is tool_result.' }]);
  });

  test("an annotator is blind until they submit; then they see the others' submitted work", async () => {
    const { caseId, a } = await setup();
    await submitAll(caseId, a.slice(0, 2), [f({ rationale: "secret one" }), f({ rationale: "secret two" })]);
    await saveDraft(h.db, a[2], { caseId, kind: "initial", version: 0, fields: f({ rationale: "mine" }) });
    const blind = await getCaseAnnotationsFor(h.db, a[2], { caseId });
    expect(blind.blind).toBe(true);
    expect(blind.initials).toEqual([]);
    expect(blind.own?.rationale).toBe("mine");
    expect(JSON.stringify(blind)).not.toContain("secret");
    await submitInitial(h.db, a[2], { caseId, version: blind.own!.version });
    const open = await getCaseAnnotationsFor(h.db, a[2], { caseId });
    expect(open.blind).toBe(false);
    expect(open.initials.map((x) => x.rationale).sort()).toEqual(["mine", "secret one", "secret two"]);
  });

  test("two adjudicators finalizing at once: exactly one wins, the other is refused, both attempts are audited", async () => {
    const { caseId, a, j } = await setup();
    await submitAll(caseId, a, [f(), f({ categories: ["C3"], primary: "C3" }), f()]);
    const results = await Promise.allSettled([
      finalizeCase(h.db, j[0], { caseId, fields: f({ rationale: "judge one" }) }),
      finalizeCase(h.db, j[1], { caseId, fields: f({ categories: ["C2", "C3"], rationale: "judge two" }) }),
    ]);
    const ok = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0].reason).toBeInstanceOf(WorkflowError);
    expect(refused[0].reason.status).toBe(409);
    const c = await h.db.case.findUniqueOrThrow({ where: { id: caseId } });
    const winner = await h.db.annotation.findUniqueOrThrow({ where: { id: c.finalAnnotationId! } });
    expect(["judge one", "judge two"]).toContain(winner.rationale);
    const events = await h.db.auditEvent.findMany({ where: { caseId, action: { in: ["final.finalize", "final.finalize_rejected"] } } });
    expect(events.map((e) => e.action).sort()).toEqual(["final.finalize", "final.finalize_rejected"]);
    const rejected = events.find((e) => e.action === "final.finalize_rejected")!;
    expect(JSON.parse(rejected.dataJson).fields.rationale).not.toBe(winner.rationale);
    const relation = JSON.parse(winner.relationJson!);
    expect(relation.pattern).toBe("split_2_1");
  });

  test("an admin reopens a submitted annotation with a reason; the author can edit it again", async () => {
    const { caseId, a, admin } = await setup();
    await submitAll(caseId, [a[0]], [f()]);
    const ann = await h.db.annotation.findFirstOrThrow({ where: { caseId, userId: a[0].id } });
    await expect(reopenAnnotation(h.db, a[0], { annotationId: ann.id, reason: "x" })).rejects.toMatchObject({ status: 403 });
    await expect(reopenAnnotation(h.db, admin, { annotationId: ann.id, reason: " " })).rejects.toMatchObject({ status: 400 });
    await reopenAnnotation(h.db, admin, { annotationId: ann.id, reason: "wrong node" });
    const again = await h.db.annotation.findUniqueOrThrow({ where: { id: ann.id } });
    expect(again.status).toBe("draft");
    await saveDraft(h.db, a[0], { caseId, kind: "initial", version: again.version, fields: f({ rationale: "fixed" }) });
    const ev = await h.db.auditEvent.findFirstOrThrow({ where: { caseId, action: "annotation.reopen" } });
    expect(JSON.parse(ev.dataJson).reason).toBe("wrong node");
  });
});

describe("assigning adjudicated cases, and by bundle id", () => {
  test("another annotator on an adjudicated case is refused before anything is assigned; the same three again is a no-op", async () => {
    const { caseId, admin, a, j } = await setup();
    await submitAll(caseId, a, [f(), f(), f()]);
    await finalizeCase(h.db, j[0], { caseId, fields: f() });
    const other = await importCase(h.db, { bundle: { ...gold, id: `t/other-${++n}` } });
    const fourth = await user(["annotator"]);
    const err = await assignCases(h.db, admin, { caseIds: [other.caseId, caseId], annotatorIds: [fourth.id] }).catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowError);
    expect(err.status).toBe(409);
    expect(err.message).toMatch(/is already adjudicated: another annotator would change the annotations it was finalized from/);
    // nothing assigned, not even on the case before it in the list
    expect(await h.db.assignment.count({ where: { userId: fourth.id } })).toBe(0);
    expect(await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: a.map((x) => x.id) })).toEqual([{ caseId, annotators: [], adjudicator: null }]);
  });
  test("a case is named by its bundle id as well as its database id", async () => {
    const admin = await user(["admin"]);
    const b = { ...gold, id: `t/by-bundle-${++n}` };
    const { caseId } = await importCase(h.db, { bundle: b });
    const an = await user(["annotator"]);
    expect(await assignCases(h.db, admin, { caseIds: [b.id], annotatorIds: [an.id] })).toEqual([{ caseId, annotators: [an.id], adjudicator: null }]);
  });
});

describe("removing assignments", () => {
  test("an admin removes an open assignment with its draft; submitted ones stay", async () => {
    const { caseId, a, admin } = await setup();
    await saveDraft(h.db, a[0], { caseId, kind: "initial", version: 0, fields: f() });
    const asg = await h.db.assignment.findFirstOrThrow({ where: { caseId, userId: a[0].id } });
    await expect(removeAssignment(h.db, a[0], { assignmentId: asg.id })).rejects.toMatchObject({ status: 403 });
    await removeAssignment(h.db, admin, { assignmentId: asg.id });
    expect(await h.db.assignment.count({ where: { id: asg.id } })).toBe(0);
    expect(await h.db.annotation.count({ where: { caseId, userId: a[0].id } })).toBe(0);
    await submitAll(caseId, [a[1]], [f()]);
    const done = await h.db.assignment.findFirstOrThrow({ where: { caseId, userId: a[1].id } });
    await expect(removeAssignment(h.db, admin, { assignmentId: done.id })).rejects.toMatchObject({ status: 409 });
    expect(await h.db.auditEvent.count({ where: { caseId, action: "assignment.remove" } })).toBe(1);
  });
});

describe("assigning to chosen annotators (issue 10 item 2)", () => {
  /** A fresh case, plus `idle` annotators with no load (the ones "fewest first" would pick). */
  async function caseAndPeople() {
    const b = { ...gold, id: `t/assign-${++n}-${Date.now()}` };
    const { caseId } = await importCase(h.db, { bundle: b });
    const admin = await user(["admin"]);
    const chosen = [await user(["annotator"]), await user(["annotator"]), await user(["annotator"]), await user(["annotator"])];
    const idle = [await user(["annotator"]), await user(["annotator"])];
    // Load the chosen ones with other cases so that "least loaded first" would prefer the idle ones.
    for (let i = 0; i < 2; i++) {
      const other = await importCase(h.db, { bundle: { ...gold, id: `t/load-${++n}-${Date.now()}` } });
      await assignCases(h.db, admin, { caseIds: [other.caseId], annotatorIds: chosen.map((c) => c.id) });
    }
    return { caseId, admin, chosen, idle };
  }
  const annotatorsOf = async (caseId: string) =>
    (await h.db.assignment.findMany({ where: { caseId, role: "annotator" }, select: { userId: true } })).map((a) => a.userId).sort();

  test("every chosen annotator gets the case, nobody else, whatever the loads", async () => {
    const { caseId, admin, chosen } = await caseAndPeople();
    const r = await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: chosen.map((c) => c.id) });
    expect(r[0].annotators.sort()).toEqual(chosen.map((c) => c.id).sort());
    expect(await annotatorsOf(caseId)).toEqual(chosen.map((c) => c.id).sort());
  });

  test("four chosen with perCase 3 is refused, not trimmed to the three least loaded", async () => {
    const { caseId, admin, chosen } = await caseAndPeople();
    await expect(assignCases(h.db, admin, { caseIds: [caseId], perCase: 3, annotatorIds: chosen.map((c) => c.id) })).rejects.toThrow(/4 annotators chosen but 3 per case/);
    expect(await annotatorsOf(caseId)).toEqual([]);
  });

  test("a case already held by someone else still goes to every chosen annotator", async () => {
    const { caseId, admin, chosen, idle } = await caseAndPeople();
    await assignCases(h.db, admin, { caseIds: [caseId], perCase: 1, annotatorIds: [idle[0].id] });
    const three = chosen.slice(0, 3).map((c) => c.id);
    const r = await assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: three });
    expect(r[0].annotators.sort()).toEqual([...three].sort());
    expect(await annotatorsOf(caseId)).toEqual([idle[0].id, ...three].sort());
  });

  test("an id that is not an annotator, or the adjudicator among the chosen, is refused before anything is stored", async () => {
    const { caseId, admin, chosen } = await caseAndPeople();
    const researcher = await user(["researcher"]);
    await expect(assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [chosen[0].id, researcher.id] })).rejects.toThrow(`not an annotator account: ${researcher.id}`);
    await expect(assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [chosen[0].id, "no-such-user"] })).rejects.toThrow("not an annotator account: no-such-user");
    const both = await user(["annotator", "adjudicator"]);
    await expect(assignCases(h.db, admin, { caseIds: [caseId], annotatorIds: [chosen[0].id, both.id], adjudicatorId: both.id })).rejects.toThrow(/cannot also annotate/);
    expect(await annotatorsOf(caseId)).toEqual([]);
  });

  test("with no annotators chosen, the least loaded ones are drawn (documented default)", async () => {
    const { caseId, admin, idle } = await caseAndPeople();
    const before = new Map((await h.db.assignment.groupBy({ by: ["userId"], where: { role: "annotator" }, _count: { _all: true } })).map((g) => [g.userId, g._count._all]));
    const r = await assignCases(h.db, admin, { caseIds: [caseId], perCase: 2 });
    expect(r[0].annotators).toHaveLength(2);
    // Drawn from the unloaded annotators (the idle ones of this test or of earlier ones), never the loaded chosen ones.
    for (const id of r[0].annotators) expect(before.get(id) ?? 0).toBe(0);
    expect(idle.every((u) => (before.get(u.id) ?? 0) === 0)).toBe(true);
  });
});
