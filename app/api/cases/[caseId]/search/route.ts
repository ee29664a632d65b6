import { z } from "zod";
import { bundleIdFromParam } from "@/lib/case-links";
import { viewerForRequest } from "@/lib/session";
import { findCaseId, getDb, searchCaseNodes } from "@/lib/db";

export const dynamic = "force-dynamic";

const querySchema = z.object({ q: z.string().max(500, "q: at most 500 characters") });

/** GET /api/cases/<bundleId>/search?q=text → {nodeIds: [...]} in observed order. */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const parsed = querySchema.safeParse({ q: new URL(req.url).searchParams.get("q") ?? "" });
  if (!parsed.success) return Response.json({ error: parsed.error.issues[0].message }, { status: 400 });
  const bundleId = bundleIdFromParam((await ctx.params).caseId);
  const db = getDb();
  const caseId = await findCaseId(db, { bundleId });
  if (!caseId) return Response.json({ error: `no case "${bundleId}"` }, { status: 404 });
  return Response.json({ nodeIds: await searchCaseNodes(db, { caseId, q: parsed.data.q }) });
}
