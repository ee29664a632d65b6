import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { Badge, OutcomeBadge } from "@/components/ui/badge";
import { datasetName } from "./case-filters";

export interface CaseRow {
  id: string;
  bundleId: string;
  sourceDataset: string;
  sourceSubset: string | null;
  taskPrompt: string;
  benchmark: string | null;
  mas: string | null;
  outcomePassed: boolean | null;
  /** Where the verdict comes from (lib/db `caseVerdicts`); absent = the bundle's own outcome. */
  outcomeVia?: "recorded" | "evaluator" | "none";
  outcomeEvaluator?: string | null;
  nodeCount: number;
  agentCount: number;
  finalizedAt?: Date | null;
  _count: { referenceLabels: number };
  /** The viewer is blind on this case (lib/db caseRowsForViewer): its labels and finalization are not shown. */
  labelsWithheld?: boolean;
}

function snippet(s: string, n = 140): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

/** The case list (all content rendered as text); `generatedCounts[bundleId]` links to a row's generated cases. */
export function CaseTable({ cases, showLabels = true, generatedCounts }: { cases: CaseRow[]; showLabels?: boolean; generatedCounts?: Record<string, number> }) {
  if (cases.length === 0) {
    return <p className="rounded border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">No case matches these filters.</p>;
  }
  return (
    <div className="overflow-x-auto rounded border border-slate-200 bg-white">
      <table className="w-full text-left text-sm" data-testid="case-table">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="px-3 py-2">Case</th>
            <th className="px-3 py-2">Task</th>
            <th className="px-3 py-2">Source</th>
            <th className="px-3 py-2">Benchmark</th>
            <th className="px-3 py-2">MAS</th>
            <th className="px-3 py-2">Outcome</th>
            <th className="px-3 py-2 text-right">Nodes</th>
            <th className="px-3 py-2 text-right">Agents</th>
            {showLabels ? <th className="px-3 py-2">Labels</th> : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {cases.map((c) => (
            <tr key={c.id} className="hover:bg-slate-50" data-testid="case-row">
              <td className="w-64 max-w-64 px-3 py-2 font-mono text-xs break-all">
                <Link href={caseHref(c.bundleId)} className="text-blue-700 hover:underline">
                  {c.bundleId}
                </Link>
                {generatedCounts?.[c.bundleId] ? (
                  <Link href={`/cases?parent=${encodeURIComponent(c.bundleId)}`} className="mt-0.5 block font-sans text-xs text-slate-500 hover:underline" data-testid="generated-children">
                    {generatedCounts[c.bundleId]} generated (replays, attempts, search nodes)
                  </Link>
                ) : null}
              </td>
              <td className="min-w-72 max-w-md px-3 py-2 text-slate-700" title={snippet(c.taskPrompt, 240)}>
                {snippet(c.taskPrompt)}
              </td>
              <td className="px-3 py-2 whitespace-nowrap">
                {datasetName(c.sourceDataset)}
                {c.sourceSubset ? <span className="block text-xs text-slate-500">{c.sourceSubset}</span> : null}
              </td>
              <td className="px-3 py-2">{c.benchmark ?? "—"}</td>
              <td className="px-3 py-2">{c.mas ?? "—"}</td>
              <td className="px-3 py-2">
                <OutcomeBadge passed={c.outcomePassed} via={c.outcomeVia} evaluator={c.outcomeEvaluator} />
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{c.nodeCount}</td>
              <td className="px-3 py-2 text-right tabular-nums">{c.agentCount}</td>
              {showLabels ? (
                <td className="flex flex-wrap gap-1 px-3 py-2">
                  {c.labelsWithheld ? (
                    <span className="text-xs text-slate-500" data-testid="labels-withheld">
                      hidden until you submit
                    </span>
                  ) : null}
                  {c._count.referenceLabels > 0 ? <Badge tone="violet">{c._count.referenceLabels} reference</Badge> : null}
                  {c.finalizedAt ? <Badge tone="green">finalized</Badge> : null}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
