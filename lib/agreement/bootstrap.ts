/**
 * Case-level percentile bootstrap of Fleiss' κ for several nominal variables at once
 * (statistics.md §Agreement "Bootstrap CI"; seeds/000 Appendix B.4).
 *
 * Speed (docs/measurements.md §Bootstrap): every variable is compiled to per-item *profiles*
 * (the sparse multiset of the n ratings: at most n non-zero category counts, with its P_i). One
 * resample draws N item indices once, shared by all variables, and only counts how often each
 * profile was drawn (one Int32 increment per variable per draw); κ is then assembled from the
 * few distinct profiles. Typed arrays throughout, no allocation inside the loop.
 */
import { indexDraw, quantileSorted } from "../stats";
import type { Interval, Label } from "./types";

/** The paper's seed (seeds/000 Appendix B.4). */
export const DEFAULT_SEED = 20260722;
/** The paper's number of agreement resamples (statistics.md). */
export const DEFAULT_RESAMPLES = 20_000;

export interface BootstrapVariable {
  key: string;
  /** N items × n ratings (same N and n for every variable; item i of every variable is the same case). */
  ratings: ReadonlyArray<ReadonlyArray<Label>>;
}

export interface BootstrapOptions {
  /** B, default {@link DEFAULT_RESAMPLES}. */
  resamples?: number;
  /** 32-bit integer seed of pure-rand's xoroshiro128+, default {@link DEFAULT_SEED}. */
  seed?: number;
  /** Confidence level, default 0.95. */
  level?: number;
}

export interface BootstrapVariableResult {
  key: string;
  /**
   * Percentile interval of κ* over the resamples where κ* is defined; null (with `kappaCiReason`)
   * when the undefined resamples are too many to leave out: u ≥ (1 − level)/2 · B. Below that the
   * unknown κ* values, wherever they lie, cannot move either percentile past the defined sample's
   * own tail, so the interval over the defined resamples is reported with u beside it.
   */
  kappaCi: Interval | null;
  /** Why `kappaCi` is null, else null. */
  kappaCiReason: string | null;
  /** Percentile interval of P̄* (mean per-item agreement = mean pairwise agreement for n = 3). */
  pBarCi: Interval;
  /** Resamples whose κ* is undefined (P̄_e* = 1); they are left out of the κ interval. */
  undefinedResamples: number;
}

export interface BootstrapResult {
  resamples: number;
  seed: number;
  level: number;
  variables: BootstrapVariableResult[];
}

/**
 * Draw B case-level resamples (N indices with replacement, uniform: pure-rand xoroshiro128plus
 * seeded with `seed`; each index from one or more 32-bit outputs x by Lemire's unbiased
 * multiply-shift, idx = ⌊x·N / 2^32⌋, redrawn while (x·N mod 2^32) < 2^32 mod N) and, for each variable,
 * the percentile interval (type 7, see ./quantile.ts) of
 *   κ* = (P̄* − P̄_e*) / (1 − P̄_e*),  P̄* = mean of P_i over the drawn items,
 *   P̄_e* = Σ_j (Σ_drawn n_ij / (N n))².
 * A resampled case keeps all its n ratings. The same draws serve every variable, so intervals
 * of different variables are computed on identical resamples. Deterministic for a seed.
 *
 * @param variables nominal variables over the same N items with the same n ≥ 2 ratings each
 * @param opts resamples (≥ 1), seed (32-bit integer), level
 * @throws RangeError on empty/ragged input or bad options
 */
