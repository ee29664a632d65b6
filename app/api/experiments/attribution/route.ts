import { tableCsv } from "@/lib/attribution";
import { getDb } from "@/lib/db";
import { attributionRunTable, listAttributionRuns } from "@/lib/services/attribution/runs";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * GET: the attribution runs in the database ({ runs: [{name, status, plan, budget, spent, progress, …}] });
 * GET ?run=<name>[&format=csv]: the table of one run (JSON { name, run, rows, progress }, or CSV:
 * lib/attribution CSV_COLUMNS). 404 for an unknown run. Researchers, admins.
 */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const u = new URL(req.url);
  const name = u.searchParams.get("run");
  if (name === null) return Response.json({ runs: await listAttributionRuns(getDb()) });
  const t = await attributionRunTable(getDb(), name);
  if (!t) return Response.json({ error: `no attribution run named ${JSON.stringify(name)}` }, { status: 404 });
  if (u.searchParams.get("format") === "csv") return new Response(tableCsv(t.rows), { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="attribution-${t.name}.csv"` } });
  return Response.json(t);
}
