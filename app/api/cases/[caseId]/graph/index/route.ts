import { caseRoute } from "@/lib/api";
import { getDb, getGraphIndex } from "@/lib/db";

export const dynamic = "force-dynamic";

/**
 * GET /api/cases/<bundleId>/graph/index → the compact index of the case's nodes in observed
 * order (lib/db getGraphIndex), `application/octet-stream`: `count` lane bytes, then `count` flag
 * bytes (bits 0–2 type code, bit 3 failed). Headers: `x-symtrace-count`, `x-symtrace-lanes`
 * (JSON array of the lanes' agents, URI-encoded).
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const ix = await getGraphIndex(getDb(), { caseId: r.caseId });
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
