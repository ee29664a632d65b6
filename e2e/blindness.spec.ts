/**
 * The annotation workflow at the API level (annotation-protocol.md; the issue's "Done when"):
 * 1. blindness, route by route: an annotator who has not submitted sees none of the other
 *    annotators' work, no reference answer and no reference labels, from any route; the gate
 *    opens only once they submit;
 * 2. invalid annotations are refused with field-level messages, and nothing is submitted;
 * 3. concurrency: two saves of one draft version (one wins, the other 409 with the saved copy,
 *    its fields kept in the audit trail) and two adjudicators finalizing at once (first wins).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { expect, request as pwRequest, test, type APIRequestContext, type APIResponse, type TestInfo } from "@playwright/test";
import type { AnnotationFields } from "../lib/annotation";
import type { ReplayBundle } from "../lib/bundle";
import { assign, createUser, goldCopy, seedBundle, signIn, type TestUser } from "./fixtures";

// ------------------------------------------------------------------ helpers

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../shared");
const GOLD = JSON.parse(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c2.bundle.json"), "utf8")) as ReplayBundle & {
  task: { reference?: unknown };
};
const NODE_IDS = GOLD.graph.nodes.map((n) => n.id);

/** Every string and number inside a JSON value, as text. */
function leaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (typeof v === "number") out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) leaves(x, out);
  return out;
}

/** The evaluator's reference answer (task.reference) of the gold case: its values, e.g. "01:33:00", "2176999". */
const REFERENCE_VALUES = [...new Set(leaves(GOLD.task.reference))].filter((s) => s.length >= 4);

const enc = encodeURIComponent;
const baseOf = (ti: TestInfo) => ti.project.use.baseURL as string;
const casePath = (bundleId: string) => `/api/cases/${enc(bundleId)}`;

function fields(f: Partial<AnnotationFields>): AnnotationFields {
  return { categories: [], primary: null, nodeId: null, nodeType: null, confidence: null, rationale: "", evidence: [], ...f };
}

async function putDraft(api: APIRequestContext, bundleId: string, version: number, f: AnnotationFields, kind: "initial" | "final" = "initial") {
  return api.put(`${casePath(bundleId)}/annotations/mine`, { data: { kind, version, fields: f } });
}

async function submit(api: APIRequestContext, bundleId: string, version: number) {
  return api.post(`${casePath(bundleId)}/annotations/mine/submit`, { data: { version } });
}

async function finalize(api: APIRequestContext, bundleId: string, f: AnnotationFields) {
  return api.post(`${casePath(bundleId)}/finalize`, { data: { fields: f } });
}

async function mine(api: APIRequestContext, bundleId: string, kind: "initial" | "final" = "initial") {
  const r = await api.get(`${casePath(bundleId)}/annotations/mine?kind=${kind}`);
  expect(r.status()).toBe(200);
  return (await r.json()).annotation as null | (AnnotationFields & { id: string; status: string; version: number; author: { id: string } });
}

/** Save a draft (new: version 0) and submit it; returns the submitted annotation. */
async function saveAndSubmit(api: APIRequestContext, bundleId: string, f: AnnotationFields) {
  const s = await putDraft(api, bundleId, 0, f);
  expect(s.status(), await s.text()).toBe(200);
  const draft = (await s.json()).annotation as { id: string; version: number };
  const sub = await submit(api, bundleId, draft.version);
  expect(sub.status(), await sub.text()).toBe(200);
  const done = (await sub.json()).annotation as { id: string; status: string };
  expect(done.status).toBe("submitted");
  return done;
}

/**
 * An API client signed in as `u` through better-auth's /api/auth/sign-in/email, like fixtures'
 * `apiAs`, with two differences the app under test needs:
 * - no `Origin` header: `apiAs` sends Origin http://127.0.0.1:<port>, which better-auth refuses
 *   (403 INVALID_ORIGIN) because lib/auth.ts sets no baseURL/trustedOrigins and the origin it
 *   infers from the request under `next start` is http://localhost:<port>; a request without
 *   cookies and without Origin is not origin-checked;
 * - better-auth rate-limits sign-in (3 per 10 s per client address): on 429 wait as told, retry.
 */
async function signInApi(base: string, u: Pick<TestUser, "email" | "password">): Promise<APIRequestContext> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const ctx = await pwRequest.newContext({ baseURL: base });
    const r = await ctx.post("/api/auth/sign-in/email", { data: { email: u.email, password: u.password } });
    if (r.ok()) return ctx;
    const status = r.status();
    const text = await r.text();
    const retryAfter = Number(r.headers()["x-retry-after"] ?? 5);
    await ctx.dispose();
    if (status !== 429) throw new Error(`sign-in failed for ${u.email}: ${status} ${text}`);
    await new Promise((res) => setTimeout(res, (Math.max(1, retryAfter) + 0.5) * 1000));
  }
  throw new Error(`sign-in for ${u.email} kept being rate-limited`);
}

/** One signed-in client per user for the whole file (sign-ins are rate-limited). */
const sessions = new Map<string, Promise<APIRequestContext>>();
function apiFor(ti: TestInfo, u: TestUser): Promise<APIRequestContext> {
  if (!sessions.has(u.email)) sessions.set(u.email, signInApi(baseOf(ti), u));
  return sessions.get(u.email)!;
}
test.afterAll(async () => {
  for (const s of sessions.values()) await (await s.catch(() => null))?.dispose();
  sessions.clear();
});

/** Users one after another: fixtures open a SQLite connection each, and concurrent writers time out. */
async function users(...specs: Array<[Parameters<typeof createUser>[0], string]>): Promise<TestUser[]> {
  const out: TestUser[] = [];
  for (const [roles, name] of specs) out.push(await createUser(roles, name));
  return out;
}

const fieldNames = (body: { fieldErrors?: Array<{ field: string; message: string }> }) => (body.fieldErrors ?? []).map((e) => e.field);

