import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle, type ReplayBundle } from "../bundle";
import { openDb, type Db, type DbHandle } from "./client";
import { exportBundle, importCase } from "./cases";
import {
  claimNextRun,
  claimRun,
  createReplayRuns,
  finishRun,
  getRun,
  heartbeat,
  interruptRun,
  listRunsForCase,
  markInterrupted,
  ReplayRunError,
  requestCancel,
  retryRun,
  type ReplayRunOutcome,
} from "./replay-runs";
import { freshTestDb } from "./test-db";

let h: DbHandle;
let other: Db;
let src: { caseId: string; bundle: ReplayBundle; target: string };
const ENDPOINT = { upstream: "http://127.0.0.1:9/v1", model: "m", toolUpstream: null };

beforeAll(async () => {
  h = await freshTestDb();
  other = openDb(h.url).db;
  const bundle = syntheticBundle({ id: "rr-source", turns: 3 });
  const { caseId } = await importCase(h.db, { bundle });
  src = { caseId, bundle, target: bundle.order[5] };
}, 60_000);
afterAll(async () => {
  await other?.$disconnect();
  await h?.db.$disconnect();
});

const completedWith = (bundle: ReplayBundle, id: string): ReplayRunOutcome => ({
  status: "completed",
  mode: "transcript",
  bundle: { ...bundle, id, parent: { bundleId: bundle.id, targetNodeId: src.target, guidance: "g", mode: "selective" } },
  boundaryNodeId: src.target,
  verified: 5,
  liveCalls: 1,
});

async function newRun(count = 1) {
  return createReplayRuns(h.db, { sourceCaseId: src.caseId, targetNodeId: src.target, guidance: "g", count, endpoint: ENDPOINT });
}

