import { parseQuery, refusePooledView } from "@/lib/api";
import { z } from "zod";
import { getDb, getExperiment, listExperimentAttempts, ATTEMPT_STATUSES } from "@/lib/db";
import { experimentCsv } from "@/lib/services/experiments/run";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

const q = z.object({
  format: z.enum(["json", "csv"]).default("json"),
  method: z.string().optional(),
  mas: z.string().optional(),
  category: z.string().optional(),
  status: z.enum(ATTEMPT_STATUSES).optional(),
  case: z.string().optional(),
});

/**
 * GET ?method=&mas=&category=&status=&case=: the attempts behind a table cell (JSON), each with its
 * stored bundle id (to open and diff against the source). ?format=csv: every attempt as CSV.
 */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  const query = parseQuery(req, q);
  if (query instanceof Response) return query;
  const id = (await ctx.params).id;
  const db = getDb();
  if (query.format === "csv") {
    const csv = await experimentCsv(db, id, "attempts");
    if (csv === null) return Response.json({ error: "no such experiment" }, { status: 404 });
    return new Response(csv, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="experiment-${id}-attempts.csv"` } });
  }
  if (!(await getExperiment(db, id))) return Response.json({ error: "no such experiment" }, { status: 404 });
  const f = query;
  const attempts = await listExperimentAttempts(db, id, { method: f.method, mas: f.mas, primaryCategory: f.category, status: f.status, caseBundleId: f.case });
  return Response.json({ attempts });
}
