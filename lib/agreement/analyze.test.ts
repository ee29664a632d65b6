import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { analyzeAnnotations, bootstrapFleiss, pooledBinaryFleiss, readAnnotations, validateAnnotations, type AnnotatedCase, type AgreementReport } from ".";
import { importMad } from "../importers/mad";

const SHARED = new URL("../../../shared/", import.meta.url);
const text = (p: string) => readFileSync(new URL(p, SHARED), "utf8");
const expected = JSON.parse(text("fixtures/agreement/synthetic-60.expected.json"));
const read = readAnnotations(text("fixtures/agreement/synthetic-60.annotations.json"));
if (!read.ok) throw new Error(JSON.stringify(read.errors));
const cases = read.file.cases;
const report = analyzeAnnotations(cases, { resamples: 2000 });

/** Every numeric leaf of `want` with its path. */
function leaves(want: unknown, path: string[] = []): Array<[string, number, string[]]> {
  if (typeof want === "number") return [[path.join("."), want, path]];
  if (Array.isArray(want)) return want.flatMap((v, i) => leaves(v, [...path, String(i)]));
  if (want && typeof want === "object") return Object.entries(want).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [];
}
const at = (o: unknown, path: string[]): unknown => path.reduce<unknown>((x, k) => (x as Record<string, unknown>)[k], o);

describe("synthetic-60 reproduces every point figure of synthetic-60.expected.json (1e-9)", () => {
  test.each(leaves(expected))("%s = %d", (_name, want, path) => {
    const got = at(report, path);
    expect(typeof got).toBe("number");
    expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(1e-9);
  });
});

const variables = (r: AgreementReport) => ({ primaryCategory: r.primaryCategory, categorySet: r.categorySet, ...r.presence, nodeType: r.nodeType });

describe("bootstrap intervals", () => {
  test.each(Object.entries(variables(report)))("%s: interval contains its point estimate", (_k, v) => {
    expect(v.kappa).not.toBeNull();
    expect(v.ci95![0]).toBeLessThanOrEqual(v.kappa!);
    expect(v.ci95![1]).toBeGreaterThanOrEqual(v.kappa!);
    expect(v.pairwiseAgreementCi95![0]).toBeLessThanOrEqual(v.pairwiseAgreement);
    expect(v.pairwiseAgreementCi95![1]).toBeGreaterThanOrEqual(v.pairwiseAgreement);
  });
  test("same seed gives identical intervals, a different seed different ones", () => {
    const a = analyzeAnnotations(cases, { resamples: 2000, seed: 7 });
    const b = analyzeAnnotations(cases, { resamples: 2000, seed: 7 });
    const c = analyzeAnnotations(cases, { resamples: 2000, seed: 8 });
    const ci = (r: AgreementReport) => Object.values(variables(r)).map((v) => v.ci95);
    expect(ci(a)).toEqual(ci(b));
    expect(ci(a)).not.toEqual(ci(c));
  });
  test("default is the paper's protocol: 20,000 resamples, seed 20260722", () => {
    const r = analyzeAnnotations(cases);
    expect(r.bootstrap).toMatchObject({ resamples: 20000, seed: 20260722, level: 0.95 });
    expect(r.bootstrap.quantileRule).toMatch(/type 7/);
  });
  test("presence variables derived from the category set give the same interval as alone", () => {
    const sets = cases.map((c) => c.initial.map((a) => [...a.categories].sort().join("+")));
    const c1 = cases.map((c) => c.initial.map((a) => a.categories.includes("C1")));
    const joint = bootstrapFleiss([{ key: "set", ratings: sets }, { key: "C1", ratings: c1 }], { resamples: 500, seed: 3 });
    const alone = bootstrapFleiss([{ key: "C1", ratings: c1 }], { resamples: 500, seed: 3 });
    expect(joint.variables[1].kappaCi).toEqual(alone.variables[0].kappaCi);
    expect(joint.variables[1].pBarCi).toEqual(alone.variables[0].pBarCi);
  });
  test.each([
    [{ resamples: 0 }],
    [{ resamples: 1.5 }],
    [{ seed: 2 ** 40 }],
  ])("bad options %j throw", (o) => {
    expect(() => bootstrapFleiss([{ key: "x", ratings: [["a", "b", "a"]] }], o)).toThrow(RangeError);
  });
});

describe("undefined kappa", () => {
  const one = (caseId: string, nodeType: string): AnnotatedCase => ({
    caseId,
    initial: ["a", "b", "c"].map((annotator) => ({ annotator, categories: ["C1" as const], primary: "C1" as const, nodeId: "n1", nodeType })),
    final: { categories: ["C1"], primary: "C1", nodeId: "n1", nodeType },
  });
  const r = analyzeAnnotations([one("x", "tool_call"), one("y", "tool_result")], { resamples: 200 });
  test("every rating in one category: kappa null with reason, no interval", () => {
    expect(r.primaryCategory.kappa).toBeNull();
    expect(r.primaryCategory.kappaReason).toMatch(/P_e = 1/);
    expect(r.primaryCategory.ci95).toBeNull();
    expect(r.presence.C2.kappa).toBeNull();
    expect(r.krippendorff.primaryCategory.alpha).toBeNull();
    expect(r.cohen.primaryCategory[0].kappa).toBeNull();
  });
  test("a defined kappa whose resamples can be degenerate reports them", () => {
    expect(r.nodeType.kappa).toBe(1);
    expect(r.nodeType.undefinedResamples).toBeGreaterThan(0);
    // 2 cases: below MIN_CASES_FOR_CI, so no interval (the dashboard, its CSV and the release datasheet all read this)
    expect(r.nodeType.ci95).toBeNull();
    expect(r.nodeType.ciReason).toBe("n < 10: too few cases for a bootstrap interval");
    expect(r.nodeType.pairwiseAgreementCi95).toBeNull();
    expect(r.primaryCategory.ciReason).toMatch(/^κ undefined: .*P_e = 1/);
  });
  test("cases without three initial annotations are excluded and reported", () => {
    const gold = readAnnotations(text("fixtures/bundles/gold-annotations.json"));
    expect(gold.ok).toBe(true);
    if (!gold.ok) return;
    expect(() => analyzeAnnotations(gold.file.cases)).toThrow(/no case has 3/);
    const mixed = analyzeAnnotations([...cases.slice(0, 10), ...gold.file.cases], { resamples: 100 });
    expect(mixed.cases).toBe(10);
    expect(mixed.excluded).toHaveLength(4);
    expect(mixed.excluded[0].reason).toBe("0 initial annotations (3 required)");
    expect(mixed.final!.compositionCases).toBe(14);
    expect(mixed.final!.cases).toBe(10);
  });
});

