import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { createSearch, DEFAULT_SETTINGS, type SearchState } from "../repair-search";
import { openDb, type Db, type DbHandle } from "./client";
import { importCase } from "./cases";
import {
  claimNextRepairSearch,
  claimRepairSearch,
  createRepairSearch,
  finishRepairSearch,
  getRepairSearch,
  listClaimableRepairSearchIds,
  listRepairSearches,
  MAX_REPAIR_SEARCH_CLAIMS,
  releaseRepairSearch,
  renewRepairSearchLease,
  RepairSearchDbError,
  requestRepairSearchCancel,
  saveRepairSearchState,
  sweepRepairSearches,
  type RepairSearchSettings,
} from "./repair-searches";
import { freshTestDb } from "./test-db";

let h: DbHandle;
let other: Db;
let caseId: string;
let case2: string;

const SETTINGS: RepairSearchSettings = {
  upstream: "http://127.0.0.1:9/v1",
  toolUpstream: null,
  model: null,
  selector: { upstream: "http://127.0.0.1:9/v1", model: "sel" },
  judge: { kind: "command", cmd: "node judge.mjs" },
  evaluator: null,
  search: { ...DEFAULT_SETTINGS, iterations: 5 },
  seed: 7,
  maxCalls: 40,
  maxTokens: null,
  command: null,
};

function stateWith(iteration: number): SearchState {
  const s = createSearch({ stateRef: "n0.bundle.json", checkpoints: ["a"], finished: true, liveSteps: 0, usage: { calls: 0, tokens: 0 } }, { iterations: 5 });
  s.iteration = iteration;
  s.usage.selector = { calls: iteration, tokens: 10 * iteration };
  s.usage.judge = { calls: iteration, tokens: 5 };
  s.usage.mas = { calls: 4 * iteration, tokens: 100 };
  return s;
}

beforeAll(async () => {
  h = await freshTestDb();
  other = openDb(h.url).db;
  caseId = (await importCase(h.db, { bundle: syntheticBundle({ id: "rs-source", turns: 2 }) })).caseId;
  case2 = (await importCase(h.db, { bundle: syntheticBundle({ id: "rs-source-2", turns: 2 }) })).caseId;
}, 60_000);
afterAll(async () => {
  await other?.$disconnect();
  await h?.db.$disconnect();
});

