import Link from "next/link";
import { methodLabel } from "@/lib/experiments";
import { Badge, type BadgeTone } from "@/components/ui/badge";

export interface ExperimentListRow {
  id: string;
  name: string;
  status: string;
  methods: string[];
  caseCount: number;
  attempts: number;
  done: number;
  rows: number;
  createdAt: string;
  createdBy: string | null;
}

export const STATUS_TONE: Record<string, BadgeTone> = { queued: "slate", running: "blue", finished: "green", cancelled: "amber", "budget-exhausted": "amber" };

/** Experiments, newest first: name, status, progress (final attempts / attempt rows), created. */
export function ExperimentList({ rows }: { rows: ExperimentListRow[] }) {
  if (!rows.length) return <p className="text-sm text-slate-600">No experiments yet. Start one with <code>npm run symtrace -- experiment run …</code>.</p>;
  return (
    <table className="w-full text-left text-sm" data-testid="experiment-list">
      <thead className="border-b border-slate-200 text-xs text-slate-500">
        <tr>
          <th className="px-2 py-1.5">Name</th>
          <th className="px-2">Status</th>
          <th className="px-2">Progress</th>
          <th className="px-2">Cases × methods × k</th>
          <th className="px-2">Created</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((r) => (
          <tr key={r.id} data-experiment={r.id}>
            <td className="px-2 py-1.5">
              <Link className="text-blue-700 underline" href={`/experiments/${encodeURIComponent(r.id)}`}>
                {r.name || r.id}
              </Link>
            </td>
            <td className="px-2">
              <Badge tone={STATUS_TONE[r.status] ?? "slate"}>{r.status}</Badge>
            </td>
            <td className="px-2">
              <Progress done={r.done} rows={r.rows} />
            </td>
            <td className="px-2 text-xs" title={r.methods.map(methodLabel).join(", ")}>
              {r.caseCount} × {r.methods.length} × {r.attempts}
            </td>
            <td className="px-2 text-xs text-slate-600">
              {new Date(r.createdAt).toISOString().replace("T", " ").slice(0, 16)} UTC{r.createdBy ? ` · ${r.createdBy}` : ""}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A progress bar of final attempts over attempt rows. */
export function Progress({ done, rows }: { done: number; rows: number }) {
  const pctDone = rows ? Math.round((100 * done) / rows) : 0;
  return (
    <span className="flex items-center gap-2" data-testid="progress">
      <span className="h-2 w-28 overflow-hidden rounded bg-slate-100" role="progressbar" aria-valuemin={0} aria-valuemax={rows} aria-valuenow={done}>
        <span className="block h-full bg-blue-500" style={{ width: `${pctDone}%` }} />
      </span>
      <span className="font-mono text-xs">
        {done}/{rows}
      </span>
    </span>
  );
}
