/**
 * Cohen's κ for two raters (Cohen 1960).
 */
import type { Label } from "./types";

export interface CohenResult {
  kappa: number | null;
  reason: string | null;
  /** Observed agreement p_o. */
  po: number;
  /** Chance agreement p_e = Σ_j (row_j / N)(col_j / N). */
  pe: number;
  /** Items rated by both. */
  items: number;
}

/**
 * Cohen's κ from a k × k confusion matrix m[a][b] = items rater A put in a and rater B in b:
 *   p_o = Σ_j m_jj / N;  p_e = Σ_j (Σ_b m_jb / N)(Σ_a m_aj / N);  κ = (p_o − p_e) / (1 − p_e).
 * @returns κ, or null with a reason when N = 0 or p_e = 1 (both raters use one category only)
 */
export function cohenKappaFromConfusion(m: ReadonlyArray<ReadonlyArray<number>>): CohenResult {
  const k = m.length;
  let N = 0;
  let diag = 0;
  const rows = new Float64Array(k);
  const cols = new Float64Array(k);
  for (let a = 0; a < k; a++) {
    if (m[a].length !== k) throw new RangeError(`cohenKappaFromConfusion: row ${a} has ${m[a].length} columns, expected ${k}`);
    for (let b = 0; b < k; b++) {
      const c = m[a][b];
      N += c;
      rows[a] += c;
      cols[b] += c;
      if (a === b) diag += c;
    }
  }
  if (N === 0) return { kappa: null, reason: "no items rated by both raters", po: 0, pe: 0, items: 0 };
  const po = diag / N;
  let pe = 0;
  for (let j = 0; j < k; j++) pe += (rows[j] / N) * (cols[j] / N);
  if (1 - pe <= 1e-12) return { kappa: null, reason: "p_e = 1: both raters put every item in one category, so kappa is undefined", po, pe, items: N };
  return { kappa: (po - pe) / (1 - pe), reason: null, po, pe, items: N };
}

/**
 * Cohen's κ from two parallel label arrays (same formula as {@link cohenKappaFromConfusion}).
 * @param a rater A's labels, item by item
 * @param b rater B's labels, same length
 */
export function cohenKappa(a: ReadonlyArray<Label>, b: ReadonlyArray<Label>): CohenResult {
  if (a.length !== b.length) throw new RangeError(`cohenKappa: ${a.length} vs ${b.length} labels`);
  const index = new Map<Label, number>();
  for (const l of a) if (!index.has(l)) index.set(l, index.size);
  for (const l of b) if (!index.has(l)) index.set(l, index.size);
  const k = index.size;
  const m = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < a.length; i++) m[index.get(a[i])!][index.get(b[i])!]++;
  return cohenKappaFromConfusion(m);
}
