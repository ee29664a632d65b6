import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseIdFor, getDb, locateNode } from "@/lib/db";

export const dynamic = "force-dynamic";

/** GET /api/cases/<bundleId>/graph/locate?node=<id> → `{nodeId, orderIndex}` (404 when the case has no such node). */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const nodeId = new URL(req.url).searchParams.get("node") ?? "";
  if (!nodeId) return Response.json({ error: "node: required" }, { status: 400 });
  const bundleId = bundleIdFromParam((await ctx.params).caseId);
  const db = getDb();
  const caseId = await findCaseIdFor(db, v, { bundleId });
  if (!caseId) return Response.json({ error: `no case "${bundleId}"` }, { status: 404 });
  const orderIndex = await locateNode(db, { caseId, nodeId });
  if (orderIndex === null) return Response.json({ error: `no node "${nodeId}" in this case` }, { status: 404 });
  return Response.json({ nodeId, orderIndex });
}
