import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import type { AttemptOutcome, ExperimentSettings } from "../experiments/settings";
import { importCase } from "./cases";
import type { DbHandle } from "./client";
import {
  budgetUsage,
  checkBudget,
  claimAttempt,
  claimNextAttempt,
  completeIfDone,
  createExperiment,
  ExperimentError,
  findExperimentCases,
  finishAttempt,
  getExperiment,
  listExperimentAttempts,
  listExperimentCases,
  listClaimableAttemptIds,
  listExperiments,
  MAX_ATTEMPT_CLAIMS,
  releaseAttempt,
  renewAttemptLease,
  stopExperiment,
  sweepExperiments,
} from "./experiments";
import { freshTestDb } from "./test-db";

const PG = !!process.env.TEST_DATABASE_URL;
let h: DbHandle;
const caseIds: string[] = [];

const settings = (o: Partial<ExperimentSettings> = {}): ExperimentSettings => ({
  upstream: "http://127.0.0.1:9/v1",
  toolUpstream: null,
  model: "m",
  evaluator: null,
  reproductionJudge: null,
  command: null,
  seed: 7,
  attempts: 3,
  budget: { maxCalls: null, maxTokens: null },
  timeoutMs: 60_000,
  ...o,
});

const outcome = (status: AttemptOutcome["status"], calls = 2, tokens = 50): AttemptOutcome => ({
  status,
  passed: status === "passed" ? true : status === "failed" || status === "error" ? false : null,
  reproduced: status === "failed" ? true : null,
  anchorNodeId: null,
  guidance: null,
  bundle: null,
  final: { answer: status },
  calls,
  auxCalls: 1,
  tokens: { prompt: tokens - 10, completion: 10, total: tokens },
  error: status === "error" ? "boom" : null,
  skipReason: status === "skipped" ? "n/a" : null,
  masMs: 12,
  judgeReason: null,
});

