/**
 * Issue 15 "Done when" on the calibrated world (./mars-compare.ts): MARS (the `mars` experiment
 * method, in-process) repairs failures that a single node-level replay (Generic Nudge at the
 * detector's anchor = the repair boundary) misses, at a measured rate with a Wilson interval above
 * 0, consistent with the world's truth table; every tree node is a valid bundle whose parent's
 * prefix verified. LOCAL seeded scripted model, LOCAL scripted selector, judge command; no real
 * model. MARS_COMPARE_CASES (default 10) and MARS_COMPARE_ITERATIONS (default 8) size it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runMarsComparison, type MarsCompareResult } from "./mars-compare";

const CASES = Number(process.env.MARS_COMPARE_CASES ?? 10);
const ITERATIONS = Number(process.env.MARS_COMPARE_ITERATIONS ?? 8);
let dir: string;
let r: MarsCompareResult;

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-mars-compare-"));
  r = await runMarsComparison({ cases: CASES, iterations: ITERATIONS, dir });
  const f = (x: { x: number; n: number; lo: number | null; hi: number | null; predicted: number }) => `${x.x}/${x.n} [${((x.lo ?? 0) * 100).toFixed(1)}%, ${((x.hi ?? 0) * 100).toFixed(1)}%] (truth predicts ${x.predicted.toFixed(2)})`;
  console.log(
    `MARS vs single replay: single ${f(r.single)}; MARS ${f(r.mars)}; MARS where single failed ${f(r.marsWhereSingleFailed)}; ${r.nodes.total} tree nodes checked\n` +
      r.cases.map((c) => `  ${c.id} ${c.category}: single ${c.single.passed ? "pass" : "fail"}, mars ${c.mars.passed ? "pass" : "fail"} (${c.mars.iterations} it, ${c.mars.draws} draws, Σp ${c.mars.h.toFixed(2)})`).join("\n"),
  );
}, 900_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const inside = (predicted: number, ci: { lo: number | null; hi: number | null }, n: number) => {
  expect(ci.lo).not.toBeNull();
  expect(predicted / n).toBeGreaterThanOrEqual(ci.lo!);
  expect(predicted / n).toBeLessThanOrEqual(ci.hi!);
};

describe("MARS vs a single node-level replay on the calibrated world", () => {
  test("every attempt ran to a verdict; every tree node is a valid bundle whose prefix verified", () => {
    expect(r.n).toBe(CASES);
    for (const c of r.cases) {
      expect([c.single.status, c.mars.status, c.mars.error], c.id).toEqual([c.single.passed ? "passed" : "failed", c.mars.passed ? "passed" : "failed", null]);
      // The scripted selector rolls the finished source back first, then repairs from the cut.
      expect(c.nodeChecks.length, c.id).toBe(c.mars.nodes - 1);
      expect(c.nodeChecks.some((k) => k.kind === "rollback")).toBe(true);
      // Exact judge: a repaired search stops solved, a failed one spends its iterations.
      expect(c.mars.stopped, c.id).toBe(c.mars.passed ? "solved" : "iterations");
      // one judge call per built node, at least one selector reply per iteration; a repeated
      // (identical sibling) rollback takes a reply but builds nothing and saturates its parent, so at
      // most one such extra reply per built node
      expect(c.mars.auxCalls, c.id).toBeGreaterThanOrEqual(2 * c.mars.iterations);
      expect(c.mars.auxCalls, c.id).toBeLessThanOrEqual(3 * c.mars.iterations + 1);
      expect(c.mars.calls, c.id).toBeGreaterThan(0);
      expect(c.mars.auxTokens, c.id).toBeGreaterThan(0);
    }
    expect(r.nodes.total).toBeGreaterThan(CASES * 3);
    expect(r.nodes.problems).toEqual([]);
    expect([r.nodes.invalid, r.nodes.unverified]).toEqual([0, 0]);
    expect(r.cases.flatMap((c) => c.nodeChecks).filter((k) => k.kind === "guided_repair").length).toBeGreaterThan(0);
  });

  test("MARS repairs failures the single replay missed, at a rate above 0 and consistent with the truth table", () => {
    const m = r.marsWhereSingleFailed;
    expect(m.x).toBeGreaterThan(0);
    expect(m.lo!).toBeGreaterThan(0);
    inside(m.predicted, m, r.n);
    inside(r.single.predicted, r.single, r.n);
    inside(r.mars.predicted, r.mars, r.n);
    // The single replay draws once at B with the nudge class (truth: 0.40).
    for (const c of r.cases) expect(c.single.p, c.id).toBeCloseTo(0.4, 10);
    expect(r.mars.x).toBeGreaterThan(r.single.x);
  });
});
