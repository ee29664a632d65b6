import { errorResponse, replayRunRoute } from "@/lib/api";
import { requestCancel } from "@/lib/db";

export const dynamic = "force-dynamic";

/** POST: ask the worker to stop this run (it becomes "cancelled"). */
export async function POST(req: Request, ctx: { params: Promise<{ runId: string }> }) {
  const r = await replayRunRoute(req, ctx.params);
  if (r instanceof Response) return r;
  try {
    return Response.json({ run: await requestCancel(r.db, r.run.id, r.viewer.id) });
  } catch (e) {
    return errorResponse(e);
  }
}
