/**
 * The import page's route (app/api/import) and service (import-upload): one uploaded file per
 * request, imported by the same importPaths the CLI uses, so counts and error paths match the
 * CLI's; roles checked on the server; a size limit answered 413. The session is the real
 * lib/session over a stubbed better-auth lookup; the database is a fresh test database.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { DbHandle } from "../db/client";
import { freshTestDb } from "../db/test-db";
import { importPaths } from "./import-files";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");

let h: DbHandle;
const users: Record<string, { id: string; email: string; name: string; roles: string }> = {};

vi.mock("../db", async (orig) => ({ ...(await orig<typeof import("../db")>()), getDb: () => h.db }));
vi.mock("../auth", () => ({
  getAuth: () => ({
    api: {
      getSession: async ({ headers }: { headers: Headers }) => {
        const u = users[headers.get("x-test-user") ?? ""];
        return u ? { user: u, session: {} } : null;
      },
    },
  }),
}));

const { POST } = await import("../../app/api/import/route");

/** A copy of gold-c1 under a fresh id, as text; `mutate` may break it. */
function goldText(id: string, mutate?: (b: Record<string, unknown>) => void): string {
  const b = JSON.parse(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c1.bundle.json"), "utf8")) as Record<string, unknown>;
  b.id = id;
  mutate?.(b);
  return JSON.stringify(b, null, 2);
}

function upload(user: string | null, name: string, text: string, query = "") {
  const headers: Record<string, string> = { "content-type": "application/octet-stream" };
  if (user) headers["x-test-user"] = user;
  return POST(new Request(`http://localhost/api/import?name=${encodeURIComponent(name)}${query}`, { method: "POST", headers, body: text }));
}

beforeAll(async () => {
  h = await freshTestDb();
  for (const [key, roles] of [["researcher", "researcher"], ["admin", "admin"], ["annotator", "annotator,adjudicator"]] as const) {
    const u = await h.db.user.create({ data: { email: `${key}@t.test`, name: key, roles } });
    users[key] = { id: u.id, email: u.email, name: u.name, roles };
  }
});
afterAll(async () => {
  await h.db.$disconnect();
});

describe(`POST /api/import (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  const goodId = `upload/${randomUUID()}`;

  test("a valid bundle is imported, audited as the uploader, and its case is listed", async () => {
    const res = await upload("researcher", "good.bundle.json", goldText(goodId));
    expect(res.status).toBe(200);
    const r = await res.json();
    expect(r).toMatchObject({ file: "good.bundle.json", imported: 1, skipped: 0, replaced: 0, failed: [], ignored: [] });
    expect(r.cases).toHaveLength(1);
    expect(r.cases[0]).toMatchObject({ bundleId: goodId, status: "imported" });
    const c = await h.db.case.findUniqueOrThrow({ where: { bundleId: goodId } });
    expect(c.id).toBe(r.cases[0].caseId);
    expect(await h.db.node.count({ where: { caseId: c.id } })).toBe(12);
    expect(await h.db.auditEvent.count({ where: { caseId: c.id, action: "case.import", actorId: users.researcher.id } })).toBe(1);
  });

  test("re-uploading the same file is skipped, nothing duplicated", async () => {
    const nodes = await h.db.node.count();
    const r = await (await upload("admin", "good.bundle.json", goldText(goodId))).json();
    expect(r).toMatchObject({ imported: 0, skipped: 1, replaced: 0, failed: [] });
    expect(r.cases[0]).toMatchObject({ bundleId: goodId, status: "skipped" });
    expect(await h.db.case.count({ where: { bundleId: goodId } })).toBe(1);
    expect(await h.db.node.count()).toBe(nodes);
  });

  test("an invalid file fails with the CLI's JSON paths and writes nothing", async () => {
    const badId = `upload/${randomUUID()}`;
    const text = goldText(badId, (b) => {
      ((b.graph as { nodes: Array<Record<string, unknown>> }).nodes[3] as Record<string, unknown>).type = "teleport";
    });
    const before = { cases: await h.db.case.count(), nodes: await h.db.node.count(), audit: await h.db.auditEvent.count() };
    const res = await upload("researcher", "bad.json", text);
    expect(res.status).toBe(200);
    const r = await res.json();
    expect(r).toMatchObject({ file: "bad.json", imported: 0, skipped: 0, replaced: 0, cases: [] });
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0].file).toBe("bad.json");
    expect(r.failed[0].errors.map((e: { path: string }) => e.path)).toContain("$.graph.nodes[3].type");
    // exactly what `symtrace import bad.json` reports (same service, same file name)
    const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-cli-"));
    writeFileSync(path.join(dir, "bad.json"), text);
    const cli = await importPaths(h.db, [path.join(dir, "bad.json")]);
    expect(r.failed[0].errors).toEqual(cli.failed[0].errors);
    expect(await h.db.case.count({ where: { bundleId: badId } })).toBe(0);
    expect({ cases: await h.db.case.count(), nodes: await h.db.node.count(), audit: await h.db.auditEvent.count() }).toEqual(before);
  });

  test("text that is not JSON fails at $ with the parser's position", async () => {
    const r = await (await upload("researcher", "broken.json", '{"format": "symtrace.bundle/v1", "id": ')).json();
    expect(r.imported).toBe(0);
    expect(r.failed[0].file).toBe("broken.json");
    expect(r.failed[0].errors[0].path).toBe("$");
  });

  test("--format is honoured: a bundle forced through the Who&When importer fails there", async () => {
    const r = await (await upload("researcher", "forced.json", goldText(`upload/${randomUUID()}`), "&format=whowhen")).json();
    expect(r.imported).toBe(0);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0].file).toMatch(/^forced\.json/);
  });

  test("annotators get 403, signed-out requests 401, and nothing is written", async () => {
    const id = `upload/${randomUUID()}`;
    const forbidden = await upload("annotator", "x.json", goldText(id));
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error).toMatch(/researcher or admin/);
    expect((await upload(null, "x.json", goldText(id))).status).toBe(401);
    expect(await h.db.case.count({ where: { bundleId: id } })).toBe(0);
  });

  test("a file over SYMTRACE_IMPORT_MAX_BYTES is refused with 413 naming the limit, nothing written", async () => {
    const id = `upload/${randomUUID()}`;
    const text = goldText(id);
    process.env.SYMTRACE_IMPORT_MAX_BYTES = "1000";
    try {
      const res = await upload("researcher", "big.json", text);
      expect(res.status).toBe(413);
      const body = await res.json();
      expect(body.error).toContain("big.json");
      expect(body.error).toContain("1000 bytes");
      expect(body.error).toContain("SYMTRACE_IMPORT_MAX_BYTES");
      // no Content-Length (a streamed body): counted while spooling
      const stream = new Request("http://localhost/x", { method: "POST", body: text }).body!;
      const res2 = await POST(
        new Request("http://localhost/api/import?name=big.json", { method: "POST", headers: { "content-type": "application/octet-stream", "x-test-user": "researcher" }, body: stream, duplex: "half" } as RequestInit),
      );
      expect(res2.status).toBe(413);
    } finally {
      delete process.env.SYMTRACE_IMPORT_MAX_BYTES;
    }
    expect(await h.db.case.count({ where: { bundleId: id } })).toBe(0);
  });

  test("a missing file name or a form post is a 400/415, not an import", async () => {
    const noName = await POST(new Request("http://localhost/api/import", { method: "POST", headers: { "content-type": "application/octet-stream", "x-test-user": "researcher" }, body: "{}" }));
    expect(noName.status).toBe(400);
    expect((await noName.json()).error).toMatch(/name/);
    const form = await POST(new Request("http://localhost/api/import?name=a.json", { method: "POST", headers: { "content-type": "text/plain", "x-test-user": "researcher" }, body: "{}" }));
    expect(form.status).toBe(415);
  });

  test("the file name is reduced to a base name (no directories) in the report", async () => {
    const r = await (await upload("researcher", "../../etc/evil.json", "not json")).json();
    expect(r.file).toBe("evil.json");
    expect(r.failed[0].file).toBe("evil.json");
  });
});
