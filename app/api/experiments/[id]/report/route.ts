import { parseQuery, refusePooledView } from "@/lib/api";
import { z } from "zod";
import { EXPERIMENT_TABLES } from "@/lib/experiments";
import { getDb } from "@/lib/db";
import { experimentCsv, frozenSettingsRecord, getExperimentReport } from "@/lib/services/experiments/run";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

const q = z.object({ format: z.enum(["json", "csv"]).default("json"), table: z.enum(EXPERIMENT_TABLES).default("repair") });

/**
 * GET ?format=json|csv&table=<name>: the report as a download. JSON: frozen settings, the item-7
 * object (`cli`), the full report (Tables 2–4, 7–9) and every attempt. CSV: one table
 * (settings | reproduction | repair | comparisons | efficiency | attempts).
 */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  const query = parseQuery(req, q);
  if (query instanceof Response) return query;
  const id = (await ctx.params).id;
  if (query.format === "csv") {
    const csv = await experimentCsv(getDb(), id, query.table);
    if (csv === null) return Response.json({ error: "no such experiment" }, { status: 404 });
    return new Response(csv, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="experiment-${id}-${query.table}.csv"` } });
  }
  const r = await getExperimentReport(getDb(), id);
  if (!r) return Response.json({ error: "no such experiment" }, { status: 404 });
  const body = { experiment: r.experiment, settings: frozenSettingsRecord(r.experiment), final: r.final, cli: r.cli, report: r.report, attempts: r.attempts };
  return new Response(JSON.stringify(body, null, 2), { headers: { "content-type": "application/json", "content-disposition": `attachment; filename="experiment-${id}.json"` } });
}
