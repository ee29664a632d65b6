"use client";

import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

/** One bar: a method's pass rate (%) on one group with its Wilson 95% interval (%). */
export interface PassRateSeries {
  /** group key (MAS or "all") */
  key: string;
  label: string;
  /** per method label: [rate, lo, hi] in percent, or null */
  values: Record<string, [number, number, number] | null>;
}

const COLORS = ["#6366f1", "#0ea5e9", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6"];

/**
 * Pass rates (%) per method, one bar per group (MAS, or the total when there is one MAS), with the
 * Wilson 95% interval as whiskers (recharts ErrorBar).
 */
export function PassRateChart({ methods, series }: { methods: string[]; series: PassRateSeries[] }) {
  const rows = methods.map((m) => {
    const row: Record<string, unknown> = { name: m };
    for (const s of series) {
      const v = s.values[m];
      row[s.key] = v ? v[0] : 0;
      row[`${s.key}__err`] = v ? [Math.max(0, v[0] - v[1]), Math.max(0, v[2] - v[0])] : [0, 0];
    }
    return row;
  });
  return (
    <div className="h-72 w-full" data-testid="pass-rate-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 10, right: 10, bottom: 10, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="name" tick={{ fontSize: 11 }} interval={0} />
          <YAxis domain={[0, 100]} tick={{ fontSize: 11 }} width={40} unit="%" />
          <Tooltip formatter={(v) => (typeof v === "number" ? `${v.toFixed(2)}%` : String(v))} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {series.map((s, i) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} fill={COLORS[i % COLORS.length]} isAnimationActive={false}>
              <ErrorBar dataKey={`${s.key}__err`} width={4} stroke="#0f172a" direction="y" />
            </Bar>
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
