/**
 * The observed partial order (issue 21 item 4) and that existing bundles replay unchanged: the
 * gold bundles (the shared fixtures bundles), which have no `meta.observed`, verify record by record
 * in recorded order exactly as before, and a skipped record is still reported at the same seq.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { BoundaryRecord, ReplayBundle } from "../bundle";
import { ReadyTracker, observedSpans } from "./order";
import { ReplaySession } from "./session";

const rec = (seq: number, meta: Record<string, unknown> = {}, boundary: "llm" | "tool" = "llm") => ({ seq, nodeId: `n${seq}`, boundary, request: {}, requestHash: "", response: null, meta }) as BoundaryRecord;

describe("observedSpans / ReadyTracker", () => {
  test("recorded predecessors are the calls that ended before a call began", () => {
    // 0: [0,1]  1: [2,5]  2: [3,4]  3: [6,7]  -> 1 and 2 concurrent; 3 after all
    const R = [rec(0, { observed: { start: 0, end: 1 } }), rec(1, { observed: { start: 2, end: 5 } }), rec(2, { observed: { start: 3, end: 4 } }), rec(3, { observed: { start: 6, end: 7 } })];
    const { spans, synthesized } = observedSpans(R);
    expect(synthesized).toBe(false);
    const t = new ReadyTracker(spans);
    expect([0, 1, 2, 3].map((i) => t.isReady(i))).toEqual([true, false, false, false]);
    t.serve(0);
    expect([1, 2, 3].map((i) => t.isReady(i))).toEqual([true, true, false]);
    t.serve(2);
    expect(t.isReady(3)).toBe(false);
    expect(t.unservedPredecessors(3)).toEqual([1]);
    t.serve(1);
    expect(t.isReady(3)).toBe(true);
    expect(() => t.serve(1)).toThrow("already served");
  });

  test("without meta.observed: the total order of seq, parallel tool groups as sets", () => {
    const R = [rec(0), rec(1, { parallelGroup: "g" }, "tool"), rec(2, { parallelGroup: "g" }, "tool"), rec(3)];
    const { spans, synthesized } = observedSpans(R);
    expect(synthesized).toBe(true);
    const t = new ReadyTracker(spans);
    t.serve(0);
    expect([1, 2, 3].map((i) => t.isReady(i))).toEqual([true, true, false]);
    t.serve(2);
    expect(t.isReady(3)).toBe(false);
    t.serve(1);
    expect(t.isReady(3)).toBe(true);
  });

  test("a call that never completed is nobody's predecessor", () => {
    const R = [rec(0, { observed: { start: 0 } }), rec(1, { observed: { start: 1, end: 2 } })];
    const t = new ReadyTracker(observedSpans(R).spans);
    expect(t.isReady(1)).toBe(true);
  });

  test("a malformed meta.observed falls back to the total order", () => {
    expect(observedSpans([rec(0, { observed: { start: 3, end: 1 } }), rec(1, { observed: { start: 4, end: 5 } })]).synthesized).toBe(true);
  });
});

describe("existing bundles replay unchanged (gold bundles)", () => {
  const dir = path.resolve(__dirname, "../../../shared/fixtures/bundles");
  const files = readdirSync(dir).filter((f) => f.endsWith(".bundle.json"));
  test.each(files)("%s verifies in recorded order; a skipped record is named at its seq", (f) => {
    const b = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as ReplayBundle;
    expect(b.records.length).toBeGreaterThan(0);
    const s = new ReplaySession({ source: b });
    for (const r of b.records) {
      const step = s.begin({ boundary: r.boundary, request: r.request });
      expect(step.kind, `${f} seq ${r.seq}`).toBe("recorded");
    }
    expect(s.end()).toBeNull();
    expect(s.maskReport).toBeNull();
    // Skip seq 0: the request of seq 1 is refused, reported at seq 0 (missing-call, as before).
    const skip = new ReplaySession({ source: b });
    const r1 = b.records.find((r) => r.seq === 1 && r.requestHash !== b.records[0].requestHash);
    if (!r1) return;
    const step = skip.begin({ boundary: r1.boundary, request: r1.request });
    expect(step).toMatchObject({ kind: "diverged", report: { seq: 0 } });
    if (step.kind === "diverged") expect(["missing-call", "reordered"]).toContain(step.report.reason);
  });
});
