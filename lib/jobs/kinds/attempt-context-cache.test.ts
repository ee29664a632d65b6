/**
 * The experiment-attempt worker's kept context (./attempt-context-cache.ts): the same values as
 * the database gives, fewer queries. SQLite by default; PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../../bundle";
import type { DbHandle } from "../../db/client";
import { bundleHash, exportBundle, importCase } from "../../db/cases";
import { createExperiment, stampFakeExperiment } from "../../db/experiments";
import { freshTestDb } from "../../db/test-db";
import type { ExperimentSettings } from "../../services/experiments/methods/types";
import { AttemptContextCache } from "./attempt-context-cache";

let h: DbHandle;
const settings = (budget: ExperimentSettings["budget"]): ExperimentSettings => ({
  upstream: "http://127.0.0.1:9/v1",
  toolUpstream: null,
  model: null,
  evaluator: null,
  reproductionJudge: null,
  command: ["node", "mas.js"],
  seed: 5,
  attempts: 1,
  budget,
  timeoutMs: 60_000,
});

beforeAll(async () => {
  h = await freshTestDb();
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

/** Count the Prisma operations `f` runs on h.db (model + action). */
async function counting<T>(f: () => Promise<T>): Promise<{ value: T; ops: string[] }> {
  const ops: string[] = [];
  const db = h.db as unknown as Record<string, unknown>;
  const restore: Array<() => void> = [];
  for (const model of ["case", "experiment", "experimentCase"]) {
    const m = db[model] as Record<string, (...a: unknown[]) => unknown>;
    for (const action of ["findUnique"]) {
      const orig = m[action];
      m[action] = (...a: unknown[]) => {
        ops.push(`${model}.${action}`);
        return orig.apply(m, a);
      };
      restore.push(() => (m[action] = orig));
    }
  }
  try {
    return { value: await f(), ops };
  } finally {
    for (const r of restore) r();
  }
}

describe("AttemptContextCache", () => {
  test("the source bundle equals exportBundle's, is exported once per content, and each caller gets its own copy", async () => {
    const b = syntheticBundle({ id: "acc-src", turns: 3, seed: 7 });
    const { caseId } = await importCase(h.db, { bundle: b });
    const cache = new AttemptContextCache();
    const want = await exportBundle(h.db, { caseId });
    const first = await cache.sourceBundle(h.db, { caseId, bundleId: b.id });
    expect(first).toEqual(want);
    expect(bundleHash(first!)).toBe(bundleHash(b));
    first!.graph.nodes[0].label = "changed by a method";
    const again = await counting(() => cache.sourceBundle(h.db, { caseId, bundleId: b.id }));
    expect(again.value).toEqual(want); // the change above did not reach the kept bundle
    expect(again.ops).toEqual(["case.findUnique"]); // the hash check only, no export
    // The case row is gone (caseId stale): found by bundle id, as buildAttemptContext did.
    expect(await cache.sourceBundle(h.db, { caseId: "no-such-row", bundleId: b.id })).toEqual(want);
    expect(await cache.sourceBundle(h.db, { caseId: null, bundleId: "no-such-bundle" })).toBeNull();
  });

  test("a case re-imported with other content is exported again", async () => {
    const b1 = syntheticBundle({ id: "acc-re", turns: 2, seed: 1 });
    const b2 = syntheticBundle({ id: "acc-re", turns: 4, seed: 2 });
    const cache = new AttemptContextCache();
    await importCase(h.db, { bundle: b1 });
    expect(bundleHash((await cache.sourceBundle(h.db, { caseId: null, bundleId: "acc-re" }))!)).toBe(bundleHash(b1));
    const r = await importCase(h.db, { bundle: b2 });
    expect(r.status).toBe("replaced");
    const got = await cache.sourceBundle(h.db, { caseId: r.caseId, bundleId: "acc-re" });
    expect(bundleHash(got!)).toBe(bundleHash(b2));
    expect(got!.graph.nodes.length).toBe(b2.graph.nodes.length);
  });

  test("settings are read once until forgotten (the fake stamp); the budget question once per experiment", async () => {
    const { caseId } = await importCase(h.db, { bundle: syntheticBundle({ id: "acc-exp", turns: 2, seed: 3 }) });
    const none = await createExperiment(h.db, { settings: settings({ maxCalls: null, maxTokens: null }), methods: ["rerun"], caseIds: [caseId], caseSet: { kind: "list" } });
    const capped = await createExperiment(h.db, { settings: settings({ maxCalls: 10, maxTokens: null }), methods: ["rerun"], caseIds: [caseId], caseSet: { kind: "list" } });
    const cache = new AttemptContextCache();
    const s1 = await cache.settingsJson(h.db, none.id);
    expect(JSON.parse(s1!).seed).toBe(5);
    expect((await counting(() => cache.settingsJson(h.db, none.id))).ops).toEqual([]);
    await stampFakeExperiment(h.db, none.id, "fake methods (test)");
    cache.forgetSettings(none.id);
    expect(JSON.parse((await cache.settingsJson(h.db, none.id))!).fake).toBe("fake methods (test)");
    expect(await cache.settingsJson(h.db, "no-such-experiment")).toBeNull();

    expect(await cache.mayHaveBudget(h.db, none.id)).toBe(false);
    expect(await cache.mayHaveBudget(h.db, capped.id)).toBe(true);
    const again = await counting(async () => [await cache.mayHaveBudget(h.db, none.id), await cache.mayHaveBudget(h.db, capped.id)]);
    expect(again.value).toEqual([false, true]);
    expect(again.ops).toEqual([]);
    expect(await cache.mayHaveBudget(h.db, "no-such-experiment")).toBe(true);

    const row = await h.db.experimentCase.findFirstOrThrow({ where: { experimentId: none.id } });
    const kept = await cache.experimentCase(h.db, row.id);
    expect(kept).toEqual(row);
    kept!.task = "changed by a caller";
    const again2 = await counting(() => cache.experimentCase(h.db, row.id));
    expect(again2.value).toEqual(row);
    expect(again2.ops).toEqual([]);
    expect(await cache.experimentCase(h.db, "no-such-case")).toBeNull();
  });
});
