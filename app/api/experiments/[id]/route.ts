import { refusePooledView } from "@/lib/api";
import { getDb, getExperiment } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: one experiment — frozen settings, case set, status and live progress per method/status. */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  const experiment = await getExperiment(getDb(), (await ctx.params).id);
  if (!experiment) return Response.json({ error: "no such experiment" }, { status: 404 });
  return Response.json({ experiment });
}
