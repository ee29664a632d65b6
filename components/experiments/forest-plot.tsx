"use client";

import { CartesianGrid, ErrorBar, ReferenceLine, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from "recharts";

/** One comparison: Δ (points) with its bootstrap 95% CI and the McNemar / Holm p (preformatted). */
export interface ForestRow {
  label: string;
  diff: number;
  lo: number;
  hi: number;
  p: string;
  holm: string;
  significant: boolean;
}

/**
 * Forest plot of paired differences (points): one row per comparison (family · method vs
 * comparator), the point at Δ, whiskers at the bootstrap 95% CI, a line at 0; the p-values are in
 * the row label.
 */
export function ForestPlot({ rows }: { rows: ForestRow[] }) {
  const data = rows.map((r) => ({ ...r, name: `${r.label}  (p=${r.p}, p_H=${r.holm})`, err: [Math.max(0, r.diff - r.lo), Math.max(0, r.hi - r.diff)] }));
  const { domain, ticks } = forestAxis(rows);
  return (
    <div className="w-full" style={{ height: Math.max(160, 40 + 34 * rows.length) }} data-testid="forest-plot">
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 10, right: 20, bottom: 20, left: 10 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" dataKey="diff" domain={domain} ticks={ticks} tick={{ fontSize: 11 }} label={{ value: "Δ pass rate (points), 95% bootstrap CI", position: "insideBottom", offset: -10, fontSize: 11 }} />
          <YAxis type="category" dataKey="name" width={360} tick={{ fontSize: 11 }} interval={0} />
          <ReferenceLine x={0} stroke="#0f172a" />
          <Tooltip formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v))} />
          <Scatter data={data} fill="#6366f1" isAnimationActive={false}>
            <ErrorBar dataKey="err" width={6} stroke="#0f172a" direction="x" />
          </Scatter>
        </ScatterChart>
      </ResponsiveContainer>
    </div>
  );
}

/**
 * The x axis of the forest plot: 0 and every interval inside, bounds on multiples of 10 points,
 * ticks every 10 (20 or 50 for wide spans).
 */
export function forestAxis(rows: Array<Pick<ForestRow, "lo" | "hi">>): { domain: [number, number]; ticks: number[] } {
  let lo = Math.floor(Math.min(0, ...rows.map((r) => r.lo)) / 10) * 10;
  let hi = Math.ceil(Math.max(0, ...rows.map((r) => r.hi)) / 10) * 10;
  if (lo === hi) {
    lo -= 10;
    hi += 10;
  }
  const step = hi - lo <= 60 ? 10 : hi - lo <= 120 ? 20 : 50;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) ticks.push(t);
  return { domain: [lo, hi], ticks };
}
