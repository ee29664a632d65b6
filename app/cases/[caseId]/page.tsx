import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getCaseByBundleId, getDb, getNodeDetail } from "@/lib/db";
import { bundleIdFromParam } from "@/lib/case-links";
import { casePageQuerySchema } from "@/lib/schemas/cases";
import { CaseHeader } from "@/components/trace/case-header";
import { NodeList } from "@/components/trace/node-list";
import { NodeDetail } from "@/components/trace/node-detail";
import { ReferenceLabels } from "@/components/trace/reference-labels";

export const dynamic = "force-dynamic";

type Params = Promise<{ caseId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: bundleIdFromParam((await params).caseId) };
}

export default async function CasePage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const bundleId = bundleIdFromParam((await params).caseId);
  const { node: selectedParam } = casePageQuerySchema.parse(await searchParams);
  const db = getDb();
  const c = await getCaseByBundleId(db, { bundleId });
  if (!c) notFound();
  const selected = selectedParam ?? c.nodes[0]?.nodeId;
  const detail = selected ? await getNodeDetail(db, { caseId: c.id, nodeId: selected }) : null;
  return (
    <div className="flex flex-col gap-4">
      <CaseHeader c={c} />
      <ReferenceLabels bundleId={c.bundleId} labels={c.referenceLabels} />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <section aria-labelledby="nodes-h" className="rounded border border-slate-200 bg-white">
          <h2 id="nodes-h" className="border-b border-slate-200 px-4 py-2 text-sm font-semibold">
            Nodes in observed order <span className="font-normal text-slate-500">({c.nodeCount})</span>
          </h2>
          <div className="max-h-[70vh] overflow-auto">
            <NodeList bundleId={c.bundleId} nodes={c.nodes} selected={selected} />
          </div>
        </section>
        <section aria-labelledby="detail-h" className="rounded border border-slate-200 bg-white lg:sticky lg:top-4 lg:self-start">
          <h2 id="detail-h" className="border-b border-slate-200 px-4 py-2 text-sm font-semibold">
            Node
          </h2>
          {detail ? (
            <NodeDetail bundleId={c.bundleId} node={detail} />
          ) : (
            <p className="p-4 text-sm text-slate-600">{selectedParam ? `No node "${selectedParam}" in this case.` : "This case has no nodes."}</p>
          )}
        </section>
      </div>
    </div>
  );
}
