import { parseBody, refusePooledView } from "@/lib/api";
import { getDb, listRepairSearches, RepairSearchDbError } from "@/lib/db";
import { ensureEmbeddedWorkers } from "@/lib/jobs";
import { createRepairSearchSchema } from "@/lib/schemas/repair-searches";
import { repairSearchSettingsFromEnv, startRepairSearch } from "@/lib/services/repair-search/jobs";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET ?caseId=&limit=: repair searches, newest first (of one source case when given) — researchers, admins. */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "repair-searches");
  if (hidden) return hidden;
  const q = new URL(req.url).searchParams;
  const limit = Number(q.get("limit") ?? 50);
  const searches = await listRepairSearches(getDb(), { sourceCaseId: q.get("caseId") || undefined, limit: Number.isFinite(limit) ? limit : 50 });
  return Response.json({ searches });
}

/**
 * POST {sourceCaseId, iterations?, k?, l?, c?, maxDepth?, seed?, maxCalls?, maxTokens?}: queue a
 * search-based repair (MARS) of the case with the server's frozen endpoints, judge and evaluator.
 * 201 {search}; 400 {error, at} bad input; 404 no such case; 503 no live endpoint configured.
 */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "repair-searches");
  if (hidden) return hidden;
  const body = await parseBody(req, createRepairSearchSchema);
  if (body instanceof Response) return body;
  const settings = repairSearchSettingsFromEnv(body);
  if ("error" in settings) return Response.json({ error: settings.error }, { status: 503 });
  try {
    await ensureEmbeddedWorkers();
    const search = await startRepairSearch(getDb(), { sourceCaseId: body.sourceCaseId, settings, createdById: v.id });
    return Response.json({ search }, { status: 201 });
  } catch (e) {
    if (e instanceof RepairSearchDbError) return Response.json({ error: e.message, at: e.at }, { status: e.code === "not-found" ? 404 : 400 });
    console.error(e);
    return Response.json({ error: "internal error" }, { status: 500 });
  }
}
