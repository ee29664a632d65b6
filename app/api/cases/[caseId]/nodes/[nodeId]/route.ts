import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseIdFor, getDb, getNodeDetail } from "@/lib/db";

export const dynamic = "force-dynamic";

/**
 * GET /api/cases/<bundleId>/nodes/<nodeId>: the node's full content, hash check, records, parents,
 * children. A node that cannot be loaded or serialized (e.g. content stored past the nesting limit
 * by an older version) answers 422 `{error, nodeId}` instead of a 500.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string; nodeId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const p = await ctx.params;
  const db = getDb();
  const caseId = await findCaseIdFor(db, v, { bundleId: bundleIdFromParam(p.caseId) });
  if (!caseId) return Response.json({ error: `no case "${bundleIdFromParam(p.caseId)}"` }, { status: 404 });
  const nodeId = bundleIdFromParam(p.nodeId);
  let body: string;
  try {
    const node = await getNodeDetail(db, { caseId, nodeId });
    if (!node) return Response.json({ error: `no node "${nodeId}" in this case` }, { status: 404 });
    body = JSON.stringify(node);
  } catch (e) {
    const reason = e instanceof RangeError ? "its content is nested too deeply to render" : (e as Error).message;
    return Response.json({ error: `node "${nodeId}" cannot be shown: ${reason}`, nodeId }, { status: 422 });
  }
  return new Response(body, { headers: { "content-type": "application/json" } });
}
