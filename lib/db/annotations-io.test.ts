import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AnnotationsFileError, exportAnnotations, importAnnotationsFile } from "./annotations-io";
import type { DbHandle } from "./client";
import { importGoldBundles } from "../testing/gold";
import { freshTestDb } from "./test-db";

const C4 = "crewai/webarena_verified_hard_204/attempt_000";

let h: DbHandle;
beforeAll(async () => {
  h = await freshTestDb();
  await importGoldBundles(h.db);
}, 120_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

const initial = (annotator: string, extra: Record<string, unknown> = {}) => ({
  annotator,
  categories: ["C1", "C4"],
  primary: "C4",
  nodeId: "agent_action_0000",
  nodeType: "agent_action",
  evidence: [{ nodeId: "agent_action_0000", quote: "I would browse to the  __SHOPPING_ADMIN__\npage" }], // whitespace folded like the form
  ...extra,
});

describe(`lib/db annotations-io (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("a file that is not symtrace.annotations/v1 throws AnnotationsFileError with paths", async () => {
    await expect(importAnnotationsFile(h.db, { format: "symtrace.annotations/v2", cases: [] })).rejects.toBeInstanceOf(AnnotationsFileError);
    await expect(importAnnotationsFile(h.db, [])).rejects.toMatchObject({ errors: [{ path: "$" }] });
  });

  test("unknown keys are tolerated; the adjudicator may not be one of the annotators; file-level adjudicator", async () => {
    const bad = await importAnnotationsFile(h.db, {
      format: "symtrace.annotations/v1",
      cases: [{ caseId: C4, initial: [initial("p1"), initial("p2")], final: { ...initial("p2"), annotator: "p2" } }],
    });
    expect(bad.failed).toEqual([{ caseId: C4, errors: [{ path: "$.cases[0].final.annotator", message: expect.stringMatching(/another person must adjudicate/) }] }]);
    expect(bad.imported.cases).toBe(0);

    const r = await importAnnotationsFile(
      h.db,
      {
        format: "symtrace.annotations/v1",
        adjudicator: "Judge Dredd",
        note: "unknown top-level key",
        cases: [{ caseId: C4, tags: ["x"], initial: [initial("p1", { extraKey: 1 }), initial("p2"), initial("p3", { confidence: "low" })], final: { ...initial("x"), annotator: undefined } }],
      },
      { source: "unit.json" },
    );
    expect(r).toMatchObject({ imported: { cases: 1, initial: 3, final: 1 }, failed: [], accountsCreated: ["p1", "p2", "p3", "Judge Dredd"] });
    const c = await h.db.case.findUniqueOrThrow({ where: { bundleId: C4 } });
    const fin = await h.db.annotation.findUniqueOrThrow({ where: { id: c.finalAnnotationId! }, include: { user: true, evidence: true } });
    expect(fin.user).toMatchObject({ name: "Judge Dredd", email: "judge-dredd@imported.symtrace.local", roles: "adjudicator" });
    expect(fin.confidence).toBeNull();
    expect(fin.rationale).toBe("");
    expect(JSON.parse(fin.relationJson!)).toEqual({ pattern: "unanimous", kept: "kept_unanimous", supportedBy: 3, setEqualsUnion: true, added: [], removed: [] });
    const audits = await h.db.auditEvent.findMany({ where: { caseId: c.id, action: { in: ["annotation.import", "final.import"] } } });
    expect(audits).toHaveLength(4);
    expect(audits.every((a) => JSON.parse(a.dataJson).source === "unit.json")).toBe(true);

    const file = await exportAnnotations(h.db, { bundleId: C4 });
    expect(file.cases[0].initial).toHaveLength(3);
    expect(file.cases[0].final).toMatchObject({ adjudicator: "Judge Dredd", primary: "C4" });
    const again = await importAnnotationsFile(h.db, file);
    expect(again).toMatchObject({ imported: { cases: 0, initial: 0, final: 0 }, updated: 0, skipped: 4, failed: [] });
  });

  test("the proposed correction is imported, exported and compared (a changed correction updates; the agreement reader accepts the file)", async () => {
    const C1 = "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000";
    const ann = (annotator: string, correction?: string) => ({
      annotator,
      categories: ["C1"],
      primary: "C1",
      nodeId: "final_result",
      nodeType: "final_result",
      rationale: "browses again instead of answering",
      evidence: [{ nodeId: "tool_result_0001", quote: "Potash Markets - Clark Street" }],
      ...(correction === undefined ? {} : { correction }),
    });
    const file = { format: "symtrace.annotations/v1", cases: [{ caseId: C1, initial: [ann("q1", "Answer: Potash Markets - Clark Street"), ann("q2"), ann("q3", "")], final: null }] };
    expect(await importAnnotationsFile(h.db, file)).toMatchObject({ imported: { initial: 3 }, failed: [] });
    const rows = await h.db.annotation.findMany({ where: { case: { bundleId: C1 } }, include: { user: true } });
    expect(Object.fromEntries(rows.map((r) => [r.user.name, r.correction]))).toEqual({ q1: "Answer: Potash Markets - Clark Street", q2: null, q3: null });
    const out = await exportAnnotations(h.db, { bundleId: C1 });
    expect(out.cases[0].initial.map((a) => a.correction ?? null)).toEqual(["Answer: Potash Markets - Clark Street", null, null]);
    const { validateAnnotations } = await import("../agreement/annotations");
    expect(validateAnnotations(JSON.parse(JSON.stringify(out)))).toMatchObject({ ok: true });
    expect(await importAnnotationsFile(h.db, out)).toMatchObject({ skipped: 3, updated: 0 });
    out.cases[0].initial[1].correction = "Reply with the store name.";
    expect(await importAnnotationsFile(h.db, out)).toMatchObject({ imported: { initial: 1 }, updated: 1, skipped: 2 });
  });
});
