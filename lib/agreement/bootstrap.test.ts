/**
 * Issue 20 item 8: the optimised Fleiss bootstrap (profiles, carriers, shared draws) against a
 * naive one — resampled ratings, Fleiss' κ from scratch per resample — on the SAME draws (the same
 * xoroshiro128+ stream and Lemire index rule), and resamples whose κ* is undefined.
 */
import { describe, expect, test } from "vitest";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { bootstrapFleiss } from "./bootstrap";
import { fleissKappaFromRatings } from "./fleiss";
import { quantileSorted } from "../stats";
import type { Label } from "./types";

/** The naive bootstrap: redraw the indices exactly as bootstrapFleiss does, rebuild each resample's ratings, compute κ* directly. */
function naive(vars: Array<{ key: string; ratings: Label[][] }>, B: number, seed: number, level = 0.95) {
  const N = vars[0].ratings.length;
  const rng = xoroshiro128plus(seed | 0);
  const reject = 4294967296 % N;
  const ks = vars.map(() => [] as number[]);
  for (let b = 0; b < B; b++) {
    const idx: number[] = [];
    for (let d = 0; d < N; d++) {
      let m = (rng.next() >>> 0) * N;
      let i = Math.floor(m / 4294967296);
      while (m - i * 4294967296 < reject) {
        m = (rng.next() >>> 0) * N;
        i = Math.floor(m / 4294967296);
      }
      idx.push(i);
    }
    vars.forEach((v, j) => {
      const k = fleissKappaFromRatings(idx.map((i) => v.ratings[i])).kappa;
      if (k !== null) ks[j].push(k);
    });
  }
  const a = (1 - level) / 2;
  return vars.map((v, j) => {
    const s = Float64Array.from(ks[j]).sort();
    const u = B - s.length;
    return { key: v.key, undefinedResamples: u, kappaCi: u >= a * B || s.length === 0 ? null : [quantileSorted(s, a), quantileSorted(s, 1 - a)] };
  });
}

/** Seeded synthetic ratings: 3 raters, a category set per rater, with given agreement. */
function synthetic(N: number, seed: number, agree: number) {
  const rng = xoroshiro128plus(seed);
  const u = () => (rng.next() >>> 0) / 4294967296;
  const cats = ["C1", "C2", "C3", "C4"];
  const sets: string[][] = [];
  for (let i = 0; i < N; i++) {
    const truth = cats.filter(() => u() < 0.35);
    if (truth.length === 0) truth.push(cats[Math.floor(u() * 4)]);
    sets.push([0, 1, 2].map(() => (u() < agree ? truth : cats.filter(() => u() < 0.3))).map((s) => (s.length ? s : ["C1"]).join("+")));
  }
  return [
    { key: "set", ratings: sets },
    ...cats.map((c) => ({ key: c, ratings: sets.map((r) => r.map((s) => s.split("+").includes(c))) })),
    { key: "type", ratings: sets.map((r, i) => r.map((_, j) => (i % 3 === 0 && j === 2 ? "tool_call" : "llm_call"))) },
  ];
}

describe("optimised bootstrapFleiss = naive bootstrap on the same draws", () => {
  test.each([
    [60, 11, 0.7, 2000],
    [25, 5, 0.5, 1500],
    [12, 9, 0.9, 1000],
  ])("N = %i (seed %i, agreement %f, B = %i): every interval and undefined count equal", (N, seed, agree, B) => {
    const vars = synthetic(N, seed, agree);
    const fast = bootstrapFleiss(vars, { resamples: B, seed: 20260722 });
    const slow = naive(vars, B, 20260722);
    for (let j = 0; j < vars.length; j++) {
      const f = fast.variables[j];
      const s = slow[j];
      expect(f.undefinedResamples, f.key).toBe(s.undefinedResamples);
      if (s.kappaCi === null) expect(f.kappaCi, f.key).toBeNull();
      else {
        expect(f.kappaCi![0]).toBeCloseTo(s.kappaCi[0], 12);
        expect(f.kappaCi![1]).toBeCloseTo(s.kappaCi[1], 12);
      }
    }
  });
});

describe("resamples whose κ* is undefined", () => {
  // One of N items breaks unanimity: many resamples miss it, and then every rating is in one category.
  const rare = (N: number): Label[][] => Array.from({ length: N }, (_, i) => (i === 0 ? ["a", "b", "a"] : ["a", "a", "a"]));

  test("more than the tail share (2.5% at 95%) undefined → no interval, with the reason; the count is kept", () => {
    // N = 12: P(item 0 never drawn) = (11/12)^12 ≈ 35% of resamples have κ* undefined
    const r = bootstrapFleiss([{ key: "x", ratings: rare(12) }], { resamples: 4000, seed: 1 }).variables[0];
    expect(r.undefinedResamples / 4000).toBeGreaterThan(0.3);
    expect(r.kappaCi).toBeNull();
    expect(r.kappaCiReason).toMatch(/κ\* undefined .* in \d+ of 4000 resamples, at least the 2\.5% of one tail/);
  });

  test("fewer than the tail share undefined → the interval over the defined resamples, the count beside it", () => {
    // N = 200 with 10 disagreeing items: P(none drawn) = (190/200)^200 ≈ 3.5e-5
    const ratings: Label[][] = Array.from({ length: 200 }, (_, i) => (i < 10 ? ["a", "b", "a"] : i < 60 ? ["b", "b", "b"] : ["a", "a", "a"]));
    const r = bootstrapFleiss([{ key: "x", ratings }], { resamples: 2000, seed: 1 }).variables[0];
    expect(r.undefinedResamples).toBeLessThan(50);
    expect(r.kappaCi).not.toBeNull();
    expect(r.kappaCiReason).toBeNull();
  });
});
