/**
 * How good is the detector? Pure evaluation math (issue 12 item 6): the anchor node and the top 3
 * nodes by c_f against reference failure nodes, side by side with the Random-Node (seeded) and
 * Last-Node baselines on the same cases, plus per-category precision/recall of the anchor's
 * categories against reference categories. Every rate has a 95% Wilson interval
 * (lib/agreement wilsonInterval). Loading cases (database, files) is done by the caller.
 */
import { seededIndex, wilsonInterval } from "../stats";
import type { ReplayBundle } from "../bundle";
import { CATEGORIES, type Category, type DetectionResult } from "./types";

/** One evaluated case. */
export interface EvalCase {
  /** The bundle id. */
  caseId: string;
  dataset: string;
  bundle: ReplayBundle;
  /** Reference failure nodes; a prediction on any of them is a hit. Empty: no node reference. */
  referenceNodes: string[];
  /** Reference categories (final annotation, gold annotation), or null when the reference has none (Who&When). */
  referenceCategories: Category[] | null;
  /** Where the reference comes from: "final" (adjudicated annotation), "gold", "who_and_when". */
  referenceSource: string;
}

/** A proportion x/n with its Wilson 95% interval (null when n = 0). */
export interface Rate {
  x: number;
  n: number;
  rate: number | null;
  ci95: [number, number] | null;
}

/** Node-localization hit rates of one method. */
export interface MethodEval {
  /** The method's single pick is a reference node. */
  exact: Rate;
  /** The pick is within one step of a reference node in the observed order. */
  withinOne: Rate;
  /** A reference node is among the method's top 3. */
  top3: Rate;
}

export interface CategoryEval {
  tp: number;
  fp: number;
  fn: number;
  precision: Rate;
  recall: Rate;
}

export interface EvalCaseResult {
  caseId: string;
  dataset: string;
  referenceSource: string;
  referenceNodes: string[];
  referenceCategories: Category[] | null;
  detector: { pick: string | null; top3: string[]; categories: Category[] };
  randomNode: { pick: string | null; top3: string[] };
  lastNode: { pick: string | null; top3: string[] };
}

export interface EvalReport {
  /** Cases evaluated (all of them are in `perCase`). */
  cases: number;
  /** Cases with at least one reference node (the denominator of node rates). */
  withNodeReference: number;
  /** Cases with reference categories (the population of the category table). */
  withCategoryReference: number;
  seed: number;
  judge: string;
  methods: { detector: MethodEval; randomNode: MethodEval; lastNode: MethodEval };
  categories: Record<Category, CategoryEval>;
  perCase: EvalCaseResult[];
}

/** Default seed of the Random-Node baseline. */
export const EVAL_SEED = 20260512;

/** x/n with its Wilson 95% interval. */
export function rate(x: number, n: number): Rate {
  return { x, n, rate: n ? x / n : null, ci95: wilsonInterval(x, n) };
}

/** Top 3 detected nodes: confirmed categories, by c_f descending, ties by observed order. */
export function topByCf(d: DetectionResult, k = 3): string[] {
  return d.nodes
    .filter((n) => n.categories.length > 0)
    .slice()
    .sort((a, b) => b.cf - a.cf || a.position - b.position)
    .slice(0, k)
    .map((n) => n.id);
}

/**
 * Evaluate detections against references.
 * @param cases the cases, with references
 * @param detections `detections[i]` is the detection of `cases[i].bundle`
 * @param opts.seed seed of the Random-Node baseline, default {@link EVAL_SEED}.
 *   Per case: one uniform node (the pick) and 3 distinct uniform nodes (the top 3), each draw keyed
 *   on (seed, case id, draw) (lib/stats seededIndex), so adding, removing or reordering other cases
 *   never changes a case's picks.
 * @throws RangeError when the arrays differ in length
 */
