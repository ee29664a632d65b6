import { refusePooledView } from "@/lib/api";
import { getDb, RepairSearchDbError, requestRepairSearchCancel } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST: cancel — a queued search at once; a running one stops before its next iteration; a final one is left unchanged. */
export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "repair-searches");
  if (hidden) return hidden;
  try {
    const search = await requestRepairSearchCancel(getDb(), (await ctx.params).id, v.id);
    return Response.json({ search });
  } catch (e) {
    if (e instanceof RepairSearchDbError && e.code === "not-found") return Response.json({ error: "no such repair search" }, { status: 404 });
    throw e;
  }
}
