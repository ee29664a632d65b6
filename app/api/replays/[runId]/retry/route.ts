import { getDb, getRun, ReplayRunError } from "@/lib/db";
import { ensureEmbeddedWorker, retryReplayRun } from "@/lib/jobs";
import { mayReplay } from "@/lib/services/replay-access";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST: queue a new attempt of an interrupted, failed or cancelled run. */
export async function POST(req: Request, ctx: { params: Promise<{ runId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const db = getDb();
  const run = await getRun(db, (await ctx.params).runId);
  if (!run || !(await mayReplay(db, v, run.sourceCaseId))) return Response.json({ error: "no such replay" }, { status: 404 });
  try {
    await ensureEmbeddedWorker();
    return Response.json({ run: await retryReplayRun(db, run.id, v.id) });
  } catch (e) {
    if (e instanceof ReplayRunError) return Response.json({ error: e.message }, { status: e.code === "not-found" ? 404 : 409 });
    throw e;
  }
}
