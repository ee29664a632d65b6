import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getCaseByBundleId, getCaseGraph, getDb } from "@/lib/db";
import { bundleIdFromParam } from "@/lib/case-links";
import { casePageQuerySchema } from "@/lib/schemas/cases";
import { CaseHeader } from "@/components/trace/case-header";
import { Inspector } from "@/components/trace/inspector";
import { ReferenceLabels } from "@/components/trace/reference-labels";

export const dynamic = "force-dynamic";

type Params = Promise<{ caseId: string[] }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: bundleIdFromParam((await params).caseId.join("/")) };
}

export default async function CasePage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const bundleId = bundleIdFromParam((await params).caseId.join("/"));
  const { node: requested } = casePageQuerySchema.parse(await searchParams);
  const db = getDb();
  const c = await getCaseByBundleId(db, { bundleId });
  if (!c) notFound();
  const graph = await getCaseGraph(db, { caseId: c.id });
  const known = requested ? graph.nodes.some((n) => n.id === requested) : false;
  return (
    <div className="flex flex-col gap-4">
      <CaseHeader c={c} />
      {requested && !known ? (
        <p role="alert" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          This case has no node &quot;{requested}&quot;; showing the first node instead.
        </p>
      ) : null}
      <Inspector bundleId={c.bundleId} nodes={graph.nodes} edges={graph.edges} initialNodeId={known ? (requested as string) : (graph.nodes[0]?.id ?? null)} />
      <ReferenceLabels bundleId={c.bundleId} labels={c.referenceLabels} />
    </div>
  );
}
