import { z } from "zod";
import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseIdFor, getDb, getGraphWindow, MAX_WINDOW_NODES } from "@/lib/db";

export const dynamic = "force-dynamic";

const querySchema = z
  .object({ from: z.coerce.number().int().min(0, "from: at least 0"), to: z.coerce.number().int().min(0, "to: at least 0") })
  .refine((q) => q.to >= q.from && q.to - q.from <= MAX_WINDOW_NODES, { message: `to - from: between 0 and ${MAX_WINDOW_NODES}` });

/**
 * GET /api/cases/<bundleId>/graph/window?from=<i>&to=<j> → `{from, to, nodes, edges}`: the nodes
 * at observed-order positions from ≤ i < to (no content) and every edge touching them, each with
 * both ends' positions and agents (lib/db getGraphWindow). At most 2,000 positions per request.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const sp = new URL(req.url).searchParams;
  const parsed = querySchema.safeParse({ from: sp.get("from") ?? "", to: sp.get("to") ?? "" });
  if (!parsed.success) return Response.json({ error: parsed.error.issues[0].message }, { status: 400 });
  const bundleId = bundleIdFromParam((await ctx.params).caseId);
  const db = getDb();
  const caseId = await findCaseIdFor(db, v, { bundleId });
  if (!caseId) return Response.json({ error: `no case "${bundleId}"` }, { status: 404 });
  return Response.json(await getGraphWindow(db, { caseId, from: parsed.data.from, to: parsed.data.to }));
}
