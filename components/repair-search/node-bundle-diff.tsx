import Link from "next/link";
import type { ReplayBundle } from "@/lib/bundle";
import { caseHref } from "@/lib/case-links";
import { finalAnswer, resolveOutcomes } from "@/lib/replay";
import { compareReplay } from "@/lib/replay/node-compare";
import { ReplayCompareTable } from "@/components/replay/replay-compare-table";
import { ReplayFinalAnswers, ReplayOutcome } from "@/components/replay/replay-outcome";

/**
 * A tree node's bundle beside the search's source bundle (issue 15 item 4), with the replay
 * result view's parts: outcomes, final answers and the node-by-node diff (lib/replay/node-compare,
 * JSON-pointer diffs by lib/replay's jsondiffpatch). The intervention boundary is the bundle's
 * `parent.targetNodeId` when its parent is the source itself (a child of the root); deeper nodes
 * descend from other tree nodes, so their differences show as changed / new nodes.
 */
export function NodeBundleDiff({ nodeId, source, bundle }: { nodeId: string; source: ReplayBundle; bundle: ReplayBundle }) {
  const parent = (bundle.parent ?? null) as { bundleId?: string; targetNodeId?: string; mode?: string; rollout?: { liveLlm?: number; stoppedAtLimit?: boolean } } | null;
  const boundary = parent && parent.bundleId === source.id ? (parent.targetNodeId ?? null) : null;
  const rows = compareReplay(source, bundle, boundary);
  const outcomes = resolveOutcomes(source, bundle);
  const counts = rows.reduce<Record<string, number>>((m, r) => ((m[r.kind] = (m[r.kind] ?? 0) + 1), m), {});
  return (
    <section className="flex flex-col gap-3" data-testid="node-bundle" data-node={nodeId} aria-label={`Bundle of node ${nodeId} beside the source`}>
      <div className="flex flex-col gap-1 rounded border border-slate-200 bg-white p-4 text-sm">
        <h2 className="font-semibold">
          Node <span className="font-mono">{nodeId}</span>&apos;s bundle beside the source
        </h2>
        <p className="text-xs">
          Source <Link className="font-mono text-blue-700 underline" href={caseHref(source.id)}>{source.id}</Link> · node bundle{" "}
          <Link className="font-mono text-blue-700 underline" href={caseHref(bundle.id)} data-testid="node-bundle-link">
            {bundle.id}
          </Link>
        </p>
        {parent ? (
          <p className="trace-text text-xs text-slate-600" data-testid="node-bundle-parent">
            parent {parent.bundleId} · {parent.mode ?? "replay"} at {parent.targetNodeId ?? "—"}
            {parent.rollout ? ` · rollout ${parent.rollout.liveLlm ?? "?"} live step(s)${parent.rollout.stoppedAtLimit ? ", stopped at L" : ""}` : ""}
          </p>
        ) : null}
        <p className="text-xs text-slate-600" data-testid="node-bundle-counts">
          {Object.entries(counts)
            .map(([k, v]) => `${v} ${k}`)
            .join(" · ") || "no nodes"}
        </p>
        <ReplayOutcome source={outcomes.source} replay={outcomes.replay} />
      </div>
      <ReplayFinalAnswers source={finalAnswer(source)} replay={finalAnswer(bundle)} />
      {rows.length ? <ReplayCompareTable rows={rows} /> : null}
    </section>
  );
}
