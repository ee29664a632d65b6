import { z } from "zod";
import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseIdFor, getDb, searchCaseNodePositions } from "@/lib/db";

export const dynamic = "force-dynamic";

const querySchema = z.object({ q: z.string().max(500, "q: at most 500 characters") });

/** GET /api/cases/<bundleId>/search?q=text → {nodeIds: [...], orderIndexes: [...]} in observed order (the positions let the windowed inspector jump to a match). */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const parsed = querySchema.safeParse({ q: new URL(req.url).searchParams.get("q") ?? "" });
  if (!parsed.success) return Response.json({ error: parsed.error.issues[0].message }, { status: 400 });
  const bundleId = bundleIdFromParam((await ctx.params).caseId);
  const db = getDb();
  const caseId = await findCaseIdFor(db, v, { bundleId });
  if (!caseId) return Response.json({ error: `no case "${bundleId}"` }, { status: 404 });
  const found = await searchCaseNodePositions(db, { caseId, q: parsed.data.q });
  return Response.json({ nodeIds: found.map((f) => f.nodeId), orderIndexes: found.map((f) => f.orderIndex) });
}
