import type { Rate, TableRow } from "@/lib/attribution";

const TOL = [0, 1, 2, 3, 5] as const;
const pct = (r: Rate) => (r.rate === null ? "—" : `${(100 * r.rate).toFixed(1)}%`);
const ci = (r: Rate) => (r.ci95 ? `${(100 * r.ci95[0]).toFixed(1)}–${(100 * r.ci95[1]).toFixed(1)}` : "");

function RateCell({ r, testId }: { r: Rate; testId?: string }) {
  return (
    <td className="pr-3 font-mono" data-testid={testId} title={`${r.x}/${r.n}, Wilson 95% ${ci(r)}%`}>
      {pct(r)} <span className="text-xs text-slate-500">[{ci(r)}]</span>
    </td>
  );
}

/**
 * The failure-attribution benchmark table (issue 24 item 2), one block per subset (never pooled):
 * agent accuracy, step accuracy exact and within ±1/2/3/5, Wilson 95% intervals, tokens and calls
 * per case, and the published figure (Zhang et al. 2025, Table 1) beside. Props only.
 */
export function AttributionTable({ rows }: { rows: TableRow[] }) {
  if (!rows.length) return <p className="text-sm text-slate-600">No finished jobs in this run yet.</p>;
  const subsets = [...new Set(rows.map((r) => r.subset))];
  return (
    <div className="flex flex-col gap-4">
      {subsets.map((s) => (
        <div key={s} className="overflow-x-auto">
          <h3 className="mb-1 font-semibold">{s}</h3>
          <table className="text-sm" data-testid={`attribution-${s}`}>
            <thead>
              <tr className="text-left text-slate-500">
                <th className="pr-3">attributor</th>
                <th className="pr-3">ground truth</th>
                <th className="pr-3">done / cases</th>
                <th className="pr-3">agent</th>
                {TOL.map((t) => (
                  <th key={t} className="pr-3">
                    {t === 0 ? "step exact" : `step ±${t}`}
                  </th>
                ))}
                <th className="pr-3">tokens / case</th>
                <th className="pr-3">calls / case</th>
                <th className="pr-3">published agent / step (%)</th>
              </tr>
            </thead>
            <tbody>
              {rows
                .filter((r) => r.subset === s)
                .map((r) => (
                  <tr key={`${r.attributor}-${r.groundTruth}`} data-testid={`row-${r.attributor}-${r.groundTruth}`}>
                    <td className="pr-3">{r.attributor}</td>
                    <td className="pr-3">{r.groundTruth}</td>
                    <td className="pr-3 font-mono">
                      {r.done}/{r.cases}
                      {r.errors ? <span className="text-red-700"> ({r.errors} errors)</span> : null}
                      {r.notRun ? <span className="text-amber-700"> ({r.notRun} not run)</span> : null}
                    </td>
                    <RateCell r={r.agent} testId="agent" />
                    {TOL.map((t) => (
                      <RateCell key={t} r={r.step[t]} testId={`step-${t}`} />
                    ))}
                    <td className="pr-3 font-mono">{r.tokensPerCase === null ? "—" : Math.round(r.tokensPerCase).toLocaleString("en")}</td>
                    <td className="pr-3 font-mono">{r.callsPerCase === null ? "—" : r.callsPerCase.toFixed(2)}</td>
                    <td className="pr-3 font-mono">{r.published ? `${r.published.agent.toFixed(2)} / ${r.published.step.toFixed(2)}` : "—"}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}
