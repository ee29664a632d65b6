import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { caseHref } from "@/lib/case-links";
import { exportBundle, getCaseGraph, getDb, getRun } from "@/lib/db";
import { compactGraph } from "@/lib/layout";
import { compareReplay } from "@/lib/replay";
import { alignSuffix, finalAnswer, resolveOutcomes, type SuffixAlignment } from "@/lib/replay";
import { mayReplay } from "@/lib/services/replay-access";
import { requireViewer } from "@/lib/session";
import { Badge } from "@/components/ui/badge";
import { ReplayGraph } from "@/components/replay/replay-graph";
import { ReplayCompareTable } from "@/components/replay/replay-compare-table";
import { ReplayFinalAnswers, ReplayOutcome, ScriptedStandinBadge } from "@/components/replay/replay-outcome";
import { ReplaySuffixTable } from "@/components/replay/replay-suffix-table";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Replay" };

interface Divergence {
  seq?: number;
  nodeId?: string | null;
  reason?: string;
  message?: string;
  expectedHash?: string | null;
  actualHash?: string | null;
  diff?: Array<{ path: string; op: string; expected?: unknown; actual?: unknown }>;
}

/**
 * One replay run. At the top, whether the repair worked: source outcome → replay outcome, the
 * two final answers in full, and the live suffix aligned with the source suffix (lib/replay
 * compare); a run against the demo's scripted stand-in model is labelled so. Then status and progress; when completed, the replayed trajectory beside its
 * source (verified prefix ✓, intervention Δ, new live suffix) with node-by-node diffs; when
 * diverged, the first-divergence report shown on the source graph at the node where it happened.
 */
export default async function ReplayPage({ params }: { params: Promise<{ runId: string }> }) {
  const viewer = await requireViewer();
  const db = getDb();
  const run = await getRun(db, (await params).runId);
  if (!run || !(await mayReplay(db, viewer, run.sourceCaseId))) notFound();
  const source = await exportBundle(db, { caseId: run.sourceCaseId });
  if (!source) notFound();
  const result = run.resultCaseId ? await exportBundle(db, { caseId: run.resultCaseId }) : null;
  const rows = result ? compareReplay(source, result, run.boundaryNodeId) : [];
  const div = (run.divergence ?? null) as Divergence | null;
  const outcomes = resolveOutcomes(source, result);
  let alignment: SuffixAlignment | null = null;
  let alignError: string | null = null;
  if (result) {
    try {
      alignment = alignSuffix(source, result, run.boundaryNodeId ?? run.targetNodeId);
    } catch (e) {
      alignError = e instanceof Error ? e.message : String(e);
    }
  }

  let graphView: React.ReactNode = null;
  if (result && run.resultCaseId) {
    const g = await getCaseGraph(db, { caseId: run.resultCaseId });
    const marks: Record<string, string[]> = {};
    for (const r of rows) {
      if (!r.replay) continue;
      marks[r.replay.id] = [r.kind === "prefix" ? "✓ prefix" : r.kind === "intervention" ? "Δ" : r.kind === "new" ? "new" : "changed"];
    }
    // Only a node of the result graph can be focused (the inspector loads it from the result case).
    const has = (id: string | null | undefined): id is string => !!id && g.nodes.some((n) => n.id === id);
    const focus = [rows.find((r) => r.kind === "intervention")?.replay?.id, run.boundaryNodeId, run.targetNodeId, rows.find((r) => r.kind === "new")?.replay?.id].find(has) ?? g.nodes[0]?.id ?? null;
    graphView = <ReplayGraph bundleId={result.id} graph={compactGraph(g.nodes, g.edges)} marks={marks} initialNodeId={focus} />;
  } else if (div) {
    const g = await getCaseGraph(db, { caseId: run.sourceCaseId });
    const at = div.nodeId && g.nodes.some((n) => n.id === div.nodeId) ? div.nodeId : run.targetNodeId;
    graphView = <ReplayGraph bundleId={source.id} graph={compactGraph(g.nodes, g.edges)} marks={{ [at]: ["diverged"] }} initialNodeId={at} />;
  }

  return (
    <div className="flex flex-col gap-4">
      <section className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4 text-sm" data-testid="replay-header">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-lg font-semibold">Replay</h1>
          <Badge tone={run.status === "completed" || run.status === "prefix_verified" ? "green" : run.status === "diverged" || run.status === "failed" ? "red" : "blue"}>
            <span data-testid="replay-status">{run.status.replace("_", " ")}</span>
          </Badge>
          {run.mode === "transcript" ? <Badge tone="amber">transcript continuation (not a native replay)</Badge> : run.mode ? <Badge>native replay</Badge> : null}
          {run.endpoint.scripted ? <ScriptedStandinBadge /> : null}
        </div>
        <ReplayOutcome source={outcomes.source} replay={outcomes.replay} />
        <p>
          Source <Link className="font-mono text-blue-700 underline" href={caseHref(run.sourceBundleId, run.targetNodeId)}>{run.sourceBundleId}</Link> from{" "}
          <span className="font-mono">{run.targetNodeId}</span>
          {run.boundaryNodeId && run.boundaryNodeId !== run.targetNodeId ? (
            <>
              {" "}
              (intervention at the LLM boundary <span className="font-mono">{run.boundaryNodeId}</span>)
            </>
          ) : null}
          {run.resultBundleId ? (
            <>
              {" "}
              · result case <Link className="font-mono text-blue-700 underline" href={caseHref(run.resultBundleId)}>{run.resultBundleId}</Link>
            </>
          ) : null}
        </p>
        <p data-testid="replay-progress-summary">
          Prefix {run.progress.verified}/{run.progress.prefixTotal ?? "?"} verified · {run.progress.liveCalls} live call(s) · by {run.createdBy?.name ?? "—"} ·{" "}
          {new Date(run.createdAt).toLocaleString()}
        </p>
        <p className="trace-text rounded bg-slate-50 p-2 font-mono text-xs">Δ {run.guidance || "(no guidance)"}</p>
        {run.error ? <p className="text-red-700">{run.error.message}</p> : null}
        {div ? (
          <div className="rounded border border-red-200 bg-red-50 p-2 text-xs" data-testid="divergence-report">
            <p className="font-semibold text-red-800">
              First divergence at record {div.seq ?? "?"} (node <span className="font-mono">{div.nodeId ?? "—"}</span>): {div.reason}
            </p>
            <p className="trace-text">{div.message}</p>
            <p className="font-mono">expected {div.expectedHash ?? "—"} · actual {div.actualHash ?? "—"}</p>
            {div.diff?.length ? (
              <ul className="mt-1 list-inside list-disc font-mono">
                {div.diff.slice(0, 20).map((d, i) => (
                  <li key={i} className="trace-text">
                    {d.op} {d.path}: {JSON.stringify(d.expected)?.slice(0, 300)} → {JSON.stringify(d.actual)?.slice(0, 300)}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </section>
      {result ? <ReplayFinalAnswers source={finalAnswer(source)} replay={finalAnswer(result)} /> : null}
      {alignment ? <ReplaySuffixTable alignment={alignment} /> : null}
      {alignError ? (
        <p role="alert" className="trace-text rounded border border-red-200 bg-red-50 p-2 text-xs text-red-800">
          Cannot align the suffixes: {alignError}
        </p>
      ) : null}
      {graphView}
      {rows.length ? <ReplayCompareTable rows={rows} /> : null}
    </div>
  );
}