export function evaluateDetections(cases: readonly EvalCase[], detections: readonly DetectionResult[], opts: { seed?: number } = {}): EvalReport {
  if (cases.length !== detections.length) throw new RangeError(`evaluateDetections: ${cases.length} cases but ${detections.length} detections`);
  const seed = opts.seed ?? EVAL_SEED;
  const counts = { detector: [0, 0, 0], randomNode: [0, 0, 0], lastNode: [0, 0, 0] };
  let withNode = 0;
  let withCats = 0;
  const cat: Record<Category, { tp: number; fp: number; fn: number }> = { C1: { tp: 0, fp: 0, fn: 0 }, C2: { tp: 0, fp: 0, fn: 0 }, C3: { tp: 0, fp: 0, fn: 0 }, C4: { tp: 0, fp: 0, fn: 0 } };
  const perCase: EvalCaseResult[] = [];
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const d = detections[i];
    const order = c.bundle.order;
    const n = order.length;
    const posOf = new Map(order.map((id, p) => [id, p]));
    const refPos = c.referenceNodes.map((id) => posOf.get(id)).filter((p): p is number => p !== undefined);
    const refSet = new Set(c.referenceNodes);
    // Random-Node: one pick, then 3 distinct nodes
    // keyed on (seed, case id): a case's picks do not depend on the other cases or their order
    const rPick = n ? order[seededIndex(n, seed, c.caseId, "pick")] : null;
    const rTop: string[] = [];
    const taken = new Set<number>();
    for (let draw = 0; rTop.length < Math.min(3, n); draw++) {
      const p = seededIndex(n, seed, c.caseId, "top3", draw);
      if (!taken.has(p)) {
        taken.add(p);
        rTop.push(order[p]);
      }
    }
    const picks = {
      detector: { pick: d.anchorNode, top3: topByCf(d) },
      randomNode: { pick: rPick, top3: rTop },
      lastNode: { pick: n ? order[n - 1] : null, top3: order.slice(Math.max(0, n - 3)).reverse() },
    };
    if (refPos.length) {
      withNode++;
      for (const m of ["detector", "randomNode", "lastNode"] as const) {
        const { pick, top3 } = picks[m];
        const pp = pick !== null ? posOf.get(pick) : undefined;
        if (pick !== null && refSet.has(pick)) counts[m][0]++;
        if (pp !== undefined && refPos.some((r) => Math.abs(r - pp) <= 1)) counts[m][1]++;
        if (top3.some((id) => refSet.has(id))) counts[m][2]++;
      }
    }
    const anchor = d.anchorNode ? d.nodes.find((x) => x.id === d.anchorNode) : undefined;
    const predicted = anchor ? anchor.categories : [];
    if (c.referenceCategories) {
      withCats++;
      for (const k of CATEGORIES) {
        const p = predicted.includes(k);
        const r = c.referenceCategories.includes(k);
        if (p && r) cat[k].tp++;
        else if (p) cat[k].fp++;
        else if (r) cat[k].fn++;
      }
    }
    perCase.push({ caseId: c.caseId, dataset: c.dataset, referenceSource: c.referenceSource, referenceNodes: c.referenceNodes, referenceCategories: c.referenceCategories, detector: { ...picks.detector, categories: predicted }, randomNode: picks.randomNode, lastNode: picks.lastNode });
  }
  const method = (k: keyof typeof counts): MethodEval => ({ exact: rate(counts[k][0], withNode), withinOne: rate(counts[k][1], withNode), top3: rate(counts[k][2], withNode) });
  const catEval = (k: Category): CategoryEval => ({ ...cat[k], precision: rate(cat[k].tp, cat[k].tp + cat[k].fp), recall: rate(cat[k].tp, cat[k].tp + cat[k].fn) });
  return {
    cases: cases.length,
    withNodeReference: withNode,
    withCategoryReference: withCats,
    seed,
    judge: detections[0]?.judge ?? "none",
    methods: { detector: method("detector"), randomNode: method("randomNode"), lastNode: method("lastNode") },
    categories: { C1: catEval("C1"), C2: catEval("C2"), C3: catEval("C3"), C4: catEval("C4") },
    perCase,
  };
}