describe(`lib/db repair searches (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("create queues a search with frozen settings (budget mirrored), root n0 = the source case; list/get; bad input names the field", async () => {
    const v = await createRepairSearch(h.db, { sourceCaseId: caseId, settings: SETTINGS });
    expect(v).toMatchObject({ status: "queued", sourceCaseId: caseId, sourceBundleId: "rs-source", state: null, nodeCases: { n0: caseId }, best: null, error: null, claims: 0 });
    expect(v.settings.search.budget).toEqual({ maxCalls: 40, maxTokens: null });
    expect(v.settings.search.iterations).toBe(5);
    expect(v.usage).toEqual({ selector: { calls: 0, tokens: 0 }, judge: { calls: 0, tokens: 0 }, mas: { calls: 0, tokens: 0 } });
    expect((await getRepairSearch(h.db, v.id))?.id).toBe(v.id);
    expect(await getRepairSearch(h.db, "nope")).toBeNull();
    expect(await h.db.auditEvent.count({ where: { action: "repair-search.create", entityId: v.id } })).toBe(1);

    await expect(createRepairSearch(h.db, { sourceCaseId: "missing", settings: SETTINGS })).rejects.toMatchObject({ code: "not-found", at: "$.sourceCaseId" });
    const bad = createRepairSearch(h.db, { sourceCaseId: caseId, settings: { ...SETTINGS, search: { ...SETTINGS.search, k: 0 } } });
    await expect(bad).rejects.toBeInstanceOf(RepairSearchDbError);
    await expect(bad).rejects.toMatchObject({ code: "invalid", at: "$.settings.search.k" });
    await expect(createRepairSearch(h.db, { sourceCaseId: caseId, settings: { ...SETTINGS, judge: { kind: "command", cmd: " " } } })).rejects.toMatchObject({ at: "$.settings.judge" });

    const w = await createRepairSearch(h.db, { sourceCaseId: case2, settings: SETTINGS });
    const all = await listRepairSearches(h.db);
    expect(all.map((x) => x.id).slice(0, 2)).toEqual([w.id, v.id]);
    expect((await listRepairSearches(h.db, { sourceCaseId: case2 })).map((x) => x.id)).toEqual([w.id]);
    expect(await listRepairSearches(h.db, { sourceCaseId: caseId, limit: 1 })).toHaveLength(1);
    // leave the queue empty for the next tests
    await requestRepairSearchCancel(h.db, v.id);
    await requestRepairSearchCancel(h.db, w.id);
  });

  test("exactly one of two concurrent claimers wins; only the holder saves state; the view derives best and usage from it", async () => {
    const v = await createRepairSearch(h.db, { sourceCaseId: caseId, settings: SETTINGS });
    const [a, b] = await Promise.all([claimRepairSearch(h.db, v.id, "w-a", 60_000), claimRepairSearch(other, v.id, "w-b", 60_000)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    const winner = a ? "w-a" : "w-b";
    const loser = a ? "w-b" : "w-a";
    const s = stateWith(2);
    s.nodes.n1 = { ...s.nodes.n0, id: "n1", parentId: "n0", depth: 1, iteration: 1, verdict: { score: 0.6, failureMode: "FM 2.6", feedback: "f", foundSolution: false } };
    s.order.push("n1");
    s.bestId = "n1";
    s.maxR = 0.6;
    expect(await saveRepairSearchState(h.db, v.id, loser, { state: s, nodeCases: { n0: caseId, n1: "c1" } })).toBe(false);
    expect(await saveRepairSearchState(h.db, v.id, winner, { state: s, nodeCases: { n0: caseId, n1: "c1" } }, 60_000)).toBe(true);
    const got = (await getRepairSearch(h.db, v.id))!;
    expect(got.status).toBe("running");
    expect(got.claims).toBe(1);
    expect(got.state?.iteration).toBe(2);
    expect(got.best).toEqual({ nodeId: "n1", score: 0.6, passed: null, caseId: "c1" });
    expect(got.usage).toEqual({ selector: { calls: 2, tokens: 20 }, judge: { calls: 2, tokens: 5 }, mas: { calls: 8, tokens: 100 } });
    expect(got.startedAt).not.toBeNull();

    expect(await renewRepairSearchLease(h.db, v.id, loser, 60_000)).toEqual({ owned: false, cancel: false });
    expect(await renewRepairSearchLease(h.db, v.id, winner, 60_000)).toEqual({ owned: true, cancel: false });
    await requestRepairSearchCancel(h.db, v.id);
    expect(await renewRepairSearchLease(h.db, v.id, winner, 60_000)).toEqual({ owned: true, cancel: true });
    expect((await getRepairSearch(h.db, v.id))!.status).toBe("running");

    expect(await finishRepairSearch(h.db, v.id, loser, { status: "completed" })).toBe(false);
    s.stopped = "cancelled";
    expect(await finishRepairSearch(h.db, v.id, winner, { status: "cancelled", state: s, passed: null })).toBe(true);
    const fin = (await getRepairSearch(h.db, v.id))!;
    expect(fin).toMatchObject({ status: "cancelled", stopped: "cancelled", best: { nodeId: "n1", score: 0.6 } });
    expect(fin.finishedAt).not.toBeNull();
    // final: nothing changes it any more
    expect(await saveRepairSearchState(h.db, v.id, winner, { state: stateWith(3), nodeCases: {} })).toBe(false);
    expect(await claimRepairSearch(h.db, v.id, "w-c", 60_000)).toBeNull();
  });

  test("a search reserved for a runner is claimed only by that runner; queue sweeps and ordinary workers never see it", async () => {
    const v = await createRepairSearch(h.db, { sourceCaseId: caseId, settings: SETTINGS, runner: "harness" });
    expect(await listClaimableRepairSearchIds(h.db)).not.toContain(v.id);
    expect(await claimRepairSearch(h.db, v.id, "app", 60_000)).toBeNull();
    expect(await claimRepairSearch(h.db, v.id, "app", 60_000, { runner: "another" })).toBeNull();
    const mine = await claimNextRepairSearch(h.db, "h-1", 60_000, { runner: "harness" });
    expect(mine).toMatchObject({ id: v.id, status: "running", workerId: "h-1" });
    expect(await finishRepairSearch(h.db, v.id, "h-1", { status: "cancelled", state: stateWith(1), passed: null })).toBe(true);
  });

  test("an expired lease is taken over (claims + 1) with the saved state; after MAX claims the sweep marks it interrupted; release requeues", async () => {
    const v = await createRepairSearch(h.db, { sourceCaseId: caseId, settings: SETTINGS });
    expect(await listClaimableRepairSearchIds(h.db)).toEqual([v.id]);
    expect((await claimNextRepairSearch(h.db, "w-1", 1))?.id).toBe(v.id);
    expect(await saveRepairSearchState(h.db, v.id, "w-1", { state: stateWith(3), nodeCases: { n0: caseId } })).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(await claimNextRepairSearch(h.db, "w-1b", 60_000)).not.toBeNull();
    // the dead worker can no longer write
    expect(await saveRepairSearchState(h.db, v.id, "w-1", { state: stateWith(4), nodeCases: {} })).toBe(false);
    const taken = (await getRepairSearch(h.db, v.id))!;
    expect(taken).toMatchObject({ workerId: "w-1b", claims: 2 });
    expect(taken.state?.iteration).toBe(3);

    expect(await releaseRepairSearch(h.db, v.id, "w-1b")).toBe(true);
    expect((await getRepairSearch(h.db, v.id))!).toMatchObject({ status: "queued", workerId: null });
    expect((await claimRepairSearch(h.db, v.id, "w-2", 1))?.claims).toBe(3);
    await new Promise((r) => setTimeout(r, 10));
    expect(await claimRepairSearch(h.db, v.id, "w-3", 60_000)).toBeNull(); // MAX claims reached
    expect(MAX_REPAIR_SEARCH_CLAIMS).toBe(3);
    expect(await sweepRepairSearches(h.db)).toEqual([v.id]);
    const swept = (await getRepairSearch(h.db, v.id))!;
    expect(swept.status).toBe("interrupted");
    expect(swept.error).toMatch(/stopped reporting 3 times/);
    expect(swept.state?.iteration).toBe(3);
  });

  test("cancel: a queued search is cancelled at once and never claimed; unknown id → not-found", async () => {
    const v = await createRepairSearch(h.db, { sourceCaseId: case2, settings: SETTINGS });
    const c = await requestRepairSearchCancel(h.db, v.id, null);
    expect(c.status).toBe("cancelled");
    expect(await claimRepairSearch(h.db, v.id, "w", 60_000)).toBeNull();
    await expect(requestRepairSearchCancel(h.db, "nope")).rejects.toMatchObject({ code: "not-found" });
  });

  test("deleting the source case deletes its searches", async () => {
    const id3 = (await importCase(h.db, { bundle: syntheticBundle({ id: "rs-source-3", turns: 1 }) })).caseId;
    const v = await createRepairSearch(h.db, { sourceCaseId: id3, settings: SETTINGS });
    await h.db.case.delete({ where: { id: id3 } });
    expect(await getRepairSearch(h.db, v.id)).toBeNull();
  });
});
