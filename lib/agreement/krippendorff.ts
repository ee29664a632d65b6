/**
 * Krippendorff's α with missing ratings (Krippendorff 2011, "Computing Krippendorff's
 * Alpha-Reliability", coincidence-matrix form).
 */
import type { Label } from "./types";

export type AlphaMetric = "nominal" | "ordinal" | "interval" | "ratio";

export interface AlphaResult {
  alpha: number | null;
  reason: string | null;
  /** Pairable values n.. (values in units with ≥ 2 values). */
  pairable: number;
  /** Units with ≥ 2 values. */
  units: number;
}

/**
 * Krippendorff's α (2011, §"Agreement/Reliability data with missing values"):
 *   o_ck = Σ_u Σ_{i≠j} [v_ui = c][v_uj = k] / (m_u − 1)   (units with m_u ≥ 2 values);
 *   n_c = Σ_k o_ck;  n = Σ_c n_c;
 *   α = 1 − (n − 1) Σ_{c,k} o_ck δ²_ck / Σ_{c,k} n_c n_k δ²_ck.
 * δ²: nominal [c ≠ k]; interval (c − k)²; ratio ((c − k)/(c + k))²;
 * ordinal (Σ_{g=c..k} n_g − (n_c + n_k)/2)² over the sorted values.
 *
 * @param coders rows = coders, columns = units; `null` (or undefined) = missing
 * @param metric default "nominal"; other metrics need numeric values
 * @returns α, or null with a reason when fewer than 2 pairable values or only one value occurs
 */
export function krippendorffAlpha(coders: ReadonlyArray<ReadonlyArray<Label | null | undefined>>, metric: AlphaMetric = "nominal"): AlphaResult {
  const nUnits = coders.reduce((m, r) => Math.max(m, r.length), 0);
  const index = new Map<Label, number>();
  const units: number[][] = [];
  for (let u = 0; u < nUnits; u++) {
    const vals: number[] = [];
    for (const row of coders) {
      const v = row[u];
      if (v === null || v === undefined) continue;
      if (metric !== "nominal" && typeof v !== "number") throw new RangeError(`krippendorffAlpha: ${metric} metric needs numbers, got ${JSON.stringify(v)}`);
      if (!index.has(v)) index.set(v, index.size);
      vals.push(index.get(v)!);
    }
    if (vals.length >= 2) units.push(vals);
  }
  const k = index.size;
  const o = Array.from({ length: k }, () => new Float64Array(k));
  let pairable = 0;
  for (const vals of units) {
    const m = vals.length;
    pairable += m;
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) if (i !== j) o[vals[i]][vals[j]] += 1 / (m - 1);
  }
  if (pairable < 2) return { alpha: null, reason: "fewer than 2 pairable values", pairable, units: units.length };
  const nc = o.map((row) => row.reduce((a, b) => a + b, 0));
  const values = [...index.keys()];
  const delta2 = distance(metric, values, nc);
  let dObs = 0;
  let dExp = 0;
  for (let c = 0; c < k; c++) {
    for (let kk = 0; kk < k; kk++) {
      const d = delta2(c, kk);
      dObs += o[c][kk] * d;
      dExp += nc[c] * nc[kk] * d;
    }
  }
  if (dExp === 0) return { alpha: null, reason: "only one value occurs: expected disagreement is 0, so alpha is undefined", pairable, units: units.length };
  return { alpha: 1 - ((pairable - 1) * dObs) / dExp, reason: null, pairable, units: units.length };
}

function distance(metric: AlphaMetric, values: Label[], nc: number[]): (c: number, k: number) => number {
  switch (metric) {
    case "nominal":
      return (c, k) => (c === k ? 0 : 1);
    case "interval":
      return (c, k) => ((values[c] as number) - (values[k] as number)) ** 2;
    case "ratio":
      return (c, k) => {
        const a = values[c] as number;
        const b = values[k] as number;
        return a + b === 0 ? 0 : ((a - b) / (a + b)) ** 2;
      };
    case "ordinal": {
      const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number));
      const rank = new Array<number>(values.length);
      order.forEach((v, r) => (rank[v] = r));
      const sorted = order.map((v) => nc[v]);
      return (c, k) => {
        let lo = rank[c];
        let hi = rank[k];
        if (lo > hi) [lo, hi] = [hi, lo];
        let s = 0;
        for (let g = lo; g <= hi; g++) s += sorted[g];
        return (s - (sorted[lo] + sorted[hi]) / 2) ** 2;
      };
    }
  }
}
