/**
 * Statistical building blocks of repair experiments (seeds/000 §5.1 eq. 2–3, Appendix C.3–C.5,
 * D.2, E; the statistics spec §Replay and repair metrics). Pure and deterministic.
 */
import { indexDraw, quantileSorted, wilsonInterval } from "../stats";
import type { RateCI } from "./types";

/** Bootstrap resamples for paired repair-rate differences (seeds/000 Appendix C.3). */
export const DIFF_RESAMPLES = 10_000;
/** The paper's seed for those resamples (Appendix C.3); experiments use their own frozen seed. */
export const PAPER_DIFF_SEED = 20260701;

/**
 * x/n with its 95% Wilson score interval (lib/stats {@link wilsonInterval}).
 * @returns rate and interval as fractions; all null when n = 0
 * @throws RangeError for non-integer or out-of-range x, n
 */
export function rateWithWilson(x: number, n: number): RateCI {
  const ci = wilsonInterval(x, n);
  return { x, n, rate: n === 0 ? null : x / n, lo: ci ? ci[0] : null, hi: ci ? ci[1] : null };
}

/**
 * Exact two-sided McNemar test (conditional binomial test, p = 0.5) on the discordant counts:
 *   p = min(1, 2 · P(X ≤ min(n10, n01))),  X ~ Binomial(n10 + n01, 1/2)
 * (Fagerland, Lydersen & Laake 2013, eq. for the "exact conditional" test; p = 1 when n10 = n01,
 * including n10 = n01 = 0). Computed in log space, so exact to ~1e-13 relative for any n.
 * @param n10 pairs where only the first method passed (integer ≥ 0)
 * @param n01 pairs where only the second method passed (integer ≥ 0)
 * @throws RangeError for negative or non-integer counts
 */
export function mcnemarExact(n10: number, n01: number): number {
  if (!Number.isInteger(n10) || !Number.isInteger(n01) || n10 < 0 || n01 < 0) {
    throw new RangeError(`mcnemarExact: need integer counts >= 0, got n10=${n10}, n01=${n01}`);
  }
  const n = n10 + n01;
  const m = Math.min(n10, n01);
  if (n10 === n01) return 1;
  // log P(X = j) = log C(n, j) − n log 2, terms j = 0..m summed with log-sum-exp
  const logs: number[] = [];
  let logC = 0;
  for (let j = 0; j <= m; j++) {
    if (j > 0) logC += Math.log((n - j + 1) / j);
    logs.push(logC - n * Math.LN2);
  }
  const top = logs[logs.length - 1];
  let s = 0;
  for (const l of logs) s += Math.exp(l - top);
  return Math.min(1, 2 * Math.exp(top + Math.log(s)));
}

/**
 * Holm (1979) step-down adjusted p-values for one family of m tests:
 *   p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)),  p_(1) ≤ … ≤ p_(m).
 * Same as R `p.adjust(p, "holm")`. `null` entries (undefined tests) are not members of the family
 * and stay null. Ties keep input order (stable), which does not change the adjusted values.
 * @param ps raw p-values in [0, 1] or null
 * @returns adjusted p-values in input order
 * @throws RangeError for a p outside [0, 1]
 */
