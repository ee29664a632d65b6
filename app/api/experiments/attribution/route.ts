import { parseBody, refusePooledView } from "@/lib/api";
import { tableCsv } from "@/lib/attribution";
import { AttributionRunError, getDb } from "@/lib/db";
import { ensureEmbeddedWorkers } from "@/lib/jobs";
import { attributionPostSchema } from "@/lib/schemas/attribution";
import { cancelAttributionFromApp, resumeAttributionFromApp, startAttributionFromApp } from "@/lib/services/attribution/app-start";
import { attributionRunTable, listAttributionRuns } from "@/lib/services/attribution/runs";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * GET: the attribution runs in the database ({ runs: [{name, status, plan, budget, spent, progress, …}] });
 * GET ?run=<name>[&format=csv]: the table of one run (JSON { name, run, rows, progress }, or CSV:
 * lib/attribution CSV_COLUMNS). 404 for an unknown run. Researchers, admins (403 otherwise).
 */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "attribution");
  if (hidden) return hidden;
  const u = new URL(req.url);
  const name = u.searchParams.get("run");
  if (name === null) return Response.json({ runs: await listAttributionRuns(getDb()) });
  const t = await attributionRunTable(getDb(), name);
  if (!t) return Response.json({ error: `no attribution run named ${JSON.stringify(name)}` }, { status: 404 });
  if (u.searchParams.get("format") === "csv") return new Response(tableCsv(t.rows), { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="attribution-${t.name}.csv"` } });
  return Response.json(t);
}

/**
 * POST {action: "start", name, attributors, groundTruth (with | without | both), source (dataset |
 * database), subsets, limit?, seed?, maxCalls?, maxTokens?}: create the run on the server's endpoint
 * over the first `limit` cases of each chosen Who&When subset (of the dataset folders the server
 * ships, or imported into the database), and queue its jobs for the workers (as
 * `symtrace detect --eval --attribution --background`); 201 {run, enqueued, cases, skipped}.
 * POST {action: "resume", name, maxCalls?, maxTokens?}: the same run with the new caps (failed jobs
 * retried); 200 {run, enqueued}. POST {action: "cancel", name}: no job of the run starts any more
 * (running ones finish; Resume continues it); 200 {run, cancelled} (cancelled false: it was already
 * finished or cancelled). Researchers, admins (401 / 403 otherwise). 400 {error,
 * fieldErrors: [{field, message}]} for a body that does not fit the schema; 400 / 404 / 409
 * {error, at} for a refused start (an LLM attributor without endpoint, a cap not above the spent,
 * an unknown run, a name in use).
 */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "attribution");
  if (hidden) return hidden;
  const body = await parseBody(req, attributionPostSchema);
  if (body instanceof Response) return body;
  try {
    await ensureEmbeddedWorkers();
    if (body.action === "resume") return Response.json(await resumeAttributionFromApp(getDb(), v, body));
    if (body.action === "cancel") return Response.json(await cancelAttributionFromApp(getDb(), v, body));
    return Response.json(await startAttributionFromApp(getDb(), v, body), { status: 201 });
  } catch (e) {
    if (e instanceof AttributionRunError) return Response.json({ error: e.message, at: e.at }, { status: e.code === "not-found" ? 404 : e.code === "conflict" ? 409 : 400 });
    console.error(e);
    return Response.json({ error: "internal error" }, { status: 500 });
  }
}
