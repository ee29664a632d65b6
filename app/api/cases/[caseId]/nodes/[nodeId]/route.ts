import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseId, getDb, getNodeDetail } from "@/lib/db";

export const dynamic = "force-dynamic";

/** GET /api/cases/<bundleId>/nodes/<nodeId>: the node's full content, hash check, records, parents, children. */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string; nodeId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const p = await ctx.params;
  const db = getDb();
  const caseId = await findCaseId(db, { bundleId: bundleIdFromParam(p.caseId) });
  if (!caseId) return Response.json({ error: `no case "${bundleIdFromParam(p.caseId)}"` }, { status: 404 });
  const node = await getNodeDetail(db, { caseId, nodeId: bundleIdFromParam(p.nodeId) });
  if (!node) return Response.json({ error: `no node "${bundleIdFromParam(p.nodeId)}" in this case` }, { status: 404 });
  return Response.json(node);
}