/** Statuses of two responses, sorted (for "exactly one 200 and one 409"). */
const statuses = (rs: APIResponse[]) => rs.map((r) => r.status()).sort((a, b) => a - b);

// ------------------------------------------------------------------ 1. blindness, route by route

test.describe("blindness: an annotator who has not submitted sees nothing of the others", () => {
  test.describe.configure({ timeout: 120_000 });
  const tag = randomUUID().slice(0, 8);
  // Distinctive strings (plain ASCII, no characters that HTML or JSON would escape).
  const A_RATIONALE = `A-rationale-${tag} the agent browses the same page again after it failed zorblaxA${tag}`;
  const B_RATIONALE = `B-rationale-${tag} the plan says coordinates but the action repeats the browse quuxvelB${tag}`;
  const C_RATIONALE = `C-own-rationale-${tag} the final result is a browse action`;
  // Quotes occur in node content (checked at submission), but in no node label nor the task prompt.
  const A_QUOTE = "born in Portland, Maine";
  const B_QUOTE = "Stephen King was born";
  const REFLABEL_REASON = `REFLABEL-reason-${tag} the dataset says the orchestrator looped`;
  const REFLABEL_MODE = `REFLABEL-mode-${tag}`;

  const A_FIELDS = fields({
    categories: ["C2"],
    primary: "C2",
    nodeId: "agent_action_0002",
    nodeType: "agent_action",
    confidence: "high",
    rationale: A_RATIONALE,
    evidence: [{ nodeId: "tool_result_0000", quote: A_QUOTE }],
  });
  const B_FIELDS = fields({
    categories: ["C2", "C4"],
    primary: "C4",
    nodeId: "tool_call_0002",
    nodeType: "tool_call",
    confidence: "medium",
    rationale: B_RATIONALE,
    evidence: [{ nodeId: "tool_result_0002", quote: B_QUOTE }],
  });
  const C_FIELDS = fields({
    categories: ["C1"],
    primary: "C1",
    nodeId: "final_result",
    nodeType: "final_result",
    confidence: "low",
    rationale: C_RATIONALE,
    evidence: [{ nodeId: "final_result", quote: "wiki/Stephen_King" }],
  });

  let bundleId: string;
  let A: TestUser, B: TestUser, C: TestUser, D: TestUser, J: TestUser, R: TestUser;
  let aId: string, bId: string, cId: string;
  let apiC: APIRequestContext;

  /** Every secret of A's and B's work, the reference answer and the reference labels. */
  function secrets(level: "all" | "trace" | "page") {
    const s: Array<[string, string]> = [
      ["A's rationale", A_RATIONALE],
      ["B's rationale", B_RATIONALE],
      ["A's rationale word", `zorblaxA${tag}`],
      ["B's rationale word", `quuxvelB${tag}`],
      ["A's annotation id", aId],
      ["B's annotation id", bId],
      ["A's user id", A.id],
      ["B's user id", B.id],
      ["A's email", A.email],
      ["B's email", B.email],
      ["reference label reason", REFLABEL_REASON],
      ["reference label failure mode", REFLABEL_MODE],
      ...REFERENCE_VALUES.map((v): [string, string] => ["reference answer", v]),
    ];
    // quotes are trace content: they may appear where the trace itself is served
    if (level !== "trace") s.push(["A's quote", A_QUOTE], ["B's quote", B_QUOTE]);
    // tuple node ids are graph content: only annotation data must not carry them
    if (level === "all") s.push(["A's node", A_FIELDS.nodeId!], ["B's node", B_FIELDS.nodeId!]);
    return s;
  }

  /** No secret occurs in the raw text of a response (all secrets checked at once). */
  function expectNoLeak(text: string, level: "all" | "trace" | "page" = "all", where = "") {
    const leaked = secrets(level)
      .filter(([, v]) => v && text.includes(v))
      .map(([k, v]) => `${k} (${JSON.stringify(v)})`);
    expect(leaked, `leaked${where ? ` by ${where}` : ""}`).toEqual([]);
  }

  test.beforeAll(async ({}, ti) => {
    // gold-c2 under a fresh id, plus dataset reference labels (importCase stores a bundle's `referenceLabels`)
    const made = await seedBundle(
      (id) =>
        ({
          ...goldCopy("gold-c2")(id),
          referenceLabels: [
            { source: "e2e", annotator: "consensus", nodeId: "agent_action_0002", agent: "WebSurfer", reason: REFLABEL_REASON, failureModes: [{ mode: REFLABEL_MODE, code: "1.3", present: true }] },
          ],
        }) as ReplayBundle,
    );
    bundleId = made.id;
    [A, B, C, D, J, R] = await users([["annotator"], "A"], [["annotator"], "B"], [["annotator"], "C"], [["annotator"], "D"], [["adjudicator"], "J"], [["researcher"], "R"]);
    await assign(bundleId, [A, B, C], J);
    aId = (await saveAndSubmit(await apiFor(ti, A), bundleId, A_FIELDS)).id;
    bId = (await saveAndSubmit(await apiFor(ti, B), bundleId, B_FIELDS)).id;
    apiC = await apiFor(ti, C);
    const s = await putDraft(apiC, bundleId, 0, C_FIELDS);
    expect(s.status(), await s.text()).toBe(200);
    cId = (await s.json()).annotation.id;
  });

  test("GET /api/cases/<id>/annotations: blind, no initials, no final, only C's own draft", async () => {
    const r = await apiC.get(`${casePath(bundleId)}/annotations`);
    expect(r.status()).toBe(200);
    const text = await r.text();
    expectNoLeak(text, "all", "GET annotations");
    const body = JSON.parse(text);
    expect(body.blind).toBe(true);
    expect(body.initials).toEqual([]);
    expect(body.final).toBeNull();
    expect(body.finalizedAt ?? null).toBeNull();
    expect(body.own).toMatchObject({ id: cId, status: "draft", author: { id: C.id }, rationale: C_RATIONALE, categories: ["C1"], primary: "C1", nodeId: "final_result" });
  });

  test("GET /api/cases/<id>/annotations/mine?kind=initial|final: only C's own", async () => {
    const ri = await apiC.get(`${casePath(bundleId)}/annotations/mine?kind=initial`);
    expect(ri.status()).toBe(200);
    const ti = await ri.text();
    expectNoLeak(ti, "all", "GET mine?kind=initial");
    expect(JSON.parse(ti).annotation).toMatchObject({ id: cId, author: { id: C.id }, status: "draft" });

    const rf = await apiC.get(`${casePath(bundleId)}/annotations/mine?kind=final`);
    expect(rf.status()).toBe(200);
    const tf = await rf.text();
    expectNoLeak(tf, "all", "GET mine?kind=final");
    expect(JSON.parse(tf).annotation).toBeNull();
  });

  test("GET /api/cases/<id>/audit: 403, no data", async () => {
    const r = await apiC.get(`${casePath(bundleId)}/audit`);
    expect(r.status()).toBe(403);
    const text = await r.text();
    expectNoLeak(text, "all", "GET audit");
    expect(JSON.parse(text).events).toBeUndefined();
  });

  test("GET /api/cases/<id>/reference-labels: 403, no labels", async () => {
    const r = await apiC.get(`${casePath(bundleId)}/reference-labels`);
    expect(r.status()).toBe(403);
    const text = await r.text();
    expectNoLeak(text, "all", "GET reference-labels");
    expect(JSON.parse(text).labels).toBeUndefined();
  });

  test("GET /api/queue: only C's own assignment, no one else's data", async () => {
    const r = await apiC.get("/api/queue");
    expect(r.status()).toBe(200);
    const text = await r.text();
    expectNoLeak(text, "all", "GET queue");
    const items = JSON.parse(text).items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ role: "annotator", bundleId, status: "in_progress" });
    // an annotator is not even told how many others have submitted
    expect(items[0].submittedInitials).toBeUndefined();
    expect(text).not.toContain(J.id);
  });

  test("GET /api/cases/<id>/nodes/<nodeId>: trace content only, for every node", async () => {
    for (const nodeId of NODE_IDS) {
      const r = await apiC.get(`${casePath(bundleId)}/nodes/${enc(nodeId)}`);
      expect(r.status(), nodeId).toBe(200);
      const text = await r.text();
      expectNoLeak(text, "trace", `GET nodes/${nodeId}`);
      expect(JSON.parse(text).nodeId).toBe(nodeId);
    }
  });

  test("GET /api/cases/<id>/search: trace content only (a word of A's rationale finds nothing)", async () => {
    for (const q of [`zorblaxA${tag}`, `quuxvelB${tag}`, A_RATIONALE.slice(0, 40), "REFLABEL", REFERENCE_VALUES[0] ?? "01:33:00"]) {
      const r = await apiC.get(`${casePath(bundleId)}/search?q=${enc(q)}`);
      expect(r.status(), q).toBe(200);
      const text = await r.text();
      expectNoLeak(text, "trace", `search ${q}`);
      expect(JSON.parse(text).nodeIds, `search "${q}" must not match annotation data`).toEqual([]);
    }
    // the search itself works on trace content
    const r = await apiC.get(`${casePath(bundleId)}/search?q=${enc("Portland")}`);
    expect((await r.json()).nodeIds).toContain("tool_result_0000");
  });

  test("/api/annotations/<A's id>/reopen: GET is not served, POST is an admin's: no data either way", async () => {
    const g = await apiC.get(`/api/annotations/${enc(aId)}/reopen`);
    expect(g.status()).not.toBe(200);
    expectNoLeak(await g.text(), "all", "GET reopen");
    const p = await apiC.post(`/api/annotations/${enc(aId)}/reopen`, { data: { reason: "let me see it" } });
    expect(p.status()).toBe(403);
    expectNoLeak(await p.text(), "all", "POST reopen");
    // and A's annotation is still submitted (checked as the researcher later: initials include it)
  });

  test("POST /api/cases/<id>/finalize as C: 403, the message carries no one's data", async () => {
    const r = await finalize(apiC, bundleId, C_FIELDS);
    expect(r.status()).toBe(403);
    const text = await r.text();
    expectNoLeak(text, "all", "POST finalize");
    expect(JSON.parse(text).error).toEqual(expect.any(String));
  });

  test("the case page HTML (server-rendered) and the case list carry none of the others' work", async ({ page }) => {
    const r = await apiC.get(`/cases/${enc(bundleId)}`);
    expect(r.status()).toBe(200);
    const html = await r.text();
    expect(html).toContain(C_RATIONALE); // the page did render C's own draft
    expectNoLeak(html, "page", "case page HTML");

    // the list is paginated (40 a page): search for this case so it is on the page served
    const l = await apiC.get(`/cases?q=${encodeURIComponent(bundleId)}`);
    expect(l.status()).toBe(200);
    const list = await l.text();
    expect(list).toContain(bundleId);
    expectNoLeak(list, "page", "case list HTML");

    // the other pages C can open (or is redirected away from)
    for (const p of ["/", "/queue", "/agreement", "/admin"]) {
      const x = await apiC.get(p);
      expect(x.status(), p).toBeLessThan(500);
      expectNoLeak(await x.text(), "page", `page ${p}`);
    }

    // and the rendered page, after hydration and its own fetches
    await signIn(page, C);
    await page.goto(`/cases/${enc(bundleId)}`);
    await expect(page.getByTestId("blind-notice")).toBeVisible();
    await page.waitForLoadState("networkidle");
    expectNoLeak(await page.locator("body").innerText(), "trace", "rendered case page");
  });

  test("an unassigned plain annotator D is blind too", async ({}, ti) => {
    const apiD = await apiFor(ti, D);
    {
      const r = await apiD.get(`${casePath(bundleId)}/annotations`);
      expect(r.status()).toBe(200);
      const text = await r.text();
      expectNoLeak(text, "all", "GET annotations as D");
      expect(JSON.parse(text)).toMatchObject({ blind: true, own: null, initials: [], final: null });
      for (const p of ["audit", "reference-labels"]) {
        const x = await apiD.get(`${casePath(bundleId)}/${p}`);
        expect(x.status(), p).toBe(403);
        expectNoLeak(await x.text(), "all", `GET ${p} as D`);
      }
      const q = await apiD.get("/api/queue");
      expect((await q.json()).items).toEqual([]);
      const h = await apiD.get(`/cases/${enc(bundleId)}`);
      expect(h.status()).toBe(200);
      expectNoLeak(await h.text(), "page", "case page HTML as D");
    }
  });

  test("a researcher R sees the submitted initials (and reference labels), never C's draft", async ({}, ti) => {
    const apiR = await apiFor(ti, R);
    {
      const r = await apiR.get(`${casePath(bundleId)}/annotations`);
      expect(r.status()).toBe(200);
      const body = await r.json();
      expect(body.blind).toBe(false);
      const byId = new Map((body.initials as Array<{ id: string; rationale: string; status: string }>).map((a) => [a.id, a]));
      expect(byId.get(aId)).toMatchObject({ rationale: A_RATIONALE, status: "submitted" });
      expect(byId.get(bId)).toMatchObject({ rationale: B_RATIONALE, status: "submitted" });
      expect(JSON.stringify(body)).not.toContain(C_RATIONALE); // drafts are never shown
      // the detector itself: it does flag these secrets when they are present
      expect(() => expectNoLeak(JSON.stringify(body))).toThrow(/A's rationale/);
      const l = await apiR.get(`${casePath(bundleId)}/reference-labels`);
      expect(l.status()).toBe(200);
      expect(await l.text()).toContain(REFLABEL_REASON); // the secret was real
    }
  });

  test("the gate opens only when C submits: then C sees A's and B's initials", async () => {
    const before = await apiC.get(`${casePath(bundleId)}/annotations`);
    expect((await before.json()).blind).toBe(true);
    const own = await mine(apiC, bundleId);
    const s = await submit(apiC, bundleId, own!.version);
    expect(s.status(), await s.text()).toBe(200);

    const r = await apiC.get(`${casePath(bundleId)}/annotations`);
    expect(r.status()).toBe(200);
    const body = await r.json();
    expect(body.blind).toBe(false);
    const byId = new Map((body.initials as Array<{ id: string }>).map((a) => [a.id, a]));
    expect(byId.get(aId)).toMatchObject({ rationale: A_RATIONALE, evidence: [{ nodeId: "tool_result_0000", quote: A_QUOTE }], author: { id: A.id } });
    expect(byId.get(bId)).toMatchObject({ rationale: B_RATIONALE, evidence: [{ nodeId: "tool_result_0002", quote: B_QUOTE }], author: { id: B.id } });
    expect(byId.get(cId)).toMatchObject({ status: "submitted" });
    expect(body.final).toBeNull();
    const l = await apiC.get(`${casePath(bundleId)}/reference-labels`);
    expect(l.status()).toBe(200);
    expect(await l.text()).toContain(REFLABEL_REASON);
  });
});

