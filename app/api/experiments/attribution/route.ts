import { tableCsv } from "@/lib/attribution";
import { attributionRunTable } from "@/lib/services/attribution/runs";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET ?run=<name>[&format=csv]: the attribution table of one run (JSON rows, or CSV). 404 for an unknown run. Researchers, admins. */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const u = new URL(req.url);
  const t = attributionRunTable(u.searchParams.get("run") ?? "");
  if (!t) return Response.json({ error: `no attribution run named ${JSON.stringify(u.searchParams.get("run"))}` }, { status: 404 });
  if (u.searchParams.get("format") === "csv") return new Response(tableCsv(t.rows), { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="attribution-${t.name}.csv"` } });
  return Response.json(t);
}
