import { Badge, OutcomeBadge } from "@/components/ui/badge";
import { importWarningCounts } from "@/lib/layout/warnings";
import { datasetName } from "./case-filters";
import { ImportWarningCounts } from "./import-warning-badge";

export interface CaseHeaderView {
  bundleId: string;
  sourceDataset: string;
  sourceSubset: string | null;
  sourceFile: string | null;
  benchmark: string | null;
  mas: string | null;
  model: string | null;
  outcomePassed: boolean | null;
  /** Where the verdict comes from (lib/db `caseVerdicts`); absent = the bundle's own outcome. */
  outcomeVia?: "recorded" | "evaluator" | "none";
  outcomeEvaluator?: string | null;
  nodeCount: number;
  edgeCount: number;
  recordCount: number;
  agentCount: number;
  parentBundleId: string | null;
  header: { task: { prompt: string; id?: string | null; split?: string | null }; source?: unknown } & Record<string, unknown>;
}

/**
 * Case title, task (never the evaluator's reference answer), outcome and provenance. `c` comes
 * through lib/db caseForViewer: for a viewer blind on the case the server already removed the file
 * name and the import notes derived from the dataset's labels; `withheld` says what was removed.
 */
export function CaseHeader({ c, finalized = false, withheld = { blind: false, notes: 0 } }: { c: CaseHeaderView; finalized?: boolean; withheld?: { blind: boolean; notes: number } }) {
  const blind = withheld.blind;
  const notes = ((c.header.source as { notes?: unknown } | undefined)?.notes ?? []) as unknown[];
  const facts: Array<[string, React.ReactNode]> = [
    ["Source", `${datasetName(c.sourceDataset)}${c.sourceSubset ? ` · ${c.sourceSubset}` : ""}`],
    // A file name can give the answer away (gold-c1 ... gold-c4 are the C1 ... C4 gold cases).
    ["File", blind ? "hidden until you submit" : (c.sourceFile ?? "—")],
    ["Benchmark", c.benchmark ?? "—"],
    ["Task id", c.header.task.id ?? "—"],
    ["MAS", c.mas ?? "—"],
    ["Model", c.model ?? "—"],
    ["Graph", `${c.nodeCount} nodes · ${c.edgeCount} edges · ${c.recordCount} boundary records · ${c.agentCount} agents`],
  ];
  return (
    <section className="flex flex-col gap-3 rounded border border-slate-200 bg-white p-4" aria-labelledby="case-title">
      <div className="flex flex-wrap items-center gap-3">
        <h1 id="case-title" className="font-mono text-lg font-semibold break-all">
          {c.bundleId}
        </h1>
        <OutcomeBadge passed={c.outcomePassed} via={c.outcomeVia} evaluator={c.outcomeEvaluator} />
        {finalized ? (
          <Badge tone="violet">
            <span data-testid="finalized-badge">finalized</span>
          </Badge>
        ) : null}
        {c.parentBundleId ? <Badge tone="blue">replay of {c.parentBundleId}</Badge> : null}
      </div>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2 lg:grid-cols-4">
        {facts.map(([k, v]) => (
          <div key={k} className="flex gap-2">
            <dt className="text-slate-500">{k}</dt>
            <dd className="min-w-0 break-words">{v}</dd>
          </div>
        ))}
      </dl>
      <div>
        <h2 className="text-xs font-semibold uppercase text-slate-500">Task</h2>
        <p className="trace-text mt-1 max-h-24 overflow-auto text-sm" data-testid="task-prompt">
          {c.header.task.prompt}
        </p>
      </div>
      {withheld.notes > 0 ? (
        <p className="text-xs text-slate-500" data-testid="notes-withheld">
          {withheld.notes} import note(s) about the dataset&apos;s labels hidden until you submit.
        </p>
      ) : null}
      <ImportWarningCounts summary={importWarningCounts(c.header.source)} />
      {notes.length > 0 ? (
        <ul className="list-inside list-disc text-xs text-amber-800" aria-label="Import notes">
          {notes.map((n, i) => (
            <li key={i}>{String(n)}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