// ------------------------------------------------------------------ 2. invalid submissions

test.describe("invalid annotations are refused with field-level messages", () => {
  test.describe.configure({ timeout: 120_000 });
  let V: TestUser;
  const valid = fields({
    categories: ["C2", "C3"],
    primary: "C2",
    nodeId: "agent_action_0002",
    nodeType: "agent_action",
    confidence: "medium",
    rationale: "repeats the browse of a page that already gave no coordinates",
    evidence: [{ nodeId: "agent_action_0002", quote: "look at the Stephen King page again" }],
  });

  test.beforeAll(async () => {
    [V] = await users([["annotator"], "V"]);
  });

  /** A fresh gold-c2 case assigned to V (one annotation per annotator and case). */
  async function freshCase() {
    const bundleId = (await seedBundle(goldCopy("gold-c2"))).id;
    await assign(bundleId, [V]);
    return bundleId;
  }

  /** The draft saves; the submit is refused with these fields (400); nothing is submitted. */
  async function refusedAtSubmit(ti: TestInfo, f: AnnotationFields, expected: { must: string; allowed?: string[] }) {
    const api = await apiFor(ti, V);
    const bundleId = await freshCase();
    const s = await putDraft(api, bundleId, 0, f);
    expect(s.status(), await s.text()).toBe(200);
    const version = (await s.json()).annotation.version as number;
    const r = await submit(api, bundleId, version);
    const body = await r.json();
    expect(r.status(), JSON.stringify(body)).toBe(400);
    const names = fieldNames(body);
    expect(names).toContain(expected.must);
    for (const n of names) expect([expected.must, ...(expected.allowed ?? [])], `unexpected field error "${n}": ${JSON.stringify(body)}`).toContain(n);
    for (const e of body.fieldErrors) expect(e.message, e.field).toEqual(expect.stringMatching(/\S/));
    expect(await mine(api, bundleId)).toMatchObject({ status: "draft", version });
    return body;
  }

  /** A valid draft is saved; the faulty save is refused at once (400) with exactly this field; the saved draft is unchanged. */
  async function refusedAtSave(ti: TestInfo, f: AnnotationFields, field: string) {
    const api = await apiFor(ti, V);
    const bundleId = await freshCase();
    const s = await putDraft(api, bundleId, 0, valid);
    expect(s.status(), await s.text()).toBe(200);
    const version = (await s.json()).annotation.version as number;
    const r = await putDraft(api, bundleId, version, f);
    const body = await r.json();
    expect(r.status(), JSON.stringify(body)).toBe(400);
    expect(fieldNames(body)).toEqual([field]);
    expect(body.fieldErrors[0].message).toEqual(expect.stringMatching(/\S/));
    expect(await mine(api, bundleId)).toMatchObject({ status: "draft", version, nodeId: valid.nodeId, nodeType: valid.nodeType });
    return body;
  }

  test("primary not in the category set → field primary", async ({}, ti) => {
    const body = await refusedAtSubmit(ti, { ...valid, categories: ["C3"], primary: "C2" }, { must: "primary" });
    expect(body.fieldErrors.find((e: { field: string }) => e.field === "primary").message).toMatch(/C2/);
  });

  test("empty category set → field categories", async ({}, ti) => {
    // with no categories the primary cannot be among them either: "primary" may be reported too
    await refusedAtSubmit(ti, { ...valid, categories: [], primary: "C2" }, { must: "categories", allowed: ["primary"] });
  });

  test("quote not in the node's content → field evidence[0].quote", async ({}, ti) => {
    await refusedAtSubmit(ti, { ...valid, evidence: [{ nodeId: "agent_action_0002", quote: "this sentence is nowhere in the trace" }] }, { must: "evidence[0].quote" });
  });

  test("node not in the graph → field nodeId (refused already when the draft is saved)", async ({}, ti) => {
    const body = await refusedAtSave(ti, { ...valid, nodeId: "agent_action_9999" }, "nodeId");
    expect(body.fieldErrors[0].message).toContain("agent_action_9999");
  });

  test("node type not the graph node's type → field nodeType (refused already when the draft is saved)", async ({}, ti) => {
    const body = await refusedAtSave(ti, { ...valid, nodeType: "tool_call" }, "nodeType");
    expect(body.fieldErrors[0].message).toContain("agent_action");
  });

  test("a valid annotation of the same shape is accepted (control)", async ({}, ti) => {
    await saveAndSubmit(await apiFor(ti, V), await freshCase(), valid);
  });
});

