/**
 * POST /api/admin/assign (app/api/admin/assign/route.ts) called as Next.js calls it, signed in as
 * a real admin (lib/testing/session.ts): an unknown case id answers 404 naming the id, and nothing
 * is assigned — also when it comes with known ones (issue 20 item 12; it was a 500).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { importCase, type Db } from "../db";
import { freshTestDb } from "../db/test-db";
import { signedInUser } from "../testing/session";

type H = { POST(req: Request): Promise<Response> };
let db: Db;
let route: H;
let caseId: string;
let admin: { cookie: string };
let annotators: Array<{ id: string }>;

beforeAll(async () => {
  const h = await freshTestDb();
  process.env.DATABASE_URL = h.url; // getDb() of the route module opens this database
  db = h.db;
  caseId = (await importCase(db, { bundle: syntheticBundle({ id: "assign-api", turns: 2 }) })).caseId;
  admin = await signedInUser(db, ["admin"]);
  annotators = [await signedInUser(db, ["annotator"]), await signedInUser(db, ["annotator"])];
  route = (await import("../../app/api/admin/assign/route")) as H;
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
});

const post = (body: unknown) => route.POST(new Request("http://app.test/api/admin/assign", { method: "POST", headers: { "content-type": "application/json", cookie: admin.cookie }, body: JSON.stringify(body) }));

describe("POST /api/admin/assign", () => {
  test("an unknown case id: 404 naming the id, nothing assigned (alone or beside a known case); a known id: 200", async () => {
    const alone = await post({ caseIds: ["no-such-case-1"], annotatorIds: annotators.map((a) => a.id) });
    expect(alone.status).toBe(404);
    const body = (await alone.json()) as { error: string; fieldErrors: Array<{ field: string; message: string }> };
    expect(body.error).toContain('"no-such-case-1"');
    expect(body.fieldErrors).toEqual([{ field: "caseIds", message: 'unknown case id "no-such-case-1"' }]);

    const mixed = await post({ caseIds: [caseId, "no-such-case-2", "no-such-case-3"], annotatorIds: annotators.map((a) => a.id) });
    expect(mixed.status).toBe(404);
    expect(((await mixed.json()) as { error: string }).error).toMatch(/"no-such-case-2", "no-such-case-3"/);
    expect(await db.assignment.count()).toBe(0);

    const ok = await post({ caseIds: [caseId], annotatorIds: annotators.map((a) => a.id) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { assigned: Array<{ caseId: string; annotators: string[] }> }).assigned).toEqual([{ caseId, annotators: annotators.map((a) => a.id), adjudicator: null }]);
    expect(await db.assignment.count({ where: { caseId } })).toBe(2);
  });
});
