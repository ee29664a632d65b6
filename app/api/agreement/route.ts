import { z } from "zod";
import { AGREEMENT_TABLES, agreementTable, tableToCsv } from "@/lib/agreement";
import { blindnessGate, getDb } from "@/lib/db";
import { agreementFromDb, disagreementFromDb, madAgreementFromDb } from "@/lib/services/agreement";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

const q = z.object({
  format: z.enum(["json", "csv"]).default("json"),
  /** CSV only: which dashboard table (one CSV per table); default the reliability table. */
  table: z.enum(AGREEMENT_TABLES).default("reliability"),
  dataset: z.string().optional(),
  mas: z.string().optional(),
  benchmark: z.string().optional(),
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "from: YYYY-MM-DD").optional(),
  to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "to: YYYY-MM-DD").optional(),
});

/**
 * GET ?format=json|csv&table=<name>&dataset=&mas=&benchmark=&from=&to=: the dashboard as a download.
 * JSON holds everything; CSV holds one table (`table`, one of AGREEMENT_TABLES in lib/agreement).
 */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "adjudicator", "admin");
  if (v instanceof Response) return v;
  const parsed = q.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return Response.json({ error: `${parsed.error.issues[0].path.join(".") || "query"}: ${parsed.error.issues[0].message}` }, { status: 400 });
  const db = getDb();
  if (!(await blindnessGate(db, v, { allCases: true })).references) return Response.json({ error: "hidden while you have unsubmitted annotations of your own" }, { status: 403 });
  const { format, table, ...filter } = parsed.data;
  const [report, mad, dis] = await Promise.all([agreementFromDb(db, filter), madAgreementFromDb(db), disagreementFromDb(db, filter)]);
  if (format === "json") {
    return new Response(JSON.stringify({ filter, report, perAnnotatorVsFinal: dis.perAnnotator, disagreement: dis.cases, mad: mad ? { pooled: mad.pooled, modes: mad.modes } : null }, null, 2), {
      headers: { "content-type": "application/json", "content-disposition": 'attachment; filename="agreement.json"' },
    });
  }
  const rows = agreementTable(table, { report: report.ok ? report : null, vsFinal: dis.perAnnotator, disagreement: dis.cases, mad });
  return new Response(tableToCsv(rows), {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="agreement-${table}.csv"` },
  });
}