export function bootstrapFleiss(variables: ReadonlyArray<BootstrapVariable>, opts: BootstrapOptions = {}): BootstrapResult {
  const B = opts.resamples ?? DEFAULT_RESAMPLES;
  const seed = opts.seed ?? DEFAULT_SEED;
  const level = opts.level ?? 0.95;
  if (!Number.isInteger(B) || B < 1) throw new RangeError(`bootstrapFleiss: resamples must be a positive integer, got ${B}`);
  if (!Number.isInteger(seed) || seed < -0x80000000 || seed > 0xffffffff) throw new RangeError(`bootstrapFleiss: seed must be a 32-bit integer, got ${seed}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrapFleiss: level must be in (0,1), got ${level}`);
  const V = variables.length;
  if (V === 0) return { resamples: B, seed, level, variables: [] };
  const N = variables[0].ratings.length;
  if (N === 0) throw new RangeError("bootstrapFleiss: no items");
  const n = variables[0].ratings[0].length;
  if (n < 2) throw new RangeError("bootstrapFleiss: need at least 2 ratings per item");

  // ---- compile: per variable, distinct profiles (sparse category counts) with P_i
  const itemProfOf: Int32Array[] = [];
  const profStart: number[] = [0];
  const profP: number[] = [];
  const entryStart: number[] = [0];
  const entryCat: number[] = [];
  const entryCnt: number[] = [];
  const varK: number[] = [];
  for (let v = 0; v < V; v++) {
    const { key, ratings } = variables[v];
    if (ratings.length !== N) throw new RangeError(`bootstrapFleiss: variable ${key} has ${ratings.length} items, expected ${N}`);
    const cats = new Map<Label, number>();
    const profiles = new Map<string, number>();
    const ip = new Int32Array(N);
    for (let i = 0; i < N; i++) {
      const row = ratings[i];
      if (row.length !== n) throw new RangeError(`bootstrapFleiss: variable ${key} item ${i} has ${row.length} ratings, expected ${n}`);
      const local = new Map<number, number>();
      for (const l of row) {
        let c = cats.get(l);
        if (c === undefined) cats.set(l, (c = cats.size));
        local.set(c, (local.get(c) ?? 0) + 1);
      }
      const entries = [...local.entries()].sort((a, b) => a[0] - b[0]);
      const sig = entries.map(([c, m]) => `${c}:${m}`).join(",");
      let p = profiles.get(sig);
      if (p === undefined) {
        p = profP.length;
        profiles.set(sig, p);
        let sq = 0;
        for (const [c, m] of entries) {
          entryCat.push(c);
          entryCnt.push(m);
          sq += m * m;
        }
        entryStart.push(entryCat.length);
        profP.push((sq - n) / (n * (n - 1)));
      }
      ip[i] = p;
    }
    itemProfOf.push(ip);
    profStart.push(profP.length);
    varK.push(cats.size);
  }

  // ---- carriers: a variable whose profile is a function of another (carrier) variable's profile
  // (e.g. presence of C1 given the exact category set) is not counted per draw; its profile
  // counts are summed from the carrier's after each resample.
  const carrierOf = new Int32Array(V).fill(-1);
  const derivedMap: Array<Int32Array | null> = new Array(V).fill(null);
  for (let v = 0; v < V; v++) {
    for (let c = 0; c < v && carrierOf[v] < 0; c++) {
      if (carrierOf[c] >= 0) continue;
      const map = new Int32Array(profStart[c + 1] - profStart[c]).fill(-1);
      let ok = true;
      for (let i = 0; i < N && ok; i++) {
        const cp = itemProfOf[c][i] - profStart[c];
        const vp = itemProfOf[v][i];
        if (map[cp] < 0) map[cp] = vp;
        else if (map[cp] !== vp) ok = false;
      }
      if (ok) {
        carrierOf[v] = c;
        derivedMap[v] = map;
      }
    }
  }
  const carriers: number[] = [];
  for (let v = 0; v < V; v++) if (carrierOf[v] < 0) carriers.push(v);
  const C = carriers.length;
  const itemProf = new Int32Array(N * C);
  for (let i = 0; i < N; i++) for (let j = 0; j < C; j++) itemProf[i * C + j] = itemProfOf[carriers[j]][i];
  const derived: Array<{ v: number; c: number; map: Int32Array }> = [];
  for (let v = 0; v < V; v++) if (carrierOf[v] >= 0) derived.push({ v, c: carrierOf[v], map: derivedMap[v]! });

  const P = Float64Array.from(profP);
  const eStart = Int32Array.from(entryStart);
  const eCat = Int32Array.from(entryCat);
  const eCnt = Float64Array.from(entryCnt);
  const pStart = Int32Array.from(profStart);
  const counts = new Int32Array(P.length);
  const tot = new Float64Array(Math.max(...varK));
  const kappas = Array.from({ length: V }, () => new Float64Array(B));
  const defined = new Int32Array(V);
  const pbars = Array.from({ length: V }, () => new Float64Array(B));
  const Nn = N * n;

  // ---- resample
  const draw = indexDraw(seed, N);
  for (let b = 0; b < B; b++) {
    counts.fill(0);
    for (let d = 0; d < N; d++) {
      const idx = draw();
      if (C === 3) {
        const o = idx * 3;
        counts[itemProf[o]]++;
        counts[itemProf[o + 1]]++;
        counts[itemProf[o + 2]]++;
      } else {
        const o = idx * C;
        for (let j = 0; j < C; j++) counts[itemProf[o + j]]++;
      }
    }
    for (const { c, map } of derived) {
      const base = pStart[c];
      const len = map.length;
      for (let p = 0; p < len; p++) {
        const k = counts[base + p];
        if (k !== 0) counts[map[p]] += k;
      }
    }
    for (let v = 0; v < V; v++) {
      let sumP = 0;
      const end = pStart[v + 1];
      for (let p = pStart[v]; p < end; p++) {
        const c = counts[p];
        if (c === 0) continue;
        sumP += c * P[p];
        const ee = eStart[p + 1];
        for (let e = eStart[p]; e < ee; e++) tot[eCat[e]] += c * eCnt[e];
      }
      let pE = 0;
      const k = varK[v];
      for (let j = 0; j < k; j++) {
        const q = tot[j] / Nn;
        pE += q * q;
        tot[j] = 0;
      }
      const pBar = sumP / N;
      pbars[v][b] = pBar;
      if (1 - pE > 1e-12) kappas[v][defined[v]++] = (pBar - pE) / (1 - pE);
    }
  }

  // ---- percentile intervals
  const a = (1 - level) / 2;
  const results: BootstrapVariableResult[] = variables.map(({ key }, v) => {
    const m = defined[v];
    const ks = kappas[v].subarray(0, m).sort();
    const ps = pbars[v].sort();
    const u = B - m;
    const tooMany = m === 0 || u >= a * B;
    return {
      key,
      kappaCi: tooMany ? null : [quantileSorted(ks, a), quantileSorted(ks, 1 - a)],
      kappaCiReason: tooMany ? `κ* undefined (P̄_e* = 1, one category only) in ${u} of ${B} resamples, at least the ${+(100 * a).toFixed(2)}% of one tail: no percentile interval` : null,
      pBarCi: [quantileSorted(ps, a), quantileSorted(ps, 1 - a)],
      undefinedResamples: B - m,
    };
  });
  return { resamples: B, seed, level, variables: results };
}