// ------------------------------------------------------------------ 3. concurrency

test.describe("concurrency", () => {
  test.describe.configure({ timeout: 180_000 });
  let admin: TestUser, researcher: TestUser, A: TestUser, J1: TestUser, J2: TestUser;
  let anns: TestUser[];
  test.beforeAll(async () => {
    [admin, researcher, A, J1, J2, ...anns] = await users(
      [["admin"], "Admin"],
      [["researcher"], "R"],
      [["annotator"], "A"],
      [["adjudicator"], "J1"],
      [["adjudicator"], "J2"],
      [["annotator"], "N1"],
      [["annotator"], "N2"],
      [["annotator"], "N3"],
    );
  });

  async function auditOf(ti: TestInfo, bundleId: string) {
    const r = await (await apiFor(ti, admin)).get(`${casePath(bundleId)}/audit`);
    expect(r.status()).toBe(200);
    return (await r.json()).events as Array<{ action: string; entityId: string; actor: { email: string } | null; data: Record<string, unknown> }>;
  }

  // two browser tabs of the same user: two sessions, signed in once for the file
  let tabs: Promise<[APIRequestContext, APIRequestContext]> | null = null;
  const tabsOf = (ti: TestInfo) => (tabs ??= (async () => [await signInApi(baseOf(ti), A), await signInApi(baseOf(ti), A)] as [APIRequestContext, APIRequestContext])());
  test.afterAll(async () => {
    for (const t of (await tabs?.catch(() => null)) ?? []) await t.dispose();
  });

  for (const startVersion of [1, 0]) {
    test(`two saves of the same draft at version ${startVersion} at once: one 200, one 409 with the saved copy, nothing lost`, async ({}, ti) => {
      const bundleId = (await seedBundle(goldCopy("gold-c2"))).id;
      await assign(bundleId, [A]);
      const [tab1, tab2] = await tabsOf(ti);
      if (startVersion === 1) {
        const first = await putDraft(tab1, bundleId, 0, fields({ categories: ["C2"], rationale: "first save" }));
        expect(first.status(), await first.text()).toBe(200);
        expect((await first.json()).annotation.version).toBe(1);
      }
      const tag = randomUUID().slice(0, 8);
      const f1 = fields({ categories: ["C2"], primary: "C2", nodeId: "agent_action_0002", nodeType: "agent_action", rationale: `tab one ${tag}` });
      const f2 = fields({ categories: ["C3"], primary: "C3", nodeId: "tool_result_0001", nodeType: "tool_result", rationale: `tab two ${tag}` });
      const rs = await Promise.all([putDraft(tab1, bundleId, startVersion, f1), putDraft(tab2, bundleId, startVersion, f2)]);
      const texts = await Promise.all(rs.map((r) => r.text()));
      expect(statuses(rs), texts.join("\n")).toEqual([200, 409]);
      const w = rs[0].status() === 200 ? 0 : 1;
      const [won, lost] = [[f1, f2][w], [f1, f2][1 - w]];
      const conflict = JSON.parse(texts[1 - w]);
      expect(conflict.error).toMatch(/changed elsewhere/);
      expect(conflict.current).toMatchObject({ version: startVersion + 1, rationale: won.rationale, status: "draft", author: { id: A.id } });

      expect(await mine(tab1, bundleId)).toMatchObject({ version: startVersion + 1, rationale: won.rationale, categories: won.categories, nodeId: won.nodeId });

      const events = await auditOf(ti, bundleId);
      const conflicts = events.filter((e) => e.action === "annotation.save_conflict");
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0].actor?.email).toBe(A.email);
      expect(conflicts[0].data).toMatchObject({ kind: "initial", staleVersion: startVersion, attempted: { rationale: lost.rationale, categories: lost.categories, nodeId: lost.nodeId } });
    });
  }

  for (const round of [1, 2, 3]) {
    test(`two adjudicators finalize at the same moment: the first wins, the other gets 409 and is audited (round ${round})`, async ({}, ti) => {
      const bundleId = (await seedBundle(goldCopy("gold-c2"))).id;
      // the same three annotators; two adjudicators assigned to the same case
      await assign(bundleId, anns, J1);
      await assign(bundleId, anns, J2);
      const initial = fields({
        categories: ["C2"],
        primary: "C2",
        nodeId: "agent_action_0002",
        nodeType: "agent_action",
        confidence: "high",
        rationale: "repeats the browse",
        evidence: [{ nodeId: "tool_result_0002", quote: "Stephen King was born" }],
      });
      for (const u of anns) await saveAndSubmit(await apiFor(ti, u), bundleId, initial);
      const [api1, api2, apiR] = [await apiFor(ti, J1), await apiFor(ti, J2), await apiFor(ti, researcher)];

      const tag = randomUUID().slice(0, 8);
      const f1 = fields({ ...initial, rationale: `J1 final ${tag}` });
      const f2 = fields({
        categories: ["C2", "C3"],
        primary: "C3",
        nodeId: "tool_result_0001",
        nodeType: "tool_result",
        confidence: "medium",
        rationale: `J2 final ${tag}`,
        evidence: [{ nodeId: "tool_result_0001", quote: "Stephen King" }],
      });
      const rs = await Promise.all([finalize(api1, bundleId, f1), finalize(api2, bundleId, f2)]);
      const texts = await Promise.all(rs.map((r) => r.text()));
      expect(statuses(rs), texts.join("\n")).toEqual([200, 409]);
      const w = rs[0].status() === 200 ? 0 : 1;
      const winner = { user: [J1, J2][w], api: [api1, api2][w], fields: [f1, f2][w], body: JSON.parse(texts[w]) };
      const loser = { user: [J1, J2][1 - w], api: [api1, api2][1 - w], fields: [f1, f2][1 - w], body: JSON.parse(texts[1 - w]) };
      expect(loser.body.error).toMatch(/another adjudicator finalized this case first|already finalized/);
      // which path refused the loser: inside the finalize transaction, or the "already finalized" check before it
      ti.annotations.push({ type: "loser", description: loser.body.error });

      const seen = await (await apiR.get(`${casePath(bundleId)}/annotations`)).json();
      expect(seen.final).toMatchObject({
        id: winner.body.annotation.id,
        kind: "final",
        status: "submitted",
        author: { id: winner.user.id },
        rationale: winner.fields.rationale,
        categories: winner.fields.categories,
        primary: winner.fields.primary,
        nodeId: winner.fields.nodeId,
        nodeType: winner.fields.nodeType,
      });
      expect(seen.finalizedAt).toEqual(expect.any(String));
      expect(JSON.stringify(seen)).not.toContain(loser.fields.rationale);
      // the loser's attempt is not stored as an annotation
      expect(await mine(loser.api, bundleId, "final")).toBeNull();
      expect(await mine(winner.api, bundleId, "final")).toMatchObject({ id: winner.body.annotation.id });

      const events = await auditOf(ti, bundleId);
      const done = events.filter((e) => e.action === "final.finalize");
      expect(done).toHaveLength(1);
      expect(done[0].actor?.email).toBe(winner.user.email);
      expect(done[0].data).toMatchObject({ tuple: { categories: winner.fields.categories, primary: winner.fields.primary, nodeId: winner.fields.nodeId, nodeType: winner.fields.nodeType } });
      const rejected = events.filter((e) => e.action === "final.finalize_rejected");
      expect(rejected).toHaveLength(1);
      expect(rejected[0].actor?.email).toBe(loser.user.email);
      expect(rejected[0].data).toMatchObject({
        reason: expect.any(String),
        fields: { rationale: loser.fields.rationale, categories: loser.fields.categories, primary: loser.fields.primary, nodeId: loser.fields.nodeId, evidence: loser.fields.evidence },
      });
    });
  }
});

