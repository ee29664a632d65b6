import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import {
  cohenKappa,
  cohenKappaFromConfusion,
  fleissKappa,
  fleissKappaFromRatings,
  fleissKappaPerCategory,
  krippendorffAlpha,
  percentileInterval,
  quantileSorted,
  ratingsToCounts,
  wilsonInterval,
  type AlphaMetric,
} from ".";

const FIX = new URL("../../../shared/fixtures/agreement/", import.meta.url);
const lit = JSON.parse(readFileSync(new URL("literature-vectors.json", FIX), "utf8"));
const fv = JSON.parse(readFileSync(new URL("fleiss-vectors.json", FIX), "utf8"));

/** Decimal places of a published value as written in the fixture (at least 6). */
const places = (x: number): number => Math.max(6, (String(x).split(".")[1] ?? "").length);
const close = (got: number | null, want: number, digits = places(want)) => {
  expect(got).not.toBeNull();
  expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(0.5 * 10 ** -digits + 1e-12);
};

describe("Fleiss' kappa: fleiss-vectors.json", () => {
  test.each(fv.vectors as Array<{ name: string; counts: number[][]; expected: { kappa: number | null; Pbar?: number; Pe?: number; reason?: string } }>)(
    "$name",
    ({ counts, expected }) => {
      const r = fleissKappa(counts);
      if (expected.kappa === null) {
        expect(r.kappa).toBeNull();
        expect(r.reason).toMatch(/P_e = 1/);
      } else {
        expect(Math.abs((r.kappa as number) - expected.kappa)).toBeLessThan(1e-9);
        expect(r.reason).toBeNull();
      }
      if (expected.Pbar !== undefined) expect(r.pBar).toBeCloseTo(expected.Pbar, 12);
      if (expected.Pe !== undefined) expect(r.pE).toBeCloseTo(expected.Pe, 12);
    },
  );
  test("Wikipedia example = 0.2099307 to 1e-7", () => {
    expect(Math.abs((fleissKappa(fv.vectors[0].counts).kappa as number) - 0.2099307)).toBeLessThan(1e-7);
  });
});

describe("Fleiss' kappa: literature-vectors.json", () => {
  type FV = { name: string; ratings: number[][]; expected: Record<string, unknown> };
  test.each(lit.fleiss as FV[])("$name", ({ ratings, expected }) => {
    const r = fleissKappaFromRatings(ratings);
    close(r.kappa, expected.kappa as number);
    if (expected.Pbar !== undefined) close(r.pBar, expected.Pbar as number);
    if (expected.Pe !== undefined) close(r.pE, expected.Pe as number);
    if (expected.perCategoryKappa) {
      const { categories, counts } = ratingsToCounts(ratings);
      const per = fleissKappaPerCategory(counts);
      for (const [cat, want] of Object.entries(expected.perCategoryKappa as Record<string, number>)) {
        close(per[categories.indexOf(Number(cat))].kappa, want);
      }
    }
    if (expected.raters1to3Kappa !== undefined) close(fleissKappaFromRatings(ratings.map((row) => row.slice(0, 3))).kappa, expected.raters1to3Kappa as number);
    if (expected.meanPairwiseCohenKappa !== undefined) {
      const n = ratings[0].length;
      const ks: number[] = [];
      for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) ks.push(cohenKappa(ratings.map((r) => r[a]), ratings.map((r) => r[b])).kappa as number);
      close(ks.reduce((x, y) => x + y, 0) / ks.length, expected.meanPairwiseCohenKappa as number);
    }
  });
  test.each([
    ["unequal rows", [[1, 1], [2]]],
    ["one rater", [[1], [0]]],
    ["empty", []],
  ])("rejects bad tables: %s", (_n, counts) => {
    expect(() => fleissKappa(counts as number[][])).toThrow(RangeError);
  });
});

describe("Krippendorff's alpha: literature-vectors.json", () => {
  const rows = (lit.krippendorff as Array<{ name: string; coders: Array<Array<number | null>>; expected: Record<AlphaMetric, number> }>).flatMap((v) =>
    Object.entries(v.expected).map(([metric, want]) => ({ name: v.name, coders: v.coders, metric: metric as AlphaMetric, want })),
  );
  test.each(rows)("$name, $metric", ({ coders, metric, want }) => {
    close(krippendorffAlpha(coders, metric).alpha, want);
  });
  test("undefined with one value only", () => {
    const r = krippendorffAlpha([["a", "a"], ["a", null]]);
    expect(r.alpha).toBeNull();
    expect(r.reason).toMatch(/one value/);
  });
});

describe("Cohen's kappa: literature-vectors.json", () => {
  type CV = { name: string; confusion?: number[][]; a?: number[]; b?: number[]; expected: { kappa: number; po?: number } };
  test.each(lit.cohen as CV[])("$name", ({ confusion, a, b, expected }) => {
    const r = confusion ? cohenKappaFromConfusion(confusion) : cohenKappa(a!, b!);
    close(r.kappa, expected.kappa);
    if (expected.po !== undefined) close(r.po, expected.po);
  });
  test("undefined when both raters use one category", () => {
    expect(cohenKappa(["x", "x"], ["x", "x"]).kappa).toBeNull();
  });
});

describe("Wilson 95%: literature-vectors.json", () => {
  test.each(lit.wilson95 as Array<{ x: number; n: number; expected: [number, number] }>)("$x/$n", ({ x, n, expected }) => {
    const r = wilsonInterval(x, n)!;
    // precision as written in the fixture: the longer of the two bounds (0.7 / 0.7742 = 4 places)
    const digits = Math.max(...expected.map((e) => (String(e).split(".")[1] ?? "").length));
    close(r[0], expected[0], digits);
    close(r[1], expected[1], digits);
    expect(r[0]).toBeLessThanOrEqual(x / n);
    expect(r[1]).toBeGreaterThanOrEqual(x / n);
  });
  test("n = 0 gives no interval; bad input throws", () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
  });
});

describe("quantile rule (Hyndman-Fan type 7)", () => {
  test.each([
    [[1, 2, 3, 4], 0.5, 2.5],
    [[1, 2, 3, 4], 0.025, 1.075],
    [[1, 2, 3, 4], 0.975, 3.925],
    [[7], 0.3, 7],
    [[0, 10], 1, 10],
  ])("%j at %d = %d (numpy.percentile linear)", (xs, p, want) => {
    expect(quantileSorted(Float64Array.from(xs), p)).toBeCloseTo(want, 12);
  });
  test("percentileInterval sorts a copy", () => {
    const d = [4, 1, 3, 2];
    expect(percentileInterval(d, 0.5)).toEqual([1.75, 3.25]);
    expect(d).toEqual([4, 1, 3, 2]);
  });
});

test("pure-rand generator is deterministic for a seed", () => {
  const a = xoroshiro128plus(20260722);
  const b = xoroshiro128plus(20260722);
  for (let i = 0; i < 10; i++) expect(a.next()).toBe(b.next());
});
