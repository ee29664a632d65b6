import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseIdFor, getDb, getGraphIndex } from "@/lib/db";

export const dynamic = "force-dynamic";

/**
 * GET /api/cases/<bundleId>/graph/index → the compact index of the case's nodes in observed
 * order (lib/db getGraphIndex), `application/octet-stream`: `count` lane bytes, then `count` flag
 * bytes (bits 0–2 type code, bit 3 failed). Headers: `x-symtrace-count`, `x-symtrace-lanes`
 * (JSON array of the lanes' agents, URI-encoded).
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const bundleId = bundleIdFromParam((await ctx.params).caseId);
  const db = getDb();
  const caseId = await findCaseIdFor(db, v, { bundleId });
  if (!caseId) return Response.json({ error: `no case "${bundleId}"` }, { status: 404 });
  const ix = await getGraphIndex(db, { caseId });
  const body = new Uint8Array(ix.count * 2);
  body.set(ix.lane, 0);
  body.set(ix.flags, ix.count);
  return new Response(body, {
    headers: {
      "content-type": "application/octet-stream",
      "x-symtrace-count": String(ix.count),
      "x-symtrace-lanes": encodeURIComponent(JSON.stringify(ix.lanes)),
      "cache-control": "private, max-age=60",
    },
  });
}
