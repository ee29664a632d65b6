import { bundleIdFromParam } from "@/lib/case-links";
import { findCaseId, getDb, getNodeDetail } from "@/lib/db";

export const dynamic = "force-dynamic";

/** GET /api/cases/<bundleId>/nodes/<nodeId>: the node's full content, hash check, records, parents, children. */
export async function GET(_req: Request, ctx: { params: Promise<{ caseId: string; nodeId: string }> }) {
  const p = await ctx.params;
  const db = getDb();
  const caseId = await findCaseId(db, { bundleId: bundleIdFromParam(p.caseId) });
  if (!caseId) return Response.json({ error: `no case "${bundleIdFromParam(p.caseId)}"` }, { status: 404 });
  const node = await getNodeDetail(db, { caseId, nodeId: bundleIdFromParam(p.nodeId) });
  if (!node) return Response.json({ error: `no node "${bundleIdFromParam(p.nodeId)}" in this case` }, { status: 404 });
  return Response.json(node);
}
