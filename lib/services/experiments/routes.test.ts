/**
 * POST /api/experiments (app/api/experiments/route.ts) called as Next.js calls it, signed in for
 * real (lib/testing/session.ts): the creation check of issue 20 item 4 / issue 22 item 2 at the
 * API — a case the chosen evaluator cannot judge is refused with 400 naming it and why, and
 * nothing is created; no evaluator at all is refused too; the judgeable case alone is accepted.
 * No worker runs (SYMTRACE_EMBEDDED_WORKER=0), nothing calls a model.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../../bundle";
import { importCase, type Db } from "../../db";
import { freshTestDb } from "../../db/test-db";
import { signedInUser } from "../../testing/session";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const read = (f: string) => JSON.parse(readFileSync(f, "utf8")) as ReplayBundle;
const HILL = "demo/reference-orchestrator-hilltop";
const GOLD = "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000";

type H = { POST(req: Request): Promise<Response> };
type R = { GET?(req: Request, ctx?: unknown): Promise<Response>; POST?(req: Request, ctx?: unknown): Promise<Response> };
let db: Db;
let route: H;
let researcher: { cookie: string };
const routes: Record<string, R> = {};
const ENV = ["SYMTRACE_REPLAY_UPSTREAM", "SYMTRACE_REPLAY_EVALUATOR", "SYMTRACE_EVALUATORS_FILE", "SYMTRACE_BUILTIN_EVALUATORS", "SYMTRACE_EMBEDDED_WORKER", "SYMTRACE_EXPERIMENT_JUDGE", "SYMTRACE_JUDGE_UPSTREAM"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  const h = await freshTestDb();
  process.env.DATABASE_URL = h.url; // getDb() of the route module opens this database
  for (const k of ENV) delete process.env[k];
  process.env.SYMTRACE_EMBEDDED_WORKER = "0";
  process.env.SYMTRACE_REPLAY_UPSTREAM = "http://127.0.0.1:9/v1";
  db = h.db;
  await importCase(db, { bundle: read(path.join(ROOT, "demo/reference-orchestrator.bundle.json")) });
  await importCase(db, { bundle: read(path.join(SHARED, "fixtures/bundles/gold-c1.bundle.json")) });
  researcher = await signedInUser(db, ["researcher"]);
  route = (await import("../../../app/api/experiments/route")) as H;
  routes.list = (await import("../../../app/api/experiments/route")) as R;
  routes.one = (await import("../../../app/api/experiments/[id]/route")) as R;
  routes.attempts = (await import("../../../app/api/experiments/[id]/attempts/route")) as R;
  routes.report = (await import("../../../app/api/experiments/[id]/report/route")) as R;
  routes.cancel = (await import("../../../app/api/experiments/[id]/cancel/route")) as R;
  routes.check = (await import("../../../app/api/experiments/check/route")) as R;
}, 120_000);
afterAll(async () => {
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
  await db?.$disconnect();
});

const post = (body: unknown) => route.POST(new Request("http://app.test/api/experiments", { method: "POST", headers: { "content-type": "application/json", cookie: researcher.cookie }, body: JSON.stringify(body) }));

describe("POST /api/experiments: the creation check", () => {
  test("a case the evaluator cannot judge: 400 naming it and why, nothing created; the judgeable case alone: 201", async () => {
    const refused = await post({ methods: ["suspicious-node"], attempts: 1, evaluator: "hilltop", cases: { bundleIds: [HILL, GOLD] } });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: string; at: string };
    expect(body.at).toBe("$.cases");
    expect(body.error).toMatch(/^1 of 2 case\(s\) cannot be judged by evaluator hilltop/);
    expect(body.error).toContain(`${GOLD}: evaluator hilltop judges only`);
    expect(body.error).not.toContain(`${HILL}:`);
    expect(await db.experiment.count()).toBe(0);

    const ok = await post({ methods: ["suspicious-node"], attempts: 1, evaluator: "hilltop", cases: { bundleIds: [HILL] } });
    expect(ok.status).toBe(201);
    const { experiment } = (await ok.json()) as { experiment: { id: string } };
    expect(await db.experiment.count()).toBe(1);
    const row = await db.experiment.findUniqueOrThrow({ where: { id: experiment.id } });
    expect(row.settingsJson).toContain("hilltop-evaluator.mjs");
  });

  test("no evaluator configured: 400, nothing created", async () => {
    process.env.SYMTRACE_BUILTIN_EVALUATORS = "0";
    try {
      const before = await db.experiment.count();
      const r = await post({ methods: ["suspicious-node"], attempts: 1, cases: { bundleIds: [HILL] } });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toMatch(/no evaluator is configured, so no attempt could get a verdict/);
      expect(await db.experiment.count()).toBe(before);
    } finally {
      delete process.env.SYMTRACE_BUILTIN_EVALUATORS;
    }
  });
});

describe("experiments pool every case's labels: the all-cases blindness gate on every route", () => {
  test("a researcher who also annotates, with an assignment not yet submitted: 403 naming the open assignments (list, one, attempts ?case= and CSV, report JSON and CSV, cancel, check, create), nothing created; a researcher without assignments gets the attempts", async () => {
    const exp = await db.experiment.findFirstOrThrow({ select: { id: true } });
    const get = (u: string, who: { cookie: string }) => new Request(`http://app.test${u}`, { headers: { cookie: who.cookie } });
    const postAs = (u: string, who: { cookie: string }, body: unknown) => new Request(`http://app.test${u}`, { method: "POST", headers: { "content-type": "application/json", cookie: who.cookie }, body: JSON.stringify(body) });
    const ctx = { params: Promise.resolve({ id: exp.id }) };
    // what the gate guards: the attempts of a case, with the case's bundle id and category
    const open = await routes.attempts.GET!(get(`/api/experiments/${exp.id}/attempts?case=${encodeURIComponent(HILL)}`, researcher), ctx);
    expect(open.status).toBe(200);
    const { attempts } = (await open.json()) as { attempts: Array<{ caseBundleId?: string }> };
    expect(attempts.length).toBeGreaterThan(0);

    const both = await signedInUser(db, ["researcher", "annotator"]);
    const gold = await db.case.findFirstOrThrow({ where: { bundleId: GOLD }, select: { id: true } });
    await db.assignment.create({ data: { caseId: gold.id, userId: both.id, role: "annotator" } });
    const error = "Experiments are hidden while you have unsubmitted annotations of your own (1 open annotator assignment)";
    const before = await db.experiment.count();
    for (const r of [
      await routes.list.GET!(get("/api/experiments", both)),
      await routes.list.POST!(postAs("/api/experiments", both, { methods: ["suspicious-node"], attempts: 1, evaluator: "hilltop", cases: { bundleIds: [HILL] } })),
      await routes.one.GET!(get(`/api/experiments/${exp.id}`, both), ctx),
      await routes.attempts.GET!(get(`/api/experiments/${exp.id}/attempts?case=${encodeURIComponent(HILL)}`, both), ctx),
      await routes.attempts.GET!(get(`/api/experiments/${exp.id}/attempts?format=csv`, both), ctx),
      await routes.report.GET!(get(`/api/experiments/${exp.id}/report?format=json`, both), ctx),
      await routes.report.GET!(get(`/api/experiments/${exp.id}/report?format=csv&table=attempts`, both), ctx),
      await routes.cancel.POST!(postAs(`/api/experiments/${exp.id}/cancel`, both, {}), ctx),
      await routes.check.POST!(postAs("/api/experiments/check", both, { cases: { bundleIds: [HILL] } })),
    ]) {
      expect(r.status).toBe(403);
      expect(await r.json()).toEqual({ error, openOwn: 1 });
    }
    expect(await db.experiment.count()).toBe(before);
    expect((await db.experiment.findUniqueOrThrow({ where: { id: exp.id } })).status).not.toBe("cancelled");
  });
});
