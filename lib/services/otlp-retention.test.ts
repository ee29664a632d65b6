/**
 * Retention of staged OTLP spans (issue 16 item 1 leftover): once a trace's case is assembled and
 * the trace has been idle for the retention time, its staged spans and the request bodies left
 * without spans are deleted; the case stays as assembled. A span arriving after that is stored
 * (acknowledged spans are never dropped) but not merged: the case is not replaced by the late
 * spans alone, the trace records why. On a fresh migrated test database, times given explicitly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshTestDb } from "../db/test-db";
import { bundleHash, exportBundle, getOtlpTraceState, otlpStagingReport, pruneAssembledOtlpTraces, storeOtlpBatch, type Db } from "../db";
import { encodeProtobufRequest, indexProtobufRequest } from "../otlp/codec";
import { assembleDueOtlpTraces } from "./otlp-assembler";

let db: Db;
const HOUR = 3_600_000;
const A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const C = "cccccccccccccccccccccccccccccccc";
const T0 = 1_767_000_000_000_000_000n;

function span(traceId: string, n: number, parent = "") {
  const id = n.toString(16).padStart(16, "0");
  return { traceId, spanId: id, parentSpanId: parent, name: `step-${n}`, kind: 1, startTimeUnixNano: String(T0 + BigInt(n) * 1_000_000n), endTimeUnixNano: String(T0 + BigInt(n + 1) * 1_000_000n), status: { code: 1 } };
}
async function send(spans: ReturnType<typeof span>[], nowMs: number) {
  const body = Buffer.from(encodeProtobufRequest({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: "retention-test" }, spans }] }] }));
  return storeOtlpBatch(db, { kind: "protobuf", body, keys: indexProtobufRequest(body).keys, nowMs });
}
const staged = (traceId: string) => db.otlpSpan.count({ where: { traceId } });
const caseOf = async (traceId: string) => {
  const c = await db.case.findUniqueOrThrow({ where: { bundleId: `otlp/${traceId}` } });
  return { id: c.id, nodes: c.nodeCount, hash: c.bundleHash };
};

beforeAll(async () => {
  ({ db } = await freshTestDb());
}, 120_000);
afterAll(async () => {
  await db.$disconnect();
});

describe("retention of staged spans", () => {
  const now = Date.now();
  it("prunes only assembled traces idle past the retention; bodies shared with a kept trace stay", async () => {
    // A: three batches, 3 hours ago; the last one shared with B (pending, never assembled)
    await send([span(A, 1), span(A, 2, "0000000000000001")], now - 3 * HOUR);
    await send([span(A, 3, "0000000000000001")], now - 3 * HOUR);
    await send([span(A, 4, "0000000000000001"), span(B, 1)], now - 3 * HOUR);
    await send([span(C, 1), span(C, 2, "0000000000000001")], now - 3 * HOUR);
    const done = await assembleDueOtlpTraces(db, { idleMs: 0, traceId: A });
    expect(done.map((d) => [d.bundleId, d.status, d.spans])).toEqual([[`otlp/${A}`, "imported", 4]]);
    expect((await assembleDueOtlpTraces(db, { idleMs: 0, traceId: C }))[0].status).toBe("imported");
    const before = await caseOf(A);
    const beforeHash = bundleHash((await exportBundle(db, { caseId: before.id }))!);

    // within the retention: nothing happens (assembled just now)
    expect(await pruneAssembledOtlpTraces(db, { retainMs: HOUR, nowMs: now + 30 * 60_000 })).toEqual({ traces: 0, spans: 0, batches: 0 });
    const report0 = await otlpStagingReport(db, { retainMs: HOUR, nowMs: now + 2 * HOUR });
    expect(report0).toMatchObject({ spans: 7, batches: 4, traces: 3, pending: 1, prunedTraces: 0, prunableTraces: 2, lateAfterPrune: 0 });
    expect(report0.bodyBytes).toBeGreaterThan(100);
    expect(report0.oldestSpanAgeSeconds).toBe(5 * 3600);

    // past it: A and C pruned (B is pending); A's two own bodies and C's body deleted, the shared one kept for B
    const p = await pruneAssembledOtlpTraces(db, { retainMs: HOUR, nowMs: now + 2 * HOUR });
    expect(p).toEqual({ traces: 2, spans: 6, batches: 3 });
    expect(await staged(A)).toBe(0);
    expect(await staged(C)).toBe(0);
    expect(await staged(B)).toBe(1);
    expect(await db.otlpBatch.count()).toBe(1);
    const after = await caseOf(A);
    expect(after).toEqual(before);
    expect(bundleHash((await exportBundle(db, { caseId: after.id }))!)).toBe(beforeHash);
    const st = await getOtlpTraceState(db, `otlp/${A}`);
    expect(st).toMatchObject({ pending: false, error: null, receivedSpans: 4, assembledSpans: 4, prunedAt: new Date(now + 2 * HOUR).toISOString() });
    const report1 = await otlpStagingReport(db, { retainMs: HOUR, nowMs: now + 2 * HOUR });
    expect(report1).toMatchObject({ spans: 1, batches: 1, pending: 1, prunedTraces: 2, prunableTraces: 0 });
    // B is still assembled from its staged span (the shared body was kept)
    expect((await assembleDueOtlpTraces(db, { idleMs: 0, traceId: B }))[0]).toMatchObject({ status: "imported", spans: 1 });
  });

  it("a span arriving after pruning is stored, not merged: the case keeps every span it had, the trace says why", async () => {
    const before = await caseOf(A);
    expect(await send([span(A, 5, "0000000000000001")], Date.now())).toEqual({ spans: 1, traces: 1 });
    expect((await getOtlpTraceState(db, `otlp/${A}`))!.pending).toBe(true);
    const r = await assembleDueOtlpTraces(db, { idleMs: 0, traceId: A });
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ status: "failed", spans: 1, stillPending: false });
    expect(r[0].error).toMatch(/^1 span\(s\) arrived after the staged spans of this trace were deleted by retention at .*not merged; the case keeps the 4 spans assembled before, the late spans stay staged$/);
    expect(await caseOf(A)).toEqual(before);
    const st = await getOtlpTraceState(db, `otlp/${A}`);
    expect(st).toMatchObject({ pending: false, receivedSpans: 5, assembledSpans: null });
    expect(st!.error).toBe(r[0].error);
    // the late span stays staged: retention never deletes spans the case does not hold
    expect(await pruneAssembledOtlpTraces(db, { retainMs: HOUR, nowMs: Date.now() + 5 * HOUR })).toMatchObject({ traces: 1 }); // B only
    expect(await staged(A)).toBe(1);
    expect(await staged(B)).toBe(0);
    expect((await otlpStagingReport(db, { retainMs: HOUR })).lateAfterPrune).toBe(1);
  });

  it("a pending or claimed trace is never pruned; retainMs must be positive", async () => {
    const D = "dddddddddddddddddddddddddddddddd";
    await send([span(D, 1)], now - 3 * HOUR);
    expect((await pruneAssembledOtlpTraces(db, { retainMs: HOUR, nowMs: now + 10 * HOUR })).traces).toBe(0); // pending
    await assembleDueOtlpTraces(db, { idleMs: 0, traceId: D });
    await db.otlpTrace.update({ where: { traceId: D }, data: { claimedUntilMs: BigInt(now + 20 * HOUR) } });
    expect((await pruneAssembledOtlpTraces(db, { retainMs: HOUR, nowMs: now + 10 * HOUR })).traces).toBe(0); // held by an assembler
    expect(await staged(D)).toBe(1);
    await expect(pruneAssembledOtlpTraces(db, { retainMs: 0 })).rejects.toThrow(/retainMs must be > 0/);
  });
});
