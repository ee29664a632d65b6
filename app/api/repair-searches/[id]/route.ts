import { getDb, getRepairSearch } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: one repair search — status, frozen settings, the tree (state), node → case map, best, usage (polled while it runs). */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const search = await getRepairSearch(getDb(), (await ctx.params).id);
  if (!search) return Response.json({ error: "no such repair search" }, { status: 404 });
  return Response.json({ search });
}
