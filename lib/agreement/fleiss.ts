/**
 * Fleiss' κ for a fixed number of raters per item (Fleiss 1971; statistics.md §Agreement).
 */
import type { Label } from "./types";

/** Fleiss' κ with its parts. `kappa` is null (with `reason`) when P̄_e = 1. */
export interface FleissResult {
  kappa: number | null;
  /** Why κ is undefined, else null. */
  reason: string | null;
  /** P̄: mean per-item agreement. With 3 raters it equals the mean pairwise agreement. */
  pBar: number;
  /** P̄_e = Σ_j p_j². */
  pE: number;
  /** N items, n raters per item, k categories (columns). */
  items: number;
  raters: number;
  categories: number;
}

export const UNDEFINED_PE1 = "P_e = 1: every rating falls in one category, so kappa is undefined";

/**
 * Fleiss' κ from an item × category count table (statistics.md §Agreement, Fleiss 1971 eq. 1–9):
 *   p_j = Σ_i n_ij / (N n);  P_i = (Σ_j n_ij² − n) / (n (n − 1));  P̄ = mean_i P_i;
 *   P̄_e = Σ_j p_j²;  κ = (P̄ − P̄_e) / (1 − P̄_e).
 *
 * @param counts N rows (items) × k columns (categories); n_ij ≥ 0 integers; every row sums to the
 *   same n ≥ 2 (fixed number of raters)
 * @returns {@link FleissResult}; κ null with reason {@link UNDEFINED_PE1} when P̄_e = 1
 * @throws RangeError for an empty table, unequal row sums or n < 2
 */
export function fleissKappa(counts: ReadonlyArray<ReadonlyArray<number>>): FleissResult {
  const N = counts.length;
  if (N === 0) throw new RangeError("fleissKappa: no items");
  const k = counts[0].length;
  let n = -1;
  const colTotals = new Float64Array(k);
  let sumP = 0;
  for (let i = 0; i < N; i++) {
    const row = counts[i];
    if (row.length !== k) throw new RangeError(`fleissKappa: row ${i} has ${row.length} columns, expected ${k}`);
    let s = 0;
    let sq = 0;
    for (let j = 0; j < k; j++) {
      const c = row[j];
      if (!Number.isInteger(c) || c < 0) throw new RangeError(`fleissKappa: counts[${i}][${j}] = ${c} is not a non-negative integer`);
      s += c;
      sq += c * c;
      colTotals[j] += c;
    }
    if (n < 0) n = s;
    else if (s !== n) throw new RangeError(`fleissKappa: row ${i} sums to ${s}, expected ${n} (fixed number of raters)`);
    if (n < 2) throw new RangeError("fleissKappa: need at least 2 raters per item");
    sumP += (sq - n) / (n * (n - 1));
  }
  const pBar = sumP / N;
  let pE = 0;
  for (let j = 0; j < k; j++) {
    const p = colTotals[j] / (N * n);
    pE += p * p;
  }
  return finish(pBar, pE, N, n, k);
}

function finish(pBar: number, pE: number, N: number, n: number, k: number): FleissResult {
  if (1 - pE <= 1e-12) return { kappa: null, reason: UNDEFINED_PE1, pBar, pE, items: N, raters: n, categories: k };
  return { kappa: (pBar - pE) / (1 - pE), reason: null, pBar, pE, items: N, raters: n, categories: k };
}

/**
 * Distinct labels of a rating table in first-seen order, and the item × category counts.
 * @param ratings N items, each the n raters' labels
 */
export function ratingsToCounts(ratings: ReadonlyArray<ReadonlyArray<Label>>): { categories: Label[]; counts: number[][] } {
  const index = new Map<Label, number>();
  for (const row of ratings) for (const l of row) if (!index.has(l)) index.set(l, index.size);
  const k = index.size;
  const counts = ratings.map((row) => {
    const c = new Array<number>(k).fill(0);
    for (const l of row) c[index.get(l)!]++;
    return c;
  });
  return { categories: [...index.keys()], counts };
}

/**
 * Fleiss' κ from raw ratings (same formula as {@link fleissKappa}).
 * @param ratings N items, each an array of the n raters' labels (n fixed, ≥ 2; rater order irrelevant)
 */
export function fleissKappaFromRatings(ratings: ReadonlyArray<ReadonlyArray<Label>>): FleissResult {
  return fleissKappa(ratingsToCounts(ratings).counts);
}

/**
 * Category-specific κ_j (Fleiss 1971 eq. 11): κ_j = 1 − Σ_i n_ij (n − n_ij) / (N n (n − 1) p_j q_j),
 * identical to Fleiss' κ on the present/absent table of category j.
 * @param counts as for {@link fleissKappa}
 * @returns one entry per column: κ_j, or null (with reason) when p_j ∈ {0, 1}
 */
export function fleissKappaPerCategory(counts: ReadonlyArray<ReadonlyArray<number>>): Array<{ kappa: number | null; reason: string | null }> {
  const k = counts.length > 0 ? counts[0].length : 0;
  const out: Array<{ kappa: number | null; reason: string | null }> = [];
  for (let j = 0; j < k; j++) {
    const n = counts[0].reduce((a, b) => a + b, 0);
    const r = fleissKappa(counts.map((row) => [row[j], n - row[j]]));
    out.push({ kappa: r.kappa, reason: r.reason });
  }
  return out;
}
