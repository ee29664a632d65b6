"use client";

import { Bar, BarChart, CartesianGrid, ErrorBar, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { fixed } from "./fixed";

export interface KappaBar {
  name: string;
  kappa: number | null;
  lo: number | null;
  hi: number | null;
}

/** Fleiss' κ per variable with its 95% bootstrap interval as error bars (recharts). */
export function KappaChart({ data }: { data: KappaBar[] }) {
  const rows = data.map((d) => ({
    name: d.name,
    kappa: d.kappa ?? 0,
    err: d.kappa !== null && d.lo !== null && d.hi !== null ? [Math.max(0, d.kappa - d.lo), Math.max(0, d.hi - d.kappa)] : [0, 0],
  }));
  return (
    <div className="h-64 w-full" data-testid="kappa-chart">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 10, right: 10, bottom: 10, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="name" tick={{ fontSize: 11 }} />
          <YAxis domain={[Math.min(0, Math.floor(10 * Math.min(...rows.map((r) => r.kappa - r.err[0]))) / 10), 1]} tick={{ fontSize: 11 }} tickFormatter={(v: number) => v.toFixed(1)} width={40} />
          <ReferenceLine y={0} stroke="#0f172a" />
          <Tooltip formatter={(v) => (typeof v === "number" ? fixed(v) : String(v))} />
          <ReferenceLine y={0.6} stroke="#94a3b8" strokeDasharray="4 4" label={{ value: "substantial", fontSize: 10, position: "insideTopRight" }} />
          <Bar dataKey="kappa" fill="#6366f1" isAnimationActive={false}>
            <ErrorBar dataKey="err" width={6} stroke="#0f172a" direction="y" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
