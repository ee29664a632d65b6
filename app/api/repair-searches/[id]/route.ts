import { refusePooledView } from "@/lib/api";
import { getDb, getRepairSearch } from "@/lib/db";
import { ensureEmbeddedWorkers } from "@/lib/jobs";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: one repair search — status, frozen settings, the tree (state), node → case map, best, usage (polled while it runs). */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "repair-searches");
  if (hidden) return hidden;
  const search = await getRepairSearch(getDb(), (await ctx.params).id);
  if (!search) return Response.json({ error: "no such repair search" }, { status: 404 });
  // A search left queued/running by an app restart is picked up (and resumed) by the embedded worker.
  if (search.status === "queued" || search.status === "running") await ensureEmbeddedWorkers().catch(() => null);
  return Response.json({ search });
}
