import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test, vi } from "vitest";
import { validateAnnotations } from "../lib/agreement/annotations";
import { openDb } from "../lib/db";
import { runSymtraceHere, spawnSymtrace } from "../lib/testing/cli";

vi.setConfig({ testTimeout: 300_000 });

const ROOT = path.resolve(import.meta.dirname, "..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const BUNDLES = path.join(SHARED, "fixtures/bundles");
const GOLD_ANNOTATIONS = path.join(BUNDLES, "gold-annotations.json");
const SYNTHETIC_60 = path.join(SHARED, "fixtures/agreement/synthetic-60.annotations.json");
const C2 = "ag2/webarena_verified_hard_267/attempt_000";
const C3 = "ag2/webarena_verified_hard_320/attempt_000";

type Json = Record<string, unknown>;
type Failed = Array<{ caseId: string | null; errors: Array<{ path: string; message: string }>; conflict?: boolean }>;

function tmp(): string {
  return mkdtempSync(path.join(os.tmpdir(), "symtrace-ann-cli-"));
}

function newDb(): string {
  return "file:" + path.join(tmp(), "cli.db");
}

/**
 * One command in this process (lib/testing/cli.ts runSymtraceHere: same dispatcher, output and
 * exit codes as the `symtrace` process); `spawned` runs the real process, for the checks about the
 * process itself (exit status, no stack trace on stderr).
 */
async function cli(args: string[], dbUrl: string, o: { spawned?: boolean } = {}) {
  const r = o.spawned ? spawnSymtrace(args, dbUrl) : await runSymtraceHere(args, dbUrl);
  let json: Json | null = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  // never a stack trace
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

async function withDb<T>(url: string, fn: (db: ReturnType<typeof openDb>["db"]) => Promise<T>): Promise<T> {
  const { db } = openDb(url);
  try {
    return await fn(db);
  } finally {
    await db.$disconnect();
  }
}

function writeJson(value: unknown): string {
  const f = path.join(tmp(), "annotations.json");
  writeFileSync(f, JSON.stringify(value, null, 2));
  return f;
}

const ann = (annotator: string, over: Json = {}) => ({
  annotator,
  categories: ["C2", "C3"],
  primary: "C2",
  nodeId: "tool_result_0002",
  nodeType: "tool_result",
  confidence: "high",
  rationale: "The same page is requested again after the coordinate query came back empty.",
  evidence: [{ nodeId: "tool_call_0002", quote: "https://en.wikipedia.org/wiki/Stephen_King" }],
  ...over,
});

/** Three initials and a final for gold-c2, and (optionally) gold-c3 with a 2-1 split. */
function validFile(): Json {
  return {
    format: "symtrace.annotations/v1",
    about: "test",
    cases: [
      {
        caseId: C2,
        initial: [ann("ann-a"), ann("ann-b"), ann("ann-c", { categories: ["C2"], primary: "C2", confidence: "medium" })],
        final: { ...ann("adj-x"), annotator: undefined, adjudicator: "adj-x" },
      },
      {
        caseId: C3,
        initial: [
          ann("ann-a", { categories: ["C3"], primary: "C3", nodeId: "tool_result_0000", evidence: [{ nodeId: "tool_result_0000", quote: "MissingSchema" }] }),
          ann("ann-b", { categories: ["C3"], primary: "C3", nodeId: "tool_result_0000", evidence: [] }),
          // no confidence, no rationale: tolerated on import
          { annotator: "ann-c", categories: ["C4"], primary: "C4", nodeId: "final_result", nodeType: "final_result" },
        ],
        final: null,
      },
    ],
  };
}

describe("symtrace user", () => {
  test("add, update, list; bad role and short password are exit 1 with the option's path", async () => {
    const db = newDb();
    const a = (await cli(["user", "add", "Alice@Example.org", "--role", "annotator,adjudicator", "--password", "correct-horse", "--name", "Alice"], db));
    expect(a.code).toBe(0);
    expect(a.json).toMatchObject({ ok: true, status: "created", user: { email: "alice@example.org", roles: ["annotator", "adjudicator"] } });
    const id = (a.json?.user as { id: string }).id;
    const b = (await cli(["user", "add", "alice@example.org", "--role", "researcher"], db));
    expect(b.json).toEqual({ ok: true, user: { id, email: "alice@example.org", roles: ["researcher"] }, status: "updated" });

    const bad = (await cli(["user", "add", "bob@example.org", "--role", "annotator,boss"], db));
    expect(bad.code).toBe(1);
    expect(bad.json?.ok).toBe(false);
    expect((bad.json?.errors as Json[])[0]).toMatchObject({ path: "--role", message: expect.stringMatching(/admin, annotator, adjudicator, researcher/) });
    const short = (await cli(["user", "add", "bob@example.org", "--role", "annotator", "--password", "short"], db));
    expect(short.code).toBe(1);
    expect((short.json?.errors as Json[])[0]).toMatchObject({ path: "--password", message: expect.stringMatching(/at least 8/) });
    const noRole = (await cli(["user", "add", "bob@example.org"], db));
    expect(noRole.code).toBe(1);
    expect((noRole.json?.errors as Json[])[0]).toMatchObject({ path: "--role" });
    const badEmail = (await cli(["user", "add", "not-an-email", "--role", "admin"], db));
    expect(badEmail.code).toBe(1);
    expect((badEmail.json?.errors as Json[])[0]).toMatchObject({ path: "<email>" });

    const l = (await cli(["user", "list"], db));
    expect(l.code).toBe(0);
    expect(l.json).toEqual({ users: [{ id, email: "alice@example.org", name: "Alice", roles: ["researcher"] }] });
    expect((await cli(["user", "frobnicate"], db)).code).toBe(2);
  });
});

describe("symtrace annotations import", () => {
  test("gold-annotations.json after the four gold bundles: 4 finals, cases finalized, relation stored", async () => {
    const db = newDb();
    expect((await cli(["import", BUNDLES], db)).json).toMatchObject({ imported: 4, failed: [] });
    const r = (await cli(["annotations", "import", GOLD_ANNOTATIONS], db));
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ imported: { cases: 4, initial: 0, final: 4 }, updated: 0, skipped: 0, failed: [], accountsCreated: ["imported-adjudicator"] });
    await withDb(db, async (d) => {
      const cases = await d.case.findMany({ include: { annotations: { include: { evidence: true } } } });
      expect(cases).toHaveLength(4);
      for (const c of cases) {
        expect(c.finalAnnotationId).toBeTruthy();
        expect(c.finalizedAt).toBeInstanceOf(Date);
        const f = c.annotations.find((a) => a.id === c.finalAnnotationId)!;
        expect(f).toMatchObject({ kind: "final", status: "submitted", version: 1 });
        expect(c.finalizedById).toBe(f.userId);
        expect(JSON.parse(f.relationJson!)).toMatchObject({ supportedBy: 0, kept: "new_tuple" });
        expect(f.evidence.length).toBeGreaterThan(0);
      }
      const c2 = cases.find((c) => c.bundleId === C2)!;
      expect(c2.annotations[0]).toMatchObject({ categories: "C2,C3", primary: "C2", nodeId: "tool_result_0002", nodeType: "tool_result", confidence: "high" });
      expect(await d.auditEvent.count({ where: { action: "final.import" } })).toBe(4);
      const ev = await d.auditEvent.findFirst({ where: { action: "final.import" } });
      expect(JSON.parse(ev!.dataJson)).toMatchObject({ source: "gold-annotations.json" });
      const adj = await d.user.findFirst({ where: { name: "imported-adjudicator" } });
      expect(adj?.roles).toBe("adjudicator");
    });
  });

  test("synthetic-60 into a database without its cases: all 60 fail as unknown cases, exit 1", async () => {
    const db = newDb();
    const r = (await cli(["annotations", "import", SYNTHETIC_60], db));
    expect(r.code).toBe(1);
    expect(r.json?.imported).toEqual({ cases: 0, initial: 0, final: 0 });
    const failed = r.json?.failed as Failed;
    expect(failed).toHaveLength(60);
    failed.forEach((f, i) => {
      expect(f.errors).toEqual([{ path: `$.cases[${i}].caseId`, message: expect.stringMatching(new RegExp(`no imported case has bundle id "${f.caseId}": import its bundle first`)) }]);
    });
    expect(r.json?.accountsCreated).toEqual([]);
  });

  test("invalid annotations: every error with its path; nothing of that case written; other cases imported", async () => {
    const db = newDb();
    (await cli(["import", BUNDLES], db));
    const file = validFile();
    (file.cases as Json[])[1] = {
      caseId: C3,
      initial: [
        ann("bad-1", { categories: ["C3"], primary: "C4", nodeId: "tool_result_0000", evidence: [] }), // primary not in categories
        ann("bad-2", { nodeId: "no_such_node", evidence: [] }), // node not in graph
        ann("bad-3", { nodeId: "tool_call_0000", nodeType: "tool_result", evidence: [] }), // node type mismatch
        ann("bad-4", { categories: ["C3"], primary: "C3", nodeId: "tool_result_0000", evidence: [{ nodeId: "tool_result_0000", quote: "this text is not in the node" }] }),
        ann("bad-5", { categories: ["C5"], primary: "C3", nodeId: "tool_result_0000", evidence: [] }), // schema error
      ],
      final: { categories: ["C3"], primary: "C3", nodeId: "tool_result_0000", nodeType: "tool_result", evidence: [{ nodeId: "nowhere", quote: "x" }] },
    };
    const r = (await cli(["annotations", "import", writeJson(file)], db));
    expect(r.code).toBe(1);
    expect(r.json?.imported).toEqual({ cases: 1, initial: 3, final: 1 });
    const failed = r.json?.failed as Failed;
    expect(failed).toHaveLength(1);
    expect(failed[0].caseId).toBe(C3);
    const paths = failed[0].errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "$.cases[1].initial[0].primary",
        "$.cases[1].initial[1].nodeId",
        "$.cases[1].initial[2].nodeType",
        "$.cases[1].initial[3].evidence[0].quote",
        "$.cases[1].initial[4].categories[0]",
        "$.cases[1].final.evidence[0].nodeId",
      ]),
    );
    expect(failed[0].errors.find((e) => e.path.endsWith("initial[0].primary"))?.message).toMatch(/must be one of the chosen categories/);
    expect(failed[0].errors.find((e) => e.path.endsWith("initial[1].nodeId"))?.message).toMatch(/"no_such_node" is not in this case's graph/);
    expect(failed[0].errors.find((e) => e.path.endsWith("initial[2].nodeType"))?.message).toMatch(/does not match the graph/);
    expect(failed[0].errors.find((e) => e.path.endsWith("evidence[0].quote"))?.message).toMatch(/not found in node "tool_result_0000"/);
    // missing confidence/rationale are never reported for imports
    expect(paths.some((p) => /confidence|rationale/.test(p))).toBe(false);
    await withDb(db, async (d) => {
      const c3 = await d.case.findUniqueOrThrow({ where: { bundleId: C3 } });
      expect(await d.annotation.count({ where: { caseId: c3.id } })).toBe(0);
      expect(await d.assignment.count({ where: { caseId: c3.id } })).toBe(0);
      expect(c3.finalAnnotationId).toBeNull();
      expect(await d.user.count({ where: { name: { startsWith: "bad-" } } })).toBe(0);
      const c2 = await d.case.findUniqueOrThrow({ where: { bundleId: C2 } });
      expect(await d.annotation.count({ where: { caseId: c2.id, kind: "initial", status: "submitted" } })).toBe(3);
      expect(await d.assignment.count({ where: { caseId: c2.id, role: "annotator", status: "submitted" } })).toBe(3);
      expect(c2.finalAnnotationId).toBeTruthy();
    });
  });

  test("a file that is not symtrace.annotations/v1, or not JSON: exit 1, clear error", async () => {
    const db = newDb();
    const r = (await cli(["annotations", "import", writeJson({ format: "other", cases: {} })], db));
    expect(r.code).toBe(1);
    expect(r.json?.ok).toBe(false);
    expect((r.json?.errors as Json[]).map((e) => e.path).sort()).toEqual(["$.cases", "$.format"]);
    const f = path.join(tmp(), "x.json");
    writeFileSync(f, "{ nope");
    // as a process: exit status 1, one JSON error, no stack trace on stdout or stderr
    const n = await cli(["annotations", "import", f], db, { spawned: true });
    expect(n.code).toBe(1);
    expect((n.json?.errors as Json[])[0].message).toMatch(/not JSON: .*line \d+/);
    expect((await cli(["annotations", "import"], db, { spawned: true })).code).toBe(2);
  });

  test("re-import is idempotent; a changed annotation is updated in place; a different final by another adjudicator is a conflict", async () => {
    const db = newDb();
    (await cli(["import", BUNDLES], db));
    const file = validFile();
    const f1 = writeJson(file);
    const r1 = (await cli(["annotations", "import", f1], db));
    expect(r1.code).toBe(0);
    expect(r1.json).toEqual({ imported: { cases: 2, initial: 6, final: 1 }, updated: 0, skipped: 0, failed: [], accountsCreated: ["ann-a", "ann-b", "ann-c", "adj-x"] });
    const r2 = (await cli(["annotations", "import", f1], db));
    expect(r2.code).toBe(0);
    expect(r2.json).toEqual({ imported: { cases: 0, initial: 0, final: 0 }, updated: 0, skipped: 7, failed: [], accountsCreated: [] });

    // change one initial of C2: it is updated, and the final's relation recomputed
    const cases = file.cases as Array<{ initial: Json[]; final: Json | null }>;
    cases[0].initial[2] = ann("ann-c");
    const r3 = (await cli(["annotations", "import", writeJson(file)], db));
    expect(r3.json).toMatchObject({ imported: { cases: 1, initial: 1, final: 1 }, updated: 2, skipped: 5, failed: [] });
    await withDb(db, async (d) => {
      const c2 = await d.case.findUniqueOrThrow({ where: { bundleId: C2 } });
      const fin = await d.annotation.findUniqueOrThrow({ where: { id: c2.finalAnnotationId! } });
      expect(JSON.parse(fin.relationJson!)).toMatchObject({ pattern: "unanimous", kept: "kept_unanimous", supportedBy: 3 });
      const annC = await d.annotation.findFirstOrThrow({ where: { caseId: c2.id, user: { name: "ann-c" } } });
      expect(annC).toMatchObject({ categories: "C2,C3", confidence: "high", version: 2 });
      expect(await d.annotation.count({ where: { caseId: c2.id } })).toBe(4);
      expect(await d.auditEvent.count({ where: { caseId: c2.id, action: "annotation.import" } })).toBe(4);
    });

    // another adjudicator with a different final: conflict, the case is left as it is
    cases[0].final = { ...ann("x"), annotator: "adj-y", categories: ["C3"], primary: "C3" };
    cases[0].initial[0] = ann("ann-a", { confidence: "low" });
    const r4 = (await cli(["annotations", "import", writeJson(file)], db));
    expect(r4.code).toBe(1);
    const failed = r4.json?.failed as Failed;
    expect(failed).toEqual([{ caseId: C2, conflict: true, errors: [{ path: "$.cases[0].final", message: expect.stringMatching(/already has a different final annotation by adj-x/) }] }]);
    await withDb(db, async (d) => {
      const c2 = await d.case.findUniqueOrThrow({ where: { bundleId: C2 }, include: { annotations: { include: { user: true } } } });
      expect(c2.annotations.find((a) => a.user.name === "ann-a")?.confidence).toBe("high");
      expect(c2.annotations.find((a) => a.id === c2.finalAnnotationId)?.user.name).toBe("adj-x");
      expect(await d.user.count({ where: { name: "adj-y" } })).toBe(0);
    });
  });
});