describe("Table 5 on synthetic-60", () => {
  test("patterns partition the cases and match support counts", () => {
    const f = report.final!;
    const p = f.patterns;
    expect(p.unanimous.cases).toBe(report.tuple.allThree);
    expect(p.split.cases).toBe(report.tuple.atLeastTwo - report.tuple.allThree);
    expect(p.unanimous.cases + p.split.cases + p.allDistinct.cases).toBe(60);
    expect(f.supportedBy["3"]).toBe(p.unanimous.keptUnanimous);
    expect(f.supportedBy["2"]).toBe(p.split.keptMajority);
    expect(f.supportedBy["1"]).toBe(p.split.keptMinority + p.allDistinct.keptProposed);
    expect(f.supportedBy["0"]).toBe(p.unanimous.newTuple + p.split.newTuple + p.allDistinct.newTuple);
    expect(p).toEqual({
      unanimous: { cases: 9, keptUnanimous: 9, keptMajority: 0, keptMinority: 0, keptProposed: 0, newTuple: 0 },
      split: { cases: 26, keptUnanimous: 0, keptMajority: 22, keptMinority: 3, keptProposed: 0, newTuple: 1 },
      allDistinct: { cases: 25, keptUnanimous: 0, keptMajority: 0, keptMinority: 0, keptProposed: 22, newTuple: 3 },
    });
    expect(f.setDiffersFromUnion).toBe(25);
  });
});

describe("symtrace.annotations/v1 reader", () => {
  test.each([
    ["not JSON", "{", "$", /invalid JSON/],
    ["wrong format", JSON.stringify({ format: "x", cases: [] }), "$.format", /symtrace.annotations\/v1/],
    ["unknown key", JSON.stringify({ format: "symtrace.annotations/v1", cases: [{ caseId: "a", initial: [], nodeID: "x" }] }), "$.cases[0]", /nodeID/],
  ])("%s -> error at %s", (_n, src, path, msg) => {
    const r = readAnnotations(src);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.some((e) => e.path === path && msg.test(e.message))).toBe(true);
  });
  test("JSON paths for nested violations", () => {
    const v = JSON.parse(text("fixtures/agreement/synthetic-60.annotations.json"));
    v.cases[3].initial[1].primary = "C9";
    v.cases[4].initial[0].primary = v.cases[4].initial[0].categories.includes("C1") ? "C5" : "C1";
    v.cases[5].initial[2].annotator = v.cases[5].initial[0].annotator;
    v.cases[6].caseId = v.cases[0].caseId;
    v.cases[7].final.categories = [];
    const r = validateAnnotations(v);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["$.cases[3].initial[1].primary", "$.cases[5].initial[2].annotator", "$.cases[6].caseId", "$.cases[7].final.categories"]));
    expect(r.errors.find((e) => e.path.startsWith("$.cases[4].initial[0]"))).toBeDefined();
  });
  test("both fixture files validate", () => {
    expect(readAnnotations(text("fixtures/bundles/gold-annotations.json")).ok).toBe(true);
    expect(read.ok).toBe(true);
  });
});

describe("MAD: pooled binary Fleiss over (trace, failure mode)", () => {
  const imp = importMad(text("datasets/mast_mad/MAD_human_labelled_sample.json"), { fileName: "MAD_human_labelled_sample.json" });
  const r = pooledBinaryFleiss(imp.cases);
  test("kappa 0.9717 on 149 items, 2 NaN items excluded and listed", () => {
    expect(imp.failures).toEqual([]);
    expect(r.kappa!.toFixed(4)).toBe("0.9717");
    expect(r.items).toBe(149);
    expect(r.excluded.count).toBe(2);
    expect(r.excluded.items.map((i) => [i.trace, i.code, i.missing])).toEqual([
      ["mad/generlazability/18", "3.2", ["annotator_3"]],
      ["mad/generlazability/18", "3.3", ["annotator_3"]],
    ]);
  });
  test("a null rating is never read as false", () => {
    const c = { bundle: { id: "t" }, referenceLabels: ["a", "b", "c"].map((annotator, i) => ({ annotator, failureModes: [{ mode: "m", present: i === 2 ? null : true }, { mode: "n", present: false }] })) };
    const x = pooledBinaryFleiss([c]);
    expect(x.items).toBe(1);
    expect(x.excluded.items).toEqual([{ trace: "t", mode: "m", code: null, missing: ["c"] }]);
    expect(x.kappa).toBeNull();
  });
});
