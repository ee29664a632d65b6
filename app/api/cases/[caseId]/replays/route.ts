import { errorResponse, parseBody, replayCaseRoute } from "@/lib/api";
import { listRunsForCase } from "@/lib/db";
import { replaySettings } from "@/lib/env";
import { ensureEmbeddedWorkers } from "@/lib/jobs";
import { startCaseReplays } from "@/lib/services/replay-start";
import { registryForRoute } from "@/lib/services/runners";
import { createReplaysSchema } from "@/lib/schemas/replays";

export const dynamic = "force-dynamic";

/** GET: the case's replays and replays of its replays (lineage), with live status and progress. */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await replayCaseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { runs, cases } = await listRunsForCase(r.db, r.caseId);
  return Response.json({ runs, cases });
}

/**
 * POST {targetNodeId, guidance, count 1–5}: queue replay runs (endpoint and model from the
 * settings). The answer's `plan` says how they run: a registered runner, or transcript
 * continuation with the reason. A bundle's own command is never run.
 */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await replayCaseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const body = await parseBody(req, createReplaysSchema);
  if (body instanceof Response) return body;
  const registry = registryForRoute();
  if (registry instanceof Response) return registry;
  try {
    await ensureEmbeddedWorkers();
    const started = await startCaseReplays(r.db, { caseId: r.caseId, targetNodeId: body.targetNodeId, guidance: body.guidance, count: body.count, endpoint: replaySettings(), createdById: r.viewer.id, registry });
    if (!started) return Response.json({ error: "no such case" }, { status: 404 });
    return Response.json({ groupId: started.groupId, runs: started.runs, plan: started.plan }, { status: 201 });
  } catch (e) {
    return errorResponse(e);
  }
}
