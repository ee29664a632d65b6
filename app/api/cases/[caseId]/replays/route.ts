import { caseRoute, errorResponse, parseBody } from "@/lib/api";
import { getDb, listRunsForCase, ReplayRunError } from "@/lib/db";
import { replaySettings } from "@/lib/env";
import { ensureEmbeddedWorker, startReplayRuns } from "@/lib/jobs";
import { createReplaysSchema } from "@/lib/schemas/replays";
import { mayReplay } from "@/lib/services/replay-access";

export const dynamic = "force-dynamic";

/** GET: the case's replays and replays of its replays (lineage), with live status and progress. */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const db = getDb();
  if (!(await mayReplay(db, r.viewer, r.caseId))) return Response.json({ error: "replays of this case are not available to you" }, { status: 403 });
  const { runs, cases } = await listRunsForCase(db, r.caseId);
  return Response.json({ runs, cases });
}

/** POST {targetNodeId, guidance, count 1–5}: queue replay runs (endpoint and model from the settings). */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const db = getDb();
  if (!(await mayReplay(db, r.viewer, r.caseId))) return Response.json({ error: "replays of this case are not available to you" }, { status: 403 });
  const body = await parseBody(req, createReplaysSchema);
  if (body instanceof Response) return body;
  try {
    await ensureEmbeddedWorker();
    const { groupId, runs } = await startReplayRuns(db, { sourceCaseId: r.caseId, targetNodeId: body.targetNodeId, guidance: body.guidance, count: body.count, endpoint: replaySettings(), createdById: r.viewer.id });
    return Response.json({ groupId, runs }, { status: 201 });
  } catch (e) {
    if (e instanceof ReplayRunError) return Response.json({ error: e.message }, { status: e.code === "not-found" ? 404 : e.code === "conflict" ? 409 : 400 });
    return errorResponse(e);
  }
}