beforeAll(async () => {
  h = await freshTestDb();
  for (let i = 0; i < 3; i++) {
    const b = syntheticBundle({ id: `exp-src-${i}`, turns: 2, seed: 1 + i * 3 + 1 });
    const labels =
      i === 0
        ? [{ source: "calibrated", annotator: "truth", nodeId: b.order[3], agent: null, failureModes: [], reason: null, extra: { primaryCategory: "C3", categories: ["C3", "C1"] } }]
        : i === 1
          ? [{ source: "who_and_when", annotator: "consensus", nodeId: b.order[2], agent: null, failureModes: [], reason: null, extra: {} }]
          : [];
    caseIds.push((await importCase(h.db, { bundle: b, referenceLabels: labels })).caseId);
  }
  // a passed case and a replay product: left out of a --from-db filter by default
  const passed = syntheticBundle({ id: "exp-src-passed", turns: 2, seed: 3 });
  await importCase(h.db, { bundle: passed });
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

describe(`lib/db/experiments (${PG ? "PostgreSQL" : "SQLite"})`, () => {
  test("create freezes settings, cases and references; node-level methods get k rows, task-level one", async () => {
    const e = await createExperiment(h.db, { name: "t1", settings: settings(), methods: ["rerun", "nudge"], caseIds, caseSet: { kind: "list" } });
    expect(e.status).toBe("queued");
    expect(e.caseCount).toBe(3);
    expect(e.methods).toEqual(["rerun", "nudge"]);
    expect(e.settings).toMatchObject({ upstream: "http://127.0.0.1:9/v1", seed: 7, attempts: 3, budget: { maxCalls: null, maxTokens: null } });
    expect(e.caseSet).toEqual({ kind: "list", bundleIds: ["exp-src-0", "exp-src-1", "exp-src-2"] });
    expect(e.progress.rows).toBe(3 + 9);
    expect(e.progress.byMethod.rerun).toMatchObject({ queued: 3, planned: 9 });
    expect(e.progress.byMethod.nudge).toMatchObject({ queued: 9, planned: 9 });
    const cases = await listExperimentCases(h.db, e.id);
    expect(cases[0]).toMatchObject({ bundleId: "exp-src-0", mas: "synthetic", primaryCategory: "C3", reference: { primaryCategory: "C3", categories: ["C3", "C1"] } });
    expect(cases[1].reference).toBeNull(); // a dataset label without a C1–C4 category
    expect(cases[2].reference).toBeNull();
    expect((await listExperiments(h.db)).map((x) => x.id)).toContain(e.id);
  });

  test("bad input names the path", async () => {
    const bad = async (f: () => Promise<unknown>, at: string, msg: RegExp) => {
      const err = await f().then(() => null, (x: unknown) => x);
      expect(err).toBeInstanceOf(ExperimentError);
      expect((err as ExperimentError).at).toBe(at);
      expect((err as Error).message).toMatch(msg);
    };
    await bad(() => createExperiment(h.db, { settings: settings(), methods: ["rerun", "magic"], caseIds, caseSet: { kind: "list" } }), "$.methods[1]", /unknown method "magic"/);
    await bad(() => createExperiment(h.db, { settings: settings({ attempts: 0 }), methods: ["rerun"], caseIds, caseSet: { kind: "list" } }), "$.settings.attempts", /1 to 20/);
    await bad(() => createExperiment(h.db, { settings: settings({ upstream: "ftp://x" }), methods: ["rerun"], caseIds, caseSet: { kind: "list" } }), "$.settings.upstream", /http/);
    await bad(() => createExperiment(h.db, { settings: settings({ budget: { maxCalls: -1, maxTokens: null } }), methods: ["rerun"], caseIds, caseSet: { kind: "list" } }), "$.settings.budget.maxCalls", /positive/);
    await bad(() => createExperiment(h.db, { settings: settings(), methods: ["rerun"], caseIds: [caseIds[0], "nope"], caseSet: { kind: "list" } }), "$.cases[1]", /no case/);
    await bad(() => createExperiment(h.db, { settings: settings(), methods: ["rerun"], caseIds: [], caseSet: { kind: "list" } }), "$.cases", /empty/);
  });

  test("a --from-db filter selects failed source cases only", async () => {
    const found = await findExperimentCases(h.db, {});
    expect(found.map((c) => c.bundleId)).toEqual(["exp-src-0", "exp-src-1", "exp-src-2"]);
    expect((await findExperimentCases(h.db, { includePassed: true })).length).toBe(4);
    expect((await findExperimentCases(h.db, { limit: 2 })).length).toBe(2);
  });

  test("claim is exclusive; only the lease owner records; a failed task-level attempt chains the next; a pass ends the chain", async () => {
    const e = await createExperiment(h.db, { settings: settings({ attempts: 2 }), methods: ["rerun"], caseIds: [caseIds[0]], caseSet: { kind: "list" } });
    const [a1] = await listExperimentAttempts(h.db, e.id);
    const [x, y] = await Promise.all([claimAttempt(h.db, a1.id, "w1", 10_000), claimAttempt(h.db, a1.id, "w2", 10_000)]);
    expect([x, y].filter(Boolean).length).toBe(1);
    const owner = x ? "w1" : "w2";
    const other = x ? "w2" : "w1";
    expect((await getExperiment(h.db, e.id))?.status).toBe("running");
    expect(await finishAttempt(h.db, a1.id, other, outcome("passed"))).toEqual({ recorded: false, nextAttemptId: null });
    const fin = await finishAttempt(h.db, a1.id, owner, outcome("failed"));
    expect(fin.recorded).toBe(true);
    expect(fin.nextAttemptId).toBeTruthy();
    // recording twice is refused
    expect((await finishAttempt(h.db, a1.id, owner, outcome("passed"))).recorded).toBe(false);
    const a2 = await claimNextAttempt(h.db, "w3", 10_000, { experimentId: e.id });
    expect(a2).toMatchObject({ id: fin.nextAttemptId, attempt: 2, method: "rerun" });
    expect(await finishAttempt(h.db, a2!.id, "w3", outcome("failed"))).toMatchObject({ recorded: true, nextAttemptId: null }); // k = 2 reached
    expect(await completeIfDone(h.db, e.id)).toBe("finished");
    const rows = await listExperimentAttempts(h.db, e.id);
    expect(rows.map((r) => [r.attempt, r.status, r.passed])).toEqual([
      [1, "failed", false],
      [2, "failed", false],
    ]);
    expect(rows[0]).toMatchObject({ calls: 2, auxCalls: 1, tokens: { prompt: 40, completion: 10, total: 50 }, final: { answer: "failed" }, masMs: 12, claims: 1 });
    // a final experiment: nothing claimable
    expect(await claimNextAttempt(h.db, "w4", 10_000, { experimentId: e.id })).toBeNull();

    const e2 = await createExperiment(h.db, { settings: settings({ attempts: 3 }), methods: ["self-reflection"], caseIds: [caseIds[1]], caseSet: { kind: "list" } });
    const b1 = await claimNextAttempt(h.db, "w1", 10_000, { experimentId: e2.id });
    expect(await finishAttempt(h.db, b1!.id, "w1", outcome("passed"))).toMatchObject({ recorded: true, nextAttemptId: null });
    expect(await completeIfDone(h.db, e2.id)).toBe("finished");
    expect((await getExperiment(h.db, e2.id))?.progress.rows).toBe(1);
  });

  test("an experiment reserved for a runner is claimed only by that runner (the app's workers and queue sweeps never see it)", async () => {
    const e = await createExperiment(h.db, { settings: settings({ attempts: 1 }), methods: ["last-node"], caseIds: [caseIds[2]], caseSet: { kind: "list" }, runner: "harness" });
    const [a] = await listExperimentAttempts(h.db, e.id);
    expect(await claimNextAttempt(h.db, "app", 10_000, { experimentId: e.id })).toBeNull();
    expect(await claimAttempt(h.db, a.id, "app", 10_000)).toBeNull();
    expect(await claimNextAttempt(h.db, "other", 10_000, { experimentId: e.id, runner: "other-harness" })).toBeNull();
    expect(await listClaimableAttemptIds(h.db, { experimentId: e.id })).toEqual([]);
    const mine = await claimNextAttempt(h.db, "h1", 10_000, { experimentId: e.id, runner: "harness" });
    expect(mine).toMatchObject({ id: a.id, leaseOwner: "h1" });
    expect((await finishAttempt(h.db, a.id, "h1", outcome("passed"))).recorded).toBe(true);
    expect(await completeIfDone(h.db, e.id)).toBe("finished");
  });

  test("an expired lease is reclaimed (claims + 1) and the old owner can no longer record; too many deaths → error", async () => {
    const e = await createExperiment(h.db, { settings: settings({ attempts: 1 }), methods: ["last-node"], caseIds: [caseIds[2]], caseSet: { kind: "list" } });
    const a = await claimNextAttempt(h.db, "dead", 1, { experimentId: e.id });
    expect(a).not.toBeNull();
    await new Promise((r) => setTimeout(r, 20));
    expect((await renewAttemptLease(h.db, a!.id, "other", 1000)).owned).toBe(false);
    const again = await claimNextAttempt(h.db, "alive", 10_000, { experimentId: e.id });
    expect(again).toMatchObject({ id: a!.id, claims: 2, leaseOwner: "alive" });
    expect((await finishAttempt(h.db, a!.id, "dead", outcome("passed"))).recorded).toBe(false);
    expect(await releaseAttempt(h.db, a!.id, "alive")).toBe(true);
    // the third death makes it an error instead of a fourth run
    const c3 = await claimAttempt(h.db, a!.id, "dying", 1);
    expect(c3?.claims).toBe(MAX_ATTEMPT_CLAIMS);
    await new Promise((r) => setTimeout(r, 20));
    expect(await claimAttempt(h.db, a!.id, "late", 10_000)).toBeNull();
    expect(await sweepExperiments(h.db)).toContain(a!.id);
    const [row] = await listExperimentAttempts(h.db, e.id);
    expect(row).toMatchObject({ status: "error", passed: false });
    expect(row.error).toMatch(/stopped reporting 3 times/);
    expect((await getExperiment(h.db, e.id))?.status).toBe("finished");
  });

  test("cancel: queued attempts are cancelled (not run), the running one is told to stop; final when it ends", async () => {
    const e = await createExperiment(h.db, { settings: settings({ attempts: 2 }), methods: ["nudge"], caseIds, caseSet: { kind: "list" } });
    const a = await claimNextAttempt(h.db, "w", 10_000, { experimentId: e.id });
    expect(await stopExperiment(h.db, e.id, "cancelled", { actor: null })).toBe(true);
    expect(await stopExperiment(h.db, e.id, "budget-exhausted")).toBe(false); // the first reason wins
    expect(await renewAttemptLease(h.db, a!.id, "w", 10_000)).toEqual({ owned: true, stop: "cancelled" });
    let v = await getExperiment(h.db, e.id);
    expect(v).toMatchObject({ status: "running", stopReason: "cancelled", cancelRequested: true });
    expect(v?.progress.total).toMatchObject({ running: 1, cancelled: 5 });
    expect(await claimNextAttempt(h.db, "w2", 10_000, { experimentId: e.id })).toBeNull();
    await finishAttempt(h.db, a!.id, "w", outcome("cancelled", 1, 10));
    expect(await completeIfDone(h.db, e.id)).toBe("cancelled");
    v = await getExperiment(h.db, e.id);
    expect(v?.finishedAt).not.toBeNull();
    const skipped = (await listExperimentAttempts(h.db, e.id)).filter((r) => r.id !== a!.id);
    expect(skipped.every((r) => r.status === "cancelled" && r.skipReason === "not run: the experiment was cancelled")).toBe(true);
  });

  test("budget: calls of final attempts reach maxCalls → remaining attempts not run, status budget-exhausted", async () => {
    const e = await createExperiment(h.db, { settings: settings({ attempts: 2, budget: { maxCalls: 6, maxTokens: null } }), methods: ["random-node"], caseIds, caseSet: { kind: "list" } });
    for (let i = 0; i < 2; i++) {
      const a = await claimNextAttempt(h.db, "w", 10_000, { experimentId: e.id });
      await finishAttempt(h.db, a!.id, "w", outcome("failed", 2, 50)); // 2 + 1 aux = 3 calls each
      expect(await checkBudget(h.db, e.id)).toBe(i === 1);
    }
    expect(await budgetUsage(h.db, e.id)).toEqual({ calls: 6, tokens: 100 });
    const v = await getExperiment(h.db, e.id);
    expect(v).toMatchObject({ status: "budget-exhausted", stopReason: "budget-exhausted" });
    expect(v?.progress.total).toMatchObject({ failed: 2, cancelled: 4 });
    expect((await listExperimentAttempts(h.db, e.id, { status: "cancelled" }))[0].skipReason).toBe("not run: budget exhausted (calls 6/6)");
  });
});
