/**
 * The full agreement report of a set of annotated cases (seeds/000 Tables 5 and 6, Appendix B.3–B.5;
 * annotation-protocol.md "What the paper reports about its annotations").
 */
import { type AnnotatedCase, type Category, type InitialAnnotation } from "./annotations";
import { bootstrapFleiss, DEFAULT_RESAMPLES, DEFAULT_SEED } from "./bootstrap";
import { cohenKappa } from "./cohen";
import { fleissKappaFromRatings } from "./fleiss";
import { krippendorffAlpha } from "./krippendorff";
import { categorySetKey, compareWithFinal, finalComposition, tupleKey, type FinalComparison, type FinalComposition } from "./adjudication";
import { QUANTILE_RULE, wilsonInterval } from "../stats";
import { bootstrapIntervalShown, MIN_CASES_FOR_CI } from "./sample-size";
import type { Interval, Label } from "./types";

/** Raters per case (annotation-protocol.md: three independent annotators). */
export const RATERS = 3;

/** Agreement on one nominal variable among the three initial annotations (one Table 6 row). */
export interface VariableAgreement {
  /** Fleiss' κ; null when undefined (`kappaReason` says why). */
  kappa: number | null;
  kappaReason: string | null;
  /** Percentile bootstrap interval of κ (level of the report); null when κ is undefined, under MIN_CASES_FOR_CI cases, or when too many resamples have κ* undefined (`ciReason` says which). */
  ci95: Interval | null;
  /** Why `ci95` is null, else null. */
  ciReason: string | null;
  /** Mean over the three rater pairs (by position) of the share of cases on which the pair agrees. */
  pairwiseAgreement: number;
  /** Percentile bootstrap interval of the pairwise agreement (same resamples); null under MIN_CASES_FOR_CI cases, like `ci95`. */
  pairwiseAgreementCi95: Interval | null;
  /** Cases on which all three agree (3/3). */
  unanimous: number;
  /** Resamples with undefined κ*, left out of `ci95`. */
  undefinedResamples: number;
  /** P̄ and P̄_e of Fleiss' κ. */
  pBar: number;
  pE: number;
}

/** Exact agreement counts with Wilson 95% intervals of the proportions. */
export interface ExactAgreement {
  allThree: number;
  atLeastTwo: number;
  allThreeWilson95: Interval | null;
  atLeastTwoWilson95: Interval | null;
}

export interface PairKappa {
  a: string;
  b: string;
  /** Cases both annotated. */
  items: number;
  kappa: number | null;
  reason: string | null;
}

export type VariableKey = "primaryCategory" | "categorySet" | "C1" | "C2" | "C3" | "C4" | "nodeType";

export interface AgreementReport {
  /** Cases in the agreement statistics (exactly three initial annotations). */
  cases: number;
  /** Cases left out, with the reason (never silently). */
  excluded: Array<{ caseId: string; reason: string }>;
  bootstrap: { resamples: number; seed: number; level: number; quantileRule: string; prng: string };
  primaryCategory: VariableAgreement;
  categorySet: VariableAgreement;
  presence: Record<Category, VariableAgreement>;
  nodeType: VariableAgreement;
  /** Node id: κ undefined (ids are case-specific), exact agreement instead. */
  node: ExactAgreement;
  /** Strict tuple (category set, primary, node id, node type). */
  tuple: ExactAgreement;
  /** Cohen's κ per annotator pair (by annotator name, over the cases both rated), per variable. */
  cohen: Record<VariableKey, PairKappa[]>;
  /** Krippendorff's α (nominal; coders = annotator names; all cases, missing ratings allowed). */
  krippendorff: Record<VariableKey, { alpha: number | null; reason: string | null; units: number }>;
  /** Initial vs final (Table 5, B.3) and composition of the finals (B.5); null when no case has a final. */
  final: (FinalComparison & FinalComposition & { compositionCases: number }) | null;
}

export interface AnalyzeOptions {
  /** Bootstrap resamples, default 20,000. */
  resamples?: number;
  /** PRNG seed, default 20260722 (the paper's). */
  seed?: number;
  /** Confidence level of the bootstrap intervals, default 0.95. */
  level?: number;
}

const EXTRACT: Record<VariableKey, (a: InitialAnnotation) => Label> = {
  primaryCategory: (a) => a.primary,
  categorySet: (a) => categorySetKey(a.categories),
  C1: (a) => a.categories.includes("C1"),
  C2: (a) => a.categories.includes("C2"),
  C3: (a) => a.categories.includes("C3"),
  C4: (a) => a.categories.includes("C4"),
  nodeType: (a) => a.nodeType,
};
const KEYS = Object.keys(EXTRACT) as VariableKey[];

function exact(rows: ReadonlyArray<ReadonlyArray<string>>): ExactAgreement {
  let allThree = 0;
  let atLeastTwo = 0;
  for (const r of rows) {
    const d = new Set(r).size;
    if (d === 1) allThree++;
    if (d < r.length) atLeastTwo++;
  }
  const n = rows.length;
  return { allThree, atLeastTwo, allThreeWilson95: wilsonInterval(allThree, n), atLeastTwoWilson95: wilsonInterval(atLeastTwo, n) };
}

function pairwise(rows: ReadonlyArray<ReadonlyArray<Label>>): number {
  const n = rows[0].length;
  let sum = 0;
  let pairs = 0;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      let agree = 0;
      for (const r of rows) if (r[a] === r[b]) agree++;
      sum += agree / rows.length;
      pairs++;
    }
  }
  return sum / pairs;
}