describe(`lib/db replay runs (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("createReplayRuns queues N runs in one group with audit events, and validates its input", async () => {
    const { groupId, runs } = await newRun(3);
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((r) => r.groupId))).toEqual(new Set([groupId]));
    expect(runs.every((r) => r.status === "queued" && r.attempt === 0 && r.sourceBundleId === "rr-source")).toBe(true);
    expect(runs[0].endpoint).toEqual({ upstream: ENDPOINT.upstream, model: "m", toolUpstream: null });
    expect(await h.db.auditEvent.count({ where: { action: "replay.create", entityId: { in: runs.map((r) => r.id) } } })).toBe(3);
    await expect(createReplayRuns(h.db, { sourceCaseId: src.caseId, targetNodeId: src.target, guidance: "", count: 6, endpoint: ENDPOINT })).rejects.toThrow(ReplayRunError);
    await expect(createReplayRuns(h.db, { sourceCaseId: src.caseId, targetNodeId: "nope", guidance: "", count: 1, endpoint: ENDPOINT })).rejects.toThrow(/no node/);
    await expect(createReplayRuns(h.db, { sourceCaseId: "nope", targetNodeId: src.target, guidance: "", count: 1, endpoint: ENDPOINT })).rejects.toThrow(/no case/);
    await expect(createReplayRuns(h.db, { sourceCaseId: src.caseId, targetNodeId: src.target, guidance: "", count: 1, endpoint: { upstream: "ftp://x" } })).rejects.toThrow(/http/);
    // leave nothing queued for the next tests
    for (const r of runs) await requestCancel(h.db, r.id, null);
  });

  test("a run against the scripted stand-in records endpoint.scripted (the UI's label); never without an upstream", async () => {
    const scripted = await createReplayRuns(h.db, { sourceCaseId: src.caseId, targetNodeId: src.target, guidance: "", count: 1, endpoint: { ...ENDPOINT, scripted: true } });
    expect(scripted.runs[0].endpoint).toEqual({ upstream: ENDPOINT.upstream, model: "m", toolUpstream: null, scripted: true });
    expect((await getRun(other, scripted.runs[0].id))!.endpoint.scripted).toBe(true);
    const none = await createReplayRuns(h.db, { sourceCaseId: src.caseId, targetNodeId: src.target, guidance: "", count: 1, endpoint: { upstream: null, scripted: true } });
    expect(none.runs[0].endpoint).toEqual({ upstream: null, model: null, toolUpstream: null });
    for (const r of [...scripted.runs, ...none.runs]) await requestCancel(h.db, r.id, null);
  });

  test("claims are exclusive: two clients racing over 12 runs claim each exactly once", async () => {
    const { runs } = await newRun(5);
    const more = [...(await newRun(5)).runs, ...(await newRun(2)).runs];
    const ids = new Set([...runs, ...more].map((r) => r.id));
    const claimed: Record<string, string[]> = {};
    const racer = async (db: Db, w: string) => {
      for (;;) {
        const row = await claimNextRun(db, w);
        if (!row) return;
        (claimed[row.id] ??= []).push(w);
      }
    };
    await Promise.all([racer(h.db, "A"), racer(other, "B"), racer(h.db, "C"), racer(other, "D")]);
    expect(new Set(Object.keys(claimed))).toEqual(ids);
    expect(Object.values(claimed).every((ws) => ws.length === 1)).toBe(true);
    // a second claim of a running run (e.g. a pg-boss job delivered twice) gets nothing
    const first = [...ids][0];
    expect(await claimRun(h.db, first, "Z")).toBeNull();
    for (const id of ids) await finishRun(h.db, id, claimed[id][0], { status: "cancelled", verified: 0 });
  });

  test("heartbeat saves progress; finishRun(completed) imports the bundle as a child case", async () => {
    const { runs } = await newRun(1);
    const row = await claimNextRun(h.db, "w1");
    expect(row?.id).toBe(runs[0].id);
    const hb = await heartbeat(h.db, runs[0].id, "w1", { phase: "prefix", verified: 3, prefixTotal: 5, liveCalls: 0, boundaryNodeId: src.target });
    expect(hb).toEqual({ owned: true, cancelRequested: false });
    expect((await getRun(h.db, runs[0].id))?.progress).toMatchObject({ verified: 3, prefixTotal: 5, phase: "prefix" });
    // another worker's heartbeat or result is refused
    expect((await heartbeat(h.db, runs[0].id, "w2", null)).owned).toBe(false);
    expect((await finishRun(h.db, runs[0].id, "w2", { status: "failed", error: "x", verified: 0 })).recorded).toBe(false);

    const fin = await finishRun(h.db, runs[0].id, "w1", completedWith(src.bundle, "rr-child-1"));
    expect(fin).toMatchObject({ status: "completed", recorded: true });
    const run = await getRun(h.db, runs[0].id);
    expect(run).toMatchObject({ status: "completed", mode: "transcript", resultBundleId: "rr-child-1", boundaryNodeId: src.target });
    expect(run?.progress).toMatchObject({ verified: 5, liveCalls: 1 });
    const child = await h.db.case.findUnique({ where: { bundleId: "rr-child-1" } });
    expect(child?.parentBundleId).toBe("rr-source");
    expect(child?.sourceDataset).toBe("replay");
    expect(child?.id).toBe(run?.resultCaseId);
    expect((await exportBundle(h.db, { bundleId: "rr-child-1" }))?.parent?.bundleId).toBe("rr-source");
    expect(await h.db.auditEvent.count({ where: { entityId: runs[0].id, action: "replay.finish" } })).toBe(1);
  });

  test("a bundle that cannot be imported marks the run failed and keeps the bundle", async () => {
    const { runs } = await newRun(1);
    await claimNextRun(h.db, "w1");
    // same id as the source (which has replays) but other content: CaseConflictError
    const clash = completedWith({ ...src.bundle, task: { ...src.bundle.task, prompt: "other" } }, "rr-x");
    if (clash.status === "completed") clash.bundle = { ...clash.bundle, id: "rr-source" };
    const fin = await finishRun(h.db, runs[0].id, "w1", clash);
    expect(fin.status).toBe("failed");
    const run = await getRun(h.db, runs[0].id);
    expect(run?.error?.message).toMatch(/could not be stored/);
    expect((run?.result?.bundle as ReplayBundle).task.prompt).toBe("other");
    expect(run?.resultCaseId).toBeNull();
  });

  test("cancel: queued → cancelled at once; running → cancelRequested", async () => {
    const { runs } = await newRun(2);
    await claimRun(h.db, runs[1].id, "w1");
    expect((await requestCancel(h.db, runs[0].id, null)).status).toBe("cancelled");
    const r1 = await requestCancel(h.db, runs[1].id, null);
    expect(r1).toMatchObject({ status: "running", cancelRequested: true });
    expect((await heartbeat(h.db, runs[1].id, "w1", null)).cancelRequested).toBe(true);
    await finishRun(h.db, runs[1].id, "w1", { status: "cancelled", verified: 1 });
    expect((await getRun(h.db, runs[1].id))?.status).toBe("cancelled");
    expect(await claimRun(h.db, runs[0].id, "w1")).toBeNull();
    await expect(requestCancel(h.db, "nope", null)).rejects.toThrow(ReplayRunError);
  });

  test("markInterrupted: only stale running runs; retryRun makes a new queued attempt", async () => {
    const { runs } = await newRun(2);
    await claimRun(h.db, runs[0].id, "dead");
    await claimRun(h.db, runs[1].id, "alive");
    await heartbeat(h.db, runs[0].id, "dead", { verified: 2, prefixTotal: 9, liveCalls: 0 });
    const later = new Date(Date.now() + 60_000);
    await heartbeat(h.db, runs[1].id, "alive", null);
    // pretend "alive" keeps beating: move its heartbeat into the future window
    await h.db.replayRun.update({ where: { id: runs[1].id }, data: { heartbeatAt: later } });
    const changed = await markInterrupted(h.db, { staleAfterMs: 30_000, now: new Date(Date.now() + 45_000) });
    expect(changed).toEqual([runs[0].id]);
    const dead = await getRun(h.db, runs[0].id);
    expect(dead).toMatchObject({ status: "interrupted", progress: { verified: 2, prefixTotal: 9 } });
    expect(dead?.error?.message).toMatch(/stopped reporting/);
    expect(await h.db.auditEvent.count({ where: { entityId: runs[0].id, action: "replay.interrupted" } })).toBe(1);
    // running and completed runs are not retryable
    await expect(retryRun(h.db, runs[1].id, null)).rejects.toThrow(/only interrupted, failed, cancelled/);
    const again = await retryRun(h.db, runs[0].id, null);
    expect(again).toMatchObject({ status: "queued", attempt: 1, retryOfId: runs[0].id, groupId: dead?.groupId, targetNodeId: src.target, guidance: "g" });
    expect(again.endpoint).toEqual(dead?.endpoint);
    expect(await h.db.auditEvent.count({ where: { entityId: again.id, action: "replay.retry" } })).toBe(1);
    // the worker that was presumed dead still delivers its result: kept
    const fin = await finishRun(h.db, runs[0].id, "dead", completedWith(src.bundle, "rr-late"));
    expect(fin.status).toBe("completed");
    // shutdown release
    expect(await interruptRun(h.db, runs[1].id, "alive", "bye")).toBe(true);
    expect((await getRun(h.db, runs[1].id))?.status).toBe("interrupted");
    await requestCancel(h.db, again.id, null);
  });

  test("listRunsForCase follows the lineage through replays of replays", async () => {
    const { runs } = await newRun(1);
    await claimRun(h.db, runs[0].id, "w");
    await finishRun(h.db, runs[0].id, "w", completedWith(src.bundle, "rr-gen1"));
    const gen1 = (await getRun(h.db, runs[0].id))?.resultCaseId as string;
    const g1bundle = (await exportBundle(h.db, { caseId: gen1 })) as ReplayBundle;
    const r2 = await createReplayRuns(h.db, { sourceCaseId: gen1, targetNodeId: src.target, guidance: "again", count: 1, endpoint: ENDPOINT, createdById: null });
    // a case imported by hand from a replayed bundle (no run row) is part of the lineage too
    await importCase(h.db, { bundle: { ...g1bundle, id: "rr-gen2-file", parent: { bundleId: "rr-gen1", targetNodeId: src.target, guidance: "x", mode: "selective" } } });
    const lin = await listRunsForCase(h.db, src.caseId);
    const mine = lin.runs.find((r) => r.id === runs[0].id);
    const child = lin.runs.find((r) => r.id === r2.runs[0].id);
    expect(mine).toMatchObject({ depth: 0, status: "completed", resultBundleId: "rr-gen1", guidance: "g" });
    expect(child).toMatchObject({ depth: 1, status: "queued", sourceBundleId: "rr-gen1", guidance: "again" });
    expect(lin.cases.map((c) => c.bundleId)).toEqual(expect.arrayContaining(["rr-source", "rr-gen1", "rr-gen2-file", "rr-late", "rr-child-1"]));
    expect(lin.cases.find((c) => c.bundleId === "rr-gen2-file")?.depth).toBe(2);
    // from the child's point of view only its own subtree
    const sub = await listRunsForCase(h.db, gen1);
    expect(sub.runs.map((r) => r.id)).toEqual([r2.runs[0].id]);
    await requestCancel(h.db, r2.runs[0].id, null);
  });
});