describe("symtrace annotations export", () => {
  test("export -> import into a fresh database with the same cases reproduces the same tuples", async () => {
    const db1 = newDb();
    (await cli(["import", BUNDLES], db1));
    expect((await cli(["annotations", "import", writeJson(validFile())], db1)).code).toBe(0);
    // the gold finals go to the two cases without one
    const gold = JSON.parse(readFileSync(GOLD_ANNOTATIONS, "utf8")) as { cases: Array<{ caseId: string }> };
    gold.cases = gold.cases.filter((c) => c.caseId !== C2);
    expect((await cli(["annotations", "import", writeJson(gold)], db1)).code).toBe(0);

    const out1 = path.join(tmp(), "sub", "a.json");
    const e1 = (await cli(["annotations", "export", "--out", out1], db1));
    expect(e1.code).toBe(0);
    expect(e1.json).toEqual({ exported: { cases: 4, initial: 6, final: 4 }, file: out1 });
    const exported = JSON.parse(readFileSync(out1, "utf8"));
    expect(validateAnnotations(exported)).toMatchObject({ ok: true }); // lib/agreement's strict reader accepts it
    const c3 = exported.cases.find((c: { caseId: string }) => c.caseId === C3);
    expect(c3.initial.map((a: Json) => a.annotator)).toEqual(["ann-a", "ann-b", "ann-c"]);
    expect(c3.initial[2]).toEqual({ annotator: "ann-c", categories: ["C4"], primary: "C4", nodeId: "final_result", nodeType: "final_result", rationale: "", evidence: [] });
    expect(c3.final).toMatchObject({ adjudicator: "imported-adjudicator", categories: ["C3", "C4"], primary: "C3" });

    const db2 = newDb();
    (await cli(["import", BUNDLES], db2));
    const r = (await cli(["annotations", "import", out1], db2));
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ imported: { cases: 4, initial: 6, final: 4 }, failed: [] });
    const out2 = path.join(tmp(), "b.json");
    (await cli(["annotations", "export", "--out", out2], db2));
    expect(JSON.parse(readFileSync(out2, "utf8"))).toEqual(exported);

    const tuples = async (url: string) =>
      withDb(url, async (d) =>
        (await d.annotation.findMany({ include: { case: true, user: true } }))
          .map((a) => [a.case.bundleId, a.user.name, a.kind, a.status, a.categories, a.primary, a.nodeId, a.nodeType, a.confidence, a.rationale, a.relationJson, a.case.finalAnnotationId === a.id].join("|"))
          .sort(),
      );
    expect(await tuples(db2)).toEqual(await tuples(db1));
  });

  test("--case and --submitted-only; unknown --case is exit 1", async () => {
    const db = newDb();
    (await cli(["import", BUNDLES], db));
    (await cli(["annotations", "import", writeJson(validFile())], db));
    const all = path.join(tmp(), "all.json");
    expect((await cli(["annotations", "export", "--out", all], db)).json).toMatchObject({ exported: { cases: 4, initial: 6, final: 1 } });
    const sub = path.join(tmp(), "sub.json");
    expect((await cli(["annotations", "export", "--out", sub, "--submitted-only"], db)).json).toMatchObject({ exported: { cases: 2, initial: 6, final: 1 } });
    const one = path.join(tmp(), "one.json");
    expect((await cli(["annotations", "export", "--out", one, "--case", C2], db)).json).toMatchObject({ exported: { cases: 1, initial: 3, final: 1 } });
    expect(JSON.parse(readFileSync(one, "utf8")).cases[0].caseId).toBe(C2);
    const bad = (await cli(["annotations", "export", "--out", one, "--case", "nope/nope"], db));
    expect(bad.code).toBe(1);
    expect((bad.json?.errors as Json[])[0]).toMatchObject({ path: "--case", message: expect.stringMatching(/no case with bundle id "nope\/nope"/) });
    expect((await cli(["annotations", "export"], db)).code).toBe(2);
  });
});