/**
 * Every agreement statistic of the paper's Tables 5–6 and Appendix B.3–B.5 for annotated cases.
 *
 * - Cases with exactly three initial annotations enter the agreement statistics; others are
 *   listed in `excluded` with the reason. Final annotations never enter agreement.
 * - Per variable (primary, exact set, presence of C1..C4, node type): Fleiss' κ
 *   (./fleiss.ts), percentile bootstrap interval (./bootstrap.ts; one shared set of case-level
 *   resamples for all variables), pairwise agreement, 3/3 count.
 * - Node id and strict tuple: all three / at least two identical, Wilson 95% intervals (lib/stats).
 * - Cohen's κ per annotator pair and Krippendorff's α (nominal, missing allowed) per variable.
 * - Table 5 patterns, support 3/2/1/0, final set vs union, composition (./adjudication.ts).
 *
 * @param cases validated cases (./annotations.ts)
 * @param opts resamples (default 20,000), seed (default 20260722), level (default 0.95)
 * @returns {@link AgreementReport}
 * @throws RangeError when no case has three initial annotations, or on bad options
 */
export function analyzeAnnotations(cases: ReadonlyArray<AnnotatedCase>, opts: AnalyzeOptions = {}): AgreementReport {
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const seed = opts.seed ?? DEFAULT_SEED;
  const level = opts.level ?? 0.95;
  const used: AnnotatedCase[] = [];
  const excluded: Array<{ caseId: string; reason: string }> = [];
  for (const c of cases) {
    if (c.initial.length === RATERS) used.push(c);
    else excluded.push({ caseId: c.caseId, reason: `${c.initial.length} initial annotations (${RATERS} required)` });
  }
  if (used.length === 0) throw new RangeError(`analyzeAnnotations: no case has ${RATERS} initial annotations`);

  const ratings = Object.fromEntries(KEYS.map((k) => [k, used.map((c) => c.initial.map(EXTRACT[k]))])) as Record<VariableKey, Label[][]>;
  const boot = bootstrapFleiss(
    KEYS.map((key) => ({ key, ratings: ratings[key] })),
    { resamples, seed, level },
  );
  const variable = (k: VariableKey, i: number): VariableAgreement => {
    const f = fleissKappaFromRatings(ratings[k]);
    const b = boot.variables[i];
    return {
      kappa: f.kappa,
      kappaReason: f.reason,
      // one rule for the dashboard, its CSVs and the release datasheet (sample-size.ts)
      ci95: f.kappa === null || !bootstrapIntervalShown(used.length) ? null : b.kappaCi,
      ciReason: f.kappa === null ? `κ undefined: ${f.reason}` : !bootstrapIntervalShown(used.length) ? `n < ${MIN_CASES_FOR_CI}: too few cases for a bootstrap interval` : b.kappaCiReason,
      pairwiseAgreement: pairwise(ratings[k]),
      pairwiseAgreementCi95: bootstrapIntervalShown(used.length) ? b.pBarCi : null,
      unanimous: ratings[k].filter((r) => r.every((x) => x === r[0])).length,
      undefinedResamples: b.undefinedResamples,
      pBar: f.pBar,
      pE: f.pE,
    };
  };
  const v = Object.fromEntries(KEYS.map((k, i) => [k, variable(k, i)])) as Record<VariableKey, VariableAgreement>;

  // Cohen per annotator pair and Krippendorff over annotator names (all cases, missing allowed).
  const annotators = [...new Set(cases.flatMap((c) => c.initial.map((a) => a.annotator)))].sort();
  const byName = cases.map((c) => new Map(c.initial.map((a) => [a.annotator, a])));
  const cohen = {} as Record<VariableKey, PairKappa[]>;
  const krippendorff = {} as AgreementReport["krippendorff"];
  for (const k of KEYS) {
    const pairs: PairKappa[] = [];
    for (let i = 0; i < annotators.length; i++) {
      for (let j = i + 1; j < annotators.length; j++) {
        const xa: Label[] = [];
        const xb: Label[] = [];
        for (const m of byName) {
          const a = m.get(annotators[i]);
          const b = m.get(annotators[j]);
          if (a && b) {
            xa.push(EXTRACT[k](a));
            xb.push(EXTRACT[k](b));
          }
        }
        if (xa.length === 0) continue;
        const r = cohenKappa(xa, xb);
        pairs.push({ a: annotators[i], b: annotators[j], items: r.items, kappa: r.kappa, reason: r.reason });
      }
    }
    cohen[k] = pairs;
    const coders = annotators.map((name) => byName.map((m) => {
      const a = m.get(name);
      return a ? EXTRACT[k](a) : null;
    }));
    const alpha = krippendorffAlpha(coders, "nominal");
    krippendorff[k] = { alpha: alpha.alpha, reason: alpha.reason, units: alpha.units };
  }

  const complete = used.filter((c) => c.final != null).map((c) => ({ initial: c.initial, final: c.final! }));
  const finals = cases.flatMap((c) => (c.final != null ? [c.final] : []));
  const final = complete.length > 0 || finals.length > 0 ? { ...compareWithFinal(complete), ...finalComposition(finals), cases: complete.length, compositionCases: finals.length } : null;

  return {
    cases: used.length,
    excluded,
    bootstrap: { resamples, seed, level, quantileRule: QUANTILE_RULE, prng: "pure-rand xoroshiro128plus, Lemire multiply-shift indices" },
    primaryCategory: v.primaryCategory,
    categorySet: v.categorySet,
    presence: { C1: v.C1, C2: v.C2, C3: v.C3, C4: v.C4 },
    nodeType: v.nodeType,
    node: exact(used.map((c) => c.initial.map((a) => a.nodeId))),
    tuple: exact(used.map((c) => c.initial.map(tupleKey))),
    cohen,
    krippendorff,
    final,
  };
}