// ------------------------------------------------------------------ 4. the blindness probe (issue 20, "Done when")

/**
 * Signed in as an annotator who has submitted nothing, crawl every page reachable by links from
 * "/", the API GETs that are not per case (queue, agreement and its CSV, experiments, attribution,
 * repair searches), and every API GET of each case reached (annotations, own drafts, reference
 * labels, audit, symptoms, graph index/window/locate, replay target, replays and each replay run,
 * search, every node — the first
 * window's nodes of a windowed case), plus the earliest-node check with the last node and all four
 * categories, on the seeded demo data. Data-driven: the forbidden strings are read from the
 * database's reference fields — every reference label's reason and failure modes, label-derived
 * import notes (Who&When mistake_agent / mistake_step notes), source file names (gold-c1 …),
 * the evaluator's reference answers, the gold annotations' rationales and others' annotations —
 * minus any string that is trace content itself (then it is not a label). Detector output: rule
 * ids, c_f, the anchor.
 */
test.describe("blindness probe: an unsubmitted annotator finds no reference-label text and no detector output anywhere", () => {
  test.describe.configure({ timeout: 1_500_000 });

  /** Text as a page or JSON carries it, with HTML entities and (double) JSON string escapes undone. */
  function normalize(t: string): string {
    let s = t.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    for (let i = 0; i < 2; i++) s = s.replace(/\\u003c/gi, "<").replace(/\\u003e/gi, ">").replace(/\\u0026/gi, "&").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    return s;
  }

  const LABEL_NOTE = /mistake_|annotat|correction|\blabel/i;
  const DETECTOR: Array<[string, RegExp]> = [
    ["c_f", /\bc_f\b|"cf":|data-cf=/],
    ["anchor", /data-mark="anchor"|"anchor(Node|Row|NodeRow)?":|intervention anchor/],
    ["symptom layer", /data-testid="symptom-rules"|"symptoms":\{/],
  ];

  test("crawl pages and API GETs of the demo data", async ({}, ti) => {
    const { openDb } = await import("../lib/db");
    const { RULES } = await import("../lib/symptoms");
    const { E2E_DATABASE_URL } = await import("../playwright.config");
    const db = openDb(E2E_DATABASE_URL).db;
    const [P] = await users([["annotator"], "Probe"]);
    const forbidden = new Map<string, string>(); // text -> where it comes from
    let hidden = new Set<string>(); // derived cases (replays, experiment attempts) of cases P is blind on
    const cases = await db.case.findMany({ select: { id: true, bundleId: true, headerJson: true, sourceFile: true, taskPrompt: true, nodeCount: true, referenceLabels: true } });
    try {
      // ---- candidates from the reference fields
      const add = (s: unknown, why: string) => {
        if (typeof s !== "string") return;
        const t = s.trim();
        if (t.length >= 6) forbidden.set(t, why);
      };
      const leafStrings = (v: unknown): string[] => leaves(v).filter((x) => typeof x === "string");
      for (const c of cases) {
        const h = JSON.parse(c.headerJson) as { task?: { reference?: unknown }; source?: { notes?: unknown[] } };
        const labelValues = c.referenceLabels.flatMap((l) => [l.reason, l.agent, l.nodeId, ...leafStrings(JSON.parse(l.failureModesJson)), ...leafStrings(JSON.parse(l.extraJson))]).filter((x): x is string => typeof x === "string" && x.length >= 3);
        for (const l of c.referenceLabels) {
          add(l.reason, `reference label reason of ${c.bundleId}`);
          for (const m of JSON.parse(l.failureModesJson) as Array<{ mode: string }>) add(m.mode, `MAD failure mode label of ${c.bundleId}`);
        }
        for (const n of h.source?.notes ?? []) if (typeof n === "string" && (LABEL_NOTE.test(n) || labelValues.some((v) => n.includes(v)))) add(n, `label-derived import note of ${c.bundleId}`);
        if (c.sourceFile && c.sourceFile.length >= 8) add(c.sourceFile, `source file name of ${c.bundleId}`);
        if (c.sourceFile && /^gold-c\d/.test(c.sourceFile)) add(c.sourceFile.replace(/\.bundle\.json$/, ""), `gold file stem of ${c.bundleId}`);
        for (const v of leafStrings(h.task?.reference ?? null)) add(v, `reference answer of ${c.bundleId}`);
      }
      const gold = JSON.parse(readFileSync(path.join(SHARED, "fixtures/bundles/gold-annotations.json"), "utf8")) as { cases: Array<{ final: { rationale: string } }> };
      for (const g of gold.cases) add(g.final.rationale, "gold annotation rationale");
      for (const a of await db.annotation.findMany({ where: { userId: { not: P.id } }, select: { rationale: true } })) if (a.rationale.length >= 12) add(a.rationale, "another user's annotation");

      // ---- minus what is trace content (the annotator is meant to read the trace)
      // (bundle ids are shown everywhere, and a 404 echoes the id asked for: not labels either)
      const trace: string[] = [...cases.map((c) => c.taskPrompt), ...cases.map((c) => c.bundleId)];
      for (const n of await db.node.findMany({ select: { contentJson: true, label: true, agent: true, nodeId: true } })) trace.push(normalize(n.contentJson), n.label ?? "", n.agent ?? "", n.nodeId);
      for (const r of await db.boundaryRecord.findMany({ select: { requestJson: true, responseJson: true } })) trace.push(normalize(r.requestJson), normalize(r.responseJson));
      for (const s of [...forbidden.keys()]) if (trace.some((t) => t.includes(s))) forbidden.delete(s);
      for (const r of RULES) forbidden.set(r.id, "detector rule id");

      // the probe has something to find: the issue's Who&When note, a gold file name, labels, rule ids
      const whys = [...forbidden.values()];
      expect([...forbidden.keys()].some((s) => s.startsWith('mistake_agent "Orchestrator" matched role'))).toBe(true);
      expect(forbidden.has("gold-c1")).toBe(true);
      expect(whys.filter((w) => w.startsWith("reference label reason")).length).toBeGreaterThanOrEqual(10);
      expect(whys.filter((w) => w.startsWith("MAD failure mode")).length).toBeGreaterThan(0);

      // ---- the annotator: assigned to every labelled case and the gold cases, nothing submitted
      const labelled = cases.filter((c) => c.referenceLabels.length > 0 || (c.sourceFile ?? "").startsWith("gold-c")).filter((c) => !c.bundleId.includes("~exp-"));
      const admin = await upsertAdmin(db);
      await assignCasesAs(db, admin, labelled.map((c) => c.id), P.id);
      const { hiddenDerivedCaseIds } = await import("../lib/db");
      hidden = await hiddenDerivedCaseIds(db, { id: P.id, roles: ["annotator"] });
    } finally {
      await db.$disconnect();
    }
    const api = await apiFor(ti, P);

    const leaks: string[] = [];
    let fetched = 0;
    const needles = [...forbidden.entries()];
    function check(where: string, body: string) {
      fetched++;
      const t = normalize(body);
      for (const [s, why] of needles) if (t.includes(s)) leaks.push(`${where}: ${why}: ${JSON.stringify(s.slice(0, 90))}`);
      for (const [name, re] of DETECTOR) if (re.test(t)) leaks.push(`${where}: detector output (${name}) ${JSON.stringify(t.match(re)![0])}`);
    }
    async function get(url: string): Promise<string> {
      const r = await api.get(url, { maxRedirects: 5 });
      expect(r.status(), url).toBeLessThan(500);
      const body = r.headers()["content-type"]?.includes("octet-stream") ? decodeURIComponent(r.headers()["x-symtrace-lanes"] ?? "") : await r.text();
      check(`GET ${url}`, body);
      return body;
    }
    const base = new URL(baseOf(ti));
    const linksOf = (html: string) =>
      [...html.matchAll(/href="([^"#]+)/g)]
        .map((m) => m[1].replace(/&amp;/g, "&"))
        .filter((h) => h.startsWith("/") && !h.startsWith("//") && !h.startsWith("/_next") && !h.startsWith("/api/auth"))
        .map((h) => new URL(h, base).pathname + new URL(h, base).search);

    // ---- pages: breadth-first from "/", every same-origin link (filters of the case list included)
    const seen = new Set<string>();
    const queue = ["/", "/cases", "/queue", "/agreement", "/admin", "/experiments", "/releases", "/import", "/repair-searches"];
    const casePages: string[] = [];
    while (queue.length && seen.size < 800) {
      const p = queue.shift()!;
      if (seen.has(p)) continue;
      seen.add(p);
      const html = await get(p);
      if (/^\/cases\/[^?]+$/.test(p)) casePages.push(decodeURIComponent(p.slice("/cases/".length)));
      for (const l of linksOf(html)) if (!seen.has(l) && !(l.startsWith("/cases/") && l.includes("?node="))) queue.push(l);
    }
    // every case P may see is reachable from the list; the derived ones of cases P is blind on are not
    const visible = cases.filter((c) => !hidden.has(c.id));
    expect(hidden.size, "the demo experiment's attempts are derived cases").toBeGreaterThan(0);
    expect(casePages.length, "case pages crawled").toBeGreaterThanOrEqual(Math.min(500, visible.length));
    const hiddenBundles = cases.filter((c) => hidden.has(c.id)).map((c) => c.bundleId);
    expect(casePages.filter((b) => hiddenBundles.includes(b))).toEqual([]);
    // and asked for directly, they answer as unknown (404) on the page and on every case route
    for (const bundleId of hiddenBundles.slice(0, 25)) {
      for (const url of [`/cases/${enc(bundleId)}`, `${casePath(bundleId)}/nodes/task_0000`, `${casePath(bundleId)}/graph/window?from=0&to=50`, `${casePath(bundleId)}/search?q=Annotated`, `${casePath(bundleId)}/annotations`]) {
        const r = await api.get(url);
        expect(r.status(), url).toBe(404);
        check(`GET ${url}`, await r.text());
      }
    }

    // ---- the API GETs that are not per case (role-gated ones answer 401/403 with no data; the queue is P's own)
    for (const url of ["/api/queue", "/api/agreement", "/api/agreement?format=csv&table=reliability", "/api/experiments", "/api/experiments/attribution", "/api/repair-searches"]) await get(url);

    // ---- every API GET of each case reached
    const byBundle = new Map(cases.map((c) => [c.bundleId, c]));
    const pool = async <T,>(xs: T[], n: number, f: (x: T) => Promise<void>) => {
      const it = xs[Symbol.iterator]();
      await Promise.all(Array.from({ length: n }, async () => {
        for (let x = it.next(); !x.done; x = it.next()) await f(x.value);
      }));
    };
    await pool(casePages, 3, async (bundleId) => {
      const c = byBundle.get(bundleId);
      const api_ = casePath(bundleId);
      for (const p of ["annotations", "annotations/mine?kind=initial", "annotations/mine?kind=final", "reference-labels", "audit", "symptoms", "graph/index"]) await get(`${api_}/${p}`);
      // the case's replays and each run's own GET (answered 403/404 where P may not replay)
      const replays = await get(`${api_}/replays`);
      const runs = (JSON.parse(replays) as { runs?: Array<{ id: string }> }).runs ?? [];
      for (const run of runs) await get(`/api/replays/${enc(run.id)}`);
      const win = JSON.parse(await get(`${api_}/graph/window?from=0&to=200`)) as { nodes: Array<{ id: string }> };
      const ids = (c?.nodeCount ?? 0) <= 600 ? (JSON.parse(await get(`${api_}/graph/window?from=0&to=600`)) as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id) : win.nodes.map((n) => n.id);
      if (!ids.length) return;
      await get(`${api_}/graph/locate?node=${enc(ids[0])}`);
      await get(`${api_}/replay-target?node=${enc(ids[0])}`);
      for (const id of ids) await get(`${api_}/nodes/${enc(id)}`);
      for (const [s] of needles.filter(([, why]) => why.endsWith(` of ${bundleId}`)).slice(0, 3)) await get(`${api_}/search?q=${enc(s.slice(0, 200))}`);
      for (const q of ["mistake", "gold-c", "C2.repeated"]) await get(`${api_}/search?q=${enc(q)}`);
      // the earliest-node check, asked the most revealing question: the last node, all four categories
      const ec = await api.post(`${api_}/earliest-check`, { data: { node: ids[ids.length - 1], categories: ["C1", "C2", "C3", "C4"], evidence: [] } });
      const ecText = await ec.text();
      check(`POST ${api_}/earliest-check`, ecText);
      if (ec.status() === 200) expect(JSON.parse(ecText), bundleId).toEqual({ warnings: [], detector: false });
    });
    ti.annotations.push({ type: "probe", description: `${seen.size} pages, ${casePages.length} cases, ${fetched} responses, ${needles.length} forbidden strings` });
    console.log(`blindness probe: ${seen.size} pages, ${casePages.length} cases, ${fetched} responses checked against ${needles.length} forbidden strings`);
    expect(leaks.slice(0, 50), `${leaks.length} leak(s)`).toEqual([]);
  });
});

/** The e2e admin account (as fixtures' assign uses it). */
async function upsertAdmin(db: import("../lib/db").Db) {
  const { upsertUser } = await import("../lib/db");
  const a = await upsertUser(db, { email: "e2e-admin@e2e.test", roles: ["admin"], password: "e2e-password-1" });
  return { id: a.id, roles: ["admin" as const] };
}

/** Assign these cases to one annotator, one case per call (idempotent). */
async function assignCasesAs(db: import("../lib/db").Db, admin: { id: string; roles: Array<"admin"> }, caseIds: string[], annotatorId: string) {
  const { assignCases } = await import("../lib/db");
  await assignCases(db, admin, { caseIds, perCase: 1, annotatorIds: [annotatorId] });
}
