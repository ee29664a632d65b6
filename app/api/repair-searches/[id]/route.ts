import { getDb, getRepairSearch } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * GET: one repair search as `RepairSearchView` (lib/db/repair-searches.ts; design-15 contract):
 * status, the SearchState after the last iteration, node → case map, best, usage. Polled by the
 * repair-tree page while the search is queued or running. Researchers and admins; 404 if unknown.
 */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const search = await getRepairSearch(getDb(), (await ctx.params).id);
  if (!search) return Response.json({ error: "no such repair search" }, { status: 404 });
  return Response.json(search);
}
