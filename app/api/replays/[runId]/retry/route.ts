import { errorResponse, replayRunRoute } from "@/lib/api";
import { ensureEmbeddedWorkers, retryReplayRun } from "@/lib/jobs";

export const dynamic = "force-dynamic";

/** POST: queue a new attempt of an interrupted, failed or cancelled run. */
export async function POST(req: Request, ctx: { params: Promise<{ runId: string }> }) {
  const r = await replayRunRoute(req, ctx.params);
  if (r instanceof Response) return r;
  try {
    await ensureEmbeddedWorkers();
    return Response.json({ run: await retryReplayRun(r.db, r.run.id, r.viewer.id) });
  } catch (e) {
    return errorResponse(e);
  }
}
