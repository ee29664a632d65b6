/**
 * Wilson score interval (Wilson 1927; statistics.md §Agreement "Wilson score interval").
 */
import type { Interval } from "./types";

/**
 * z_{0.975} = Φ⁻¹(0.975) to double precision. statistics.md writes the rounded 1.959964; the
 * fixture synthetic-60.expected.json (node.allThreeWilson95) was produced with the exact quantile,
 * so the exact value is used (the two differ by < 1e-9 in every interval bound).
 */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval for a proportion x/n.
 *
 * p̂ = x/n;  centre = (p̂ + z²/(2n)) / (1 + z²/n);
 * half = z·√(p̂(1−p̂)/n + z²/(4n²)) / (1 + z²/n);  interval = [centre − half, centre + half],
 * clamped to [0, 1]; lo = 0 exactly when x = 0 and hi = 1 exactly when x = n (the exact values,
 * which rounding would otherwise miss by an ulp).
 *
 * @param x successes, integer 0 ≤ x ≤ n
 * @param n trials, integer ≥ 0
 * @param z normal quantile (default {@link Z95}, a 95% interval)
 * @returns `[lo, hi]`, or `null` when n = 0 (no data, no interval)
 * @throws RangeError for non-integer or out-of-range x, n
 */
export function wilsonInterval(x: number, n: number, z: number = Z95): Interval | null {
  if (!Number.isInteger(x) || !Number.isInteger(n) || n < 0 || x < 0 || x > n) {
    throw new RangeError(`wilsonInterval: need integers 0 <= x <= n, got x=${x}, n=${n}`);
  }
  if (n === 0) return null;
  const p = x / n;
  const z2 = z * z;
  const den = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / den;
  return [x === 0 ? 0 : Math.max(0, centre - half), x === n ? 1 : Math.min(1, centre + half)];
}
