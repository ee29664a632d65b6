import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { caseHref } from "@/lib/case-links";
import { exportBundle, getDb, getExperimentAttempt, pooledViewGate } from "@/lib/db";
import { methodLabel } from "@/lib/experiments";
import { alignSuffix, finalAnswer, resolveOutcomes, type SuffixAlignment } from "@/lib/replay";
import { compareReplay } from "@/lib/replay";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { Badge } from "@/components/ui/badge";
import { ReplayCompareTable } from "@/components/replay/replay-compare-table";
import { ReplayFinalAnswers, ReplayOutcome } from "@/components/replay/replay-outcome";
import { ReplaySuffixTable } from "@/components/replay/replay-suffix-table";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiment attempt" };

/**
 * One experiment attempt's bundle diffed against its source case, with the replay result view's
 * parts (lib/replay/node-compare, components/replay): outcomes, final answers, the aligned
 * suffix (node-level methods), node by node. Guidance, errors and judge reasons are text.
 */
export default async function AttemptPage({ params }: { params: Promise<{ id: string; attemptId: string }> }) {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "experiments");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const { id, attemptId } = await params;
  const db = getDb();
  const a = await getExperimentAttempt(db, attemptId);
  if (!a || a.experimentId !== id) notFound();
  const source = await exportBundle(db, { bundleId: a.caseBundleId });
  const result = a.bundleId ? await exportBundle(db, { bundleId: a.bundleId }) : null;
  const rows = source && result ? compareReplay(source, result, a.anchorNodeId) : [];
  const outcomes = source ? resolveOutcomes(source, result) : null;
  let alignment: SuffixAlignment | null = null;
  if (source && result && a.anchorNodeId) {
    try {
      alignment = alignSuffix(source, result, a.anchorNodeId);
    } catch {
      alignment = null;
    }
  }
  return (
    <div className="flex flex-col gap-4">
      <section className="flex flex-col gap-2 rounded border border-slate-200 bg-white p-4 text-sm" data-testid="attempt-header">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-lg font-semibold">
            {methodLabel(a.method)} · attempt {a.attempt}
          </h1>
          <Badge tone={a.status === "passed" ? "green" : a.status === "failed" || a.status === "error" ? "red" : "slate"}>
            <span data-testid="attempt-status">{a.status}</span>
          </Badge>
          <Link className="text-blue-700 underline" href={`/experiments/${encodeURIComponent(id)}?method=${encodeURIComponent(a.method)}&mas=${encodeURIComponent(a.mas)}#attempts`}>
            back to the experiment
          </Link>
        </div>
        {outcomes ? <ReplayOutcome source={outcomes.source} replay={outcomes.replay} /> : null}
        <p>
          Source <Link className="font-mono text-blue-700 underline" href={caseHref(a.caseBundleId, a.anchorNodeId)}>{a.caseBundleId}</Link>
          {a.anchorNodeId ? (
            <>
              {" "}
              · anchor <span className="font-mono">{a.anchorNodeId}</span>
            </>
          ) : null}
          {a.bundleId ? (
            <>
              {" "}
              · attempt bundle <Link className="font-mono text-blue-700 underline" href={caseHref(a.bundleId)} data-testid="attempt-bundle-link">{a.bundleId}</Link>
            </>
          ) : null}
        </p>
        <p className="text-xs text-slate-600">
          passed {String(a.passed)} · reproduced {String(a.reproduced)} · {a.calls} MAS call(s) + {a.auxCalls} method call(s) · {a.tokens.total} token(s) · MAS {a.masMs} ms
        </p>
        {a.guidance ? (
          <p className="trace-text rounded bg-slate-50 p-2 font-mono text-xs">
            {/* `correction` substitutes a* for the node's output (no model call); the others append Δ. */}
            {a.method === "correction" ? "a* (substituted for the node's output) " : "Δ "}
            {a.guidance}
          </p>
        ) : null}
        {a.judgeReason ? <p className="trace-text text-xs text-slate-600">Judge: {a.judgeReason}</p> : null}
        {a.error || a.skipReason ? <p className="trace-text text-red-700">{a.error ?? a.skipReason}</p> : null}
        {!result ? <p className="text-slate-600">This attempt has no stored bundle.</p> : null}
      </section>
      {source && result ? <ReplayFinalAnswers source={finalAnswer(source)} replay={finalAnswer(result)} /> : null}
      {alignment ? <ReplaySuffixTable alignment={alignment} /> : null}
      {rows.length ? <ReplayCompareTable rows={rows} /> : null}
    </div>
  );
}
