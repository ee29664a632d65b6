/**
 * The quantile rule of every percentile bootstrap interval in lib/agreement.
 *
 * statistics.md says "percentile interval" and nothing about which sample quantile, so the rule
 * is pinned here: Hyndman & Fan (1996) definition 7, linear interpolation between order
 * statistics; the default of R `quantile()` and of NumPy `percentile()` (method "linear").
 * For sorted draws x_(0) ≤ … ≤ x_(m−1) and probability p:
 *   h = (m − 1)·p;  Q(p) = x_(⌊h⌋) + (h − ⌊h⌋)·(x_(⌊h⌋+1) − x_(⌊h⌋)).
 * A 95% interval is [Q(0.025), Q(0.975)].
 */
import type { Interval } from "./types";

export const QUANTILE_RULE = "Hyndman-Fan type 7 (linear interpolation; R quantile() default, numpy.percentile 'linear')";

/**
 * Type-7 quantile of already sorted values.
 * @param sorted ascending values (length m ≥ 1); only the first `m` entries are read
 * @param p probability in [0, 1]
 * @param m number of values to use (default sorted.length)
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number, m: number = sorted.length): number {
  if (m < 1) throw new RangeError("quantileSorted: no values");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileSorted: p must be in [0,1], got ${p}`);
  const h = (m - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, m - 1);
  const a = sorted[lo];
  return a + (h - lo) * (sorted[hi] - a);
}

/**
 * Percentile interval of bootstrap draws, type-7 quantiles.
 * @param draws the draws (not modified); `m` first entries used
 * @param level confidence level (default 0.95 → [Q(0.025), Q(0.975)])
 * @returns `[lo, hi]`, or null when there are no draws
 */
export function percentileInterval(draws: ArrayLike<number>, level = 0.95, m: number = draws.length): Interval | null {
  if (m < 1) return null;
  const s = Float64Array.from({ length: m }, (_, i) => draws[i]).sort();
  const a = (1 - level) / 2;
  return [quantileSorted(s, a), quantileSorted(s, 1 - a)];
}
