import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { caseHref } from "@/lib/case-links";
import { exportBundle, getDb, getRepairSearch, pooledViewGate } from "@/lib/db";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { NodeBundleDiff } from "@/components/repair-search/node-bundle-diff";
import { RepairSearchLive, type RepairSearchClientView } from "@/components/repair-search/repair-search-live";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Repair search" };

/**
 * One repair search (issue 15 item 4; MARS, seeds/002): the live tree (visits, Q/N, score, action
 * and guidance per node, the best trajectory highlighted) and, for `?node=<tree node id>`, that
 * node's bundle beside the source with the diff. Researchers and admins.
 */
export default async function RepairSearchPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "repair-searches");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const { id } = await params;
  const q = await searchParams;
  const nodeId = typeof q.node === "string" && /^n\d+$/.test(q.node) ? q.node : null;
  const db = getDb();
  const v = await getRepairSearch(db, id);
  if (!v) notFound();
  const initial: RepairSearchClientView = JSON.parse(JSON.stringify({ id: v.id, status: v.status, state: v.state, nodeCases: v.nodeCases, best: v.best, usage: v.usage, error: v.error }));
  const nodeCaseId = nodeId ? (v.nodeCases[nodeId] ?? null) : null;
  const [source, bundle] = nodeCaseId ? await Promise.all([exportBundle(db, { bundleId: v.sourceBundleId }), exportBundle(db, { caseId: nodeCaseId })]) : [null, null];
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="text-xl font-semibold">Repair search</h1>
        <span className="font-mono text-xs text-slate-600">{v.id}</span>
        <Link className="text-sm text-blue-700 underline" href={`/repair-searches?caseId=${encodeURIComponent(v.sourceCaseId)}`}>
          all searches of this case
        </Link>
      </div>
      <p className="text-sm text-slate-600">
        Monte-Carlo tree search over interventions (seeds/002, MARS): every tree node is a replay bundle built by a fail-closed selective replay of its parent. Source case{" "}
        <Link className="font-mono text-blue-700 underline" href={caseHref(v.sourceBundleId)} data-testid="source-link">
          {v.sourceBundleId}
        </Link>
        .
      </p>
      <RepairSearchLive initial={initial} selectedId={nodeId} />
      {source && bundle && nodeId ? <NodeBundleDiff nodeId={nodeId} source={source} bundle={bundle} /> : null}
    </div>
  );
}
