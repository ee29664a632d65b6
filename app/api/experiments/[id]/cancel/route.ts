import { refusePooledView } from "@/lib/api";
import { getDb } from "@/lib/db";
import { cancelExperimentRun } from "@/lib/services/experiments/run";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST: cancel — queued attempts are not run, running ones are aborted; a final experiment is left unchanged. */
export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  const experiment = await cancelExperimentRun(getDb(), (await ctx.params).id, v.id);
  if (!experiment) return Response.json({ error: "no such experiment" }, { status: 404 });
  return Response.json({ experiment });
}