export function holmAdjust(ps: ReadonlyArray<number | null>): Array<number | null> {
  const idx: number[] = [];
  ps.forEach((p, i) => {
    if (p === null) return;
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holmAdjust: p[${i}] must be in [0,1], got ${p}`);
    idx.push(i);
  });
  idx.sort((a, b) => (ps[a] as number) - (ps[b] as number));
  const out: Array<number | null> = ps.map(() => null);
  const m = idx.length;
  let run = 0;
  idx.forEach((i, r) => {
    run = Math.max(run, Math.min(1, (m - r) * (ps[i] as number)));
    out[i] = run;
  });
  return out;
}

/** Reduce any safe integer seed to the 32-bit integer pure-rand takes (two's complement wrap). */
export function seed32(seed: number): number {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  return Number(BigInt.asIntN(32, BigInt(seed)));
}

export interface PairedDiff {
  /** matched cases */
  n: number;
  aPassed: number;
  bPassed: number;
  n10: number;
  n01: number;
  /** Δ = 100 (p̂_a − p̂_b), points; null when n = 0 */
  diffPoints: number | null;
  /** percentile interval (Hyndman–Fan type 7, lib/stats/quantile) of Δ*, points */
  lo: number | null;
  hi: number | null;
}

/**
 * Paired repair-rate difference with a case-level bootstrap CI (seeds/000 Appendix C.3): B
 * resamples of the N matched cases with replacement (pure-rand xoroshiro128+ seeded with
 * `seed32(seed)`, indices by lib/stats `indexDraw`, as lib/agreement's bootstrap),
 * each case keeping both of its outcomes; Δ* = 100 (p̂_a* − p̂_b*); 95% percentile interval.
 * Same input, B and seed ⇒ the same interval.
 * @param pairs one [a passed, b passed] per matched case, in a fixed (caller-defined) case order
 * @param opts resamples (default 10,000), seed (default {@link PAPER_DIFF_SEED}), level (0.95)
 */
export function pairedBootstrapDiff(
  pairs: ReadonlyArray<readonly [boolean, boolean]>,
  opts: { resamples?: number; seed?: number; level?: number } = {},
): PairedDiff {
  const B = opts.resamples ?? DIFF_RESAMPLES;
  const level = opts.level ?? 0.95;
  if (!Number.isInteger(B) || B < 1) throw new RangeError(`pairedBootstrapDiff: resamples must be a positive integer, got ${B}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`pairedBootstrapDiff: level must be in (0,1), got ${level}`);
  const N = pairs.length;
  let aPassed = 0;
  let bPassed = 0;
  let n10 = 0;
  let n01 = 0;
  const d = new Int8Array(N);
  pairs.forEach(([a, b], i) => {
    if (a) aPassed++;
    if (b) bPassed++;
    if (a && !b) n10++;
    if (!a && b) n01++;
    d[i] = (a ? 1 : 0) - (b ? 1 : 0);
  });
  if (N === 0) return { n: 0, aPassed, bPassed, n10, n01, diffPoints: null, lo: null, hi: null };
  const diffPoints = (100 * (aPassed - bPassed)) / N;
  const draws = new Float64Array(B);
  if (n10 === 0 && n01 === 0) {
    // every resample has Δ* = 0; no draws needed
  } else {
    const draw = indexDraw(seed32(opts.seed ?? PAPER_DIFF_SEED), N);
    for (let r = 0; r < B; r++) {
      let s = 0;
      for (let k = 0; k < N; k++) {
        s += d[draw()];
      }
      draws[r] = (100 * s) / N;
    }
    draws.sort();
  }
  const a = (1 - level) / 2;
  return { n: N, aPassed, bPassed, n10, n01, diffPoints, lo: quantileSorted(draws, a), hi: quantileSorted(draws, 1 - a) };
}

/** Binomial coefficient C(n, k) for small n (exact in doubles for n ≤ 60). */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let j = 1; j <= k; j++) c = (c * (n - k + j)) / j;
  return Math.round(c);
}

/**
 * Per-case rep_k (seeds/000 eq. 2): the share of the C(K, k) k-subsets of the K executions in
 * which all reproduce the source failure, = C(r, k) / C(K, k) with r reproduced executions.
 * With some executions not judged (missing, error, not run after a pass) the value is returned
 * only when it is determined anyway: the bounds C(r, k)/C(K, k) and C(r + u, k)/C(K, k)
 * (u = K − judged) coincide — e.g. rep_3 with one judged non-reproduction is 0.
 * @param reproduced judged executions' z values (length ≤ K)
 * @param K executions per case (the experiment's k)
 * @param k subset size, 1 ≤ k ≤ K
 * @returns value in [0, 1], or null when undetermined
 */
export function caseRepK(reproduced: ReadonlyArray<boolean>, K: number, k: number): number | null {
  if (!Number.isInteger(k) || !Number.isInteger(K) || k < 1 || k > K) throw new RangeError(`caseRepK: need 1 <= k <= K, got k=${k}, K=${K}`);
  if (reproduced.length > K) throw new RangeError(`caseRepK: ${reproduced.length} judged executions, more than K=${K}`);
  const r = reproduced.filter(Boolean).length;
  const u = K - reproduced.length;
  const total = choose(K, k);
  const lo = choose(r, k) / total;
  const hi = choose(r + u, k) / total;
  return lo === hi ? lo : null;
}

/**
 * pass@k of one case (seeds/000 eq. 3, 16): 1 when any of the first k attempts was accepted.
 * @param outcomes y_{i,1..} in attempt order: true accepted, false failed or error, null not known
 * @returns true/false when determined (a pass among the first k, or k known failures), else null
 */
export function casePassAtK(outcomes: ReadonlyArray<boolean | null>, k: number): boolean | null {
  let allKnown = outcomes.length >= k;
  for (let a = 0; a < Math.min(k, outcomes.length); a++) {
    if (outcomes[a] === true) return true;
    if (outcomes[a] === null) allKnown = false;
  }
  return allKnown ? false : null;
}

/**
 * API-call efficiency (seeds/000 Appendix C.5 eq. 7–8).
 * @returns repairsPer1k = repairs / calls × 1000 (null when calls = 0); callsPerRepair = calls /
 *   repairs (null when repairs = 0)
 */
export function efficiency(calls: number, repairs: number): { repairsPer1k: number | null; callsPerRepair: number | null } {
  return { repairsPer1k: calls > 0 ? (repairs / calls) * 1000 : null, callsPerRepair: repairs > 0 ? calls / repairs : null };
}
