/**
 * The repair-search API route handlers (app/api/repair-searches/**) called as Next.js calls them,
 * with real sessions: each role signs in through better-auth (lib/testing/session.ts) and the
 * request carries its session cookie, so the 401/403 come from the product's lib/session (no
 * mock). No worker runs (SYMTRACE_EMBEDDED_WORKER=0): the searches stay queued; nothing calls a
 * model.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../../bundle";
import { importCase, type Db } from "../../db";
import { freshTestDb } from "../../db/test-db";
import { signedInUser } from "../../testing/session";

type H = { GET?(req: Request, ctx?: unknown): Promise<Response>; POST?(req: Request, ctx?: unknown): Promise<Response> };
let db: Db;
let caseId: string;
let list: H, one: H, cancel: H;
const users: Record<string, { id: string; cookie: string }> = {};
const ENV = ["SYMTRACE_REPLAY_UPSTREAM", "SYMTRACE_SEARCH_JUDGE_CMD", "SYMTRACE_REPLAY_EVALUATOR", "SYMTRACE_EMBEDDED_WORKER"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  const h = await freshTestDb();
  process.env.DATABASE_URL = h.url; // getDb() of the route modules opens this database
  process.env.SYMTRACE_EMBEDDED_WORKER = "0";
  db = h.db;
  caseId = (await importCase(db, { bundle: syntheticBundle({ id: "rs-api", turns: 2 }) })).caseId;
  for (const role of ["researcher", "admin", "annotator"] as const) users[role] = await signedInUser(db, [role]);
  list = (await import("../../../app/api/repair-searches/route")) as H;
  one = (await import("../../../app/api/repair-searches/[id]/route")) as H;
  cancel = (await import("../../../app/api/repair-searches/[id]/cancel/route")) as H;
}, 120_000);
afterAll(async () => {
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
  await db?.$disconnect();
});

/** A request as `role`'s browser sends it (its session cookie), or signed out (null), or with a forged cookie ("forged"). */
const req = (url: string, role: string | null, body?: unknown) =>
  new Request(`http://app.test${url}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(role === "forged" ? { cookie: "better-auth.session_token=forged.token" } : role ? { cookie: users[role].cookie } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const params = (id: string) => ({ params: Promise.resolve({ id }) });

describe("repair-search API", () => {
  test("POST needs a researcher/admin and a configured endpoint; freezes the server's settings with the request's search parameters; GET list/one; cancel", async () => {
    delete process.env.SYMTRACE_REPLAY_UPSTREAM;
    const signedOut = await list.POST!(req("/api/repair-searches", null, { sourceCaseId: caseId }));
    expect(signedOut.status).toBe(401);
    expect(await signedOut.json()).toEqual({ error: "sign in first" });
    expect((await list.GET!(req("/api/repair-searches", "forged"))).status).toBe(401);
    expect((await list.POST!(req("/api/repair-searches", "annotator", { sourceCaseId: caseId }))).status).toBe(403);
    expect((await list.GET!(req("/api/repair-searches", "annotator"))).status).toBe(403);
    const noEndpoint = await list.POST!(req("/api/repair-searches", "researcher", { sourceCaseId: caseId }));
    expect(noEndpoint.status).toBe(503);
    expect(((await noEndpoint.json()) as { error: string }).error).toMatch(/SYMTRACE_REPLAY_UPSTREAM/);

    process.env.SYMTRACE_REPLAY_UPSTREAM = "http://127.0.0.1:9/v1";
    process.env.SYMTRACE_SEARCH_JUDGE_CMD = "node judge.mjs";
    process.env.SYMTRACE_REPLAY_EVALUATOR = "node eval.mjs";
    const bad = await list.POST!(req("/api/repair-searches", "researcher", { sourceCaseId: caseId, iterations: 0 }));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("iterations");
    // a command or an endpoint in the request is not a field: ignored, never frozen
    const created = await list.POST!(req("/api/repair-searches", "researcher", { sourceCaseId: caseId, iterations: 12, k: 2, seed: 9, maxCalls: 100, command: ["rm", "-rf", "/"], upstream: "http://evil/v1" }));
    expect(created.status).toBe(201);
    const { search } = (await created.json()) as { search: { id: string; status: string; sourceBundleId: string; settings: Record<string, unknown> & { search: Record<string, unknown> }; nodeCases: Record<string, string> } };
    expect(search).toMatchObject({ status: "queued", sourceBundleId: "rs-api", nodeCases: { n0: caseId } });
    expect(search.settings).toMatchObject({
      upstream: "http://127.0.0.1:9/v1",
      judge: { kind: "command", cmd: "node judge.mjs" },
      evaluator: "node eval.mjs",
      selector: { upstream: "http://127.0.0.1:9/v1", model: "gpt-4o-mini" },
      seed: 9,
      maxCalls: 100,
      command: null,
      search: { iterations: 12, k: 2, l: 4, c: 1.41, maxDepth: 8, budget: { maxCalls: 100, maxTokens: null } },
    });
    expect((await list.POST!(req("/api/repair-searches", "admin", { sourceCaseId: "nope" }))).status).toBe(404);
    expect(await db.auditEvent.count({ where: { action: "repair-search.create", entityId: search.id, actorId: users.researcher.id } })).toBe(1);

    const l = (await (await list.GET!(req(`/api/repair-searches?caseId=${caseId}`, "admin"))).json()) as { searches: Array<{ id: string }> };
    expect(l.searches.map((s) => s.id)).toEqual([search.id]);
    const g = await one.GET!(req(`/api/repair-searches/${search.id}`, "researcher"), params(search.id));
    expect(((await g.json()) as { search: { id: string } }).search.id).toBe(search.id);
    expect((await one.GET!(req("/api/repair-searches/nope", "researcher"), params("nope"))).status).toBe(404);

    expect((await cancel.POST!(req(`/api/repair-searches/${search.id}/cancel`, "annotator", {}), params(search.id))).status).toBe(403);
    const c = await cancel.POST!(req(`/api/repair-searches/${search.id}/cancel`, "researcher", {}), params(search.id));
    expect(((await c.json()) as { search: { status: string } }).search.status).toBe("cancelled");
    expect((await cancel.POST!(req("/api/repair-searches/nope/cancel", "researcher", {}), params("nope"))).status).toBe(404);

    // the case by its bundle id, as the CLI's --case takes it (issue 22 item 9): the same source case
    expect(caseId).not.toBe("rs-api");
    const byBundle = await list.POST!(req("/api/repair-searches", "researcher", { sourceCaseId: "rs-api", iterations: 3 }));
    expect(byBundle.status).toBe(201);
    const viaBundle = ((await byBundle.json()) as { search: { id: string; sourceCaseId: string; sourceBundleId: string; nodeCases: Record<string, string> } }).search;
    expect(viaBundle).toMatchObject({ sourceCaseId: caseId, sourceBundleId: "rs-api", nodeCases: { n0: caseId } });
    const nope = await list.POST!(req("/api/repair-searches", "researcher", { sourceCaseId: "rs-api-nope" }));
    expect(nope.status).toBe(404);
    expect(JSON.stringify(await nope.json())).toContain("rs-api-nope");
  });

  test("a researcher who also annotates, with an assignment not yet submitted: 403 naming the open assignments on every route, POST included, nothing created; open after the assignment is submitted", async () => {
    process.env.SYMTRACE_REPLAY_UPSTREAM = "http://127.0.0.1:9/v1";
    process.env.SYMTRACE_SEARCH_JUDGE_CMD = "node judge.mjs";
    process.env.SYMTRACE_REPLAY_EVALUATOR = "node eval.mjs";
    users.both = await signedInUser(db, ["researcher", "annotator"]);
    const other = (await importCase(db, { bundle: syntheticBundle({ id: "rs-api-blind", turns: 2 }) })).caseId;
    await db.assignment.create({ data: { caseId: other, userId: users.both.id, role: "annotator" } });
    const search = (await db.repairSearch.findFirstOrThrow({ select: { id: true } })).id;
    const before = await db.repairSearch.count();
    const error = "Repair searches are hidden while you have unsubmitted annotations of your own (1 open annotator assignment)";
    for (const r of [
      await list.GET!(req(`/api/repair-searches?caseId=${caseId}`, "both")),
      await list.POST!(req("/api/repair-searches", "both", { sourceCaseId: caseId })),
      await one.GET!(req(`/api/repair-searches/${search}`, "both"), params(search)),
      await cancel.POST!(req(`/api/repair-searches/${search}/cancel`, "both", {}), params(search)),
    ]) {
      expect(r.status).toBe(403);
      expect(await r.json()).toEqual({ error, openOwn: 1 });
    }
    expect(await db.repairSearch.count()).toBe(before);
    await db.assignment.updateMany({ where: { userId: users.both.id }, data: { status: "submitted" } });
    const l = await list.GET!(req(`/api/repair-searches?caseId=${caseId}`, "both"));
    expect(l.status).toBe(200);
    expect(((await l.json()) as { searches: unknown[] }).searches.length).toBeGreaterThan(0);
  });
});
