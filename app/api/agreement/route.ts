import { z } from "zod";
import { landisKoch } from "@/lib/agreement";
import { getDb } from "@/lib/db";
import { agreementFromDb, madAgreementFromDb } from "@/lib/services/agreement";
import { viewerForRequest } from "@/lib/session";
import { variableRows } from "@/components/agreement/tables";

export const dynamic = "force-dynamic";

const q = z.object({
  format: z.enum(["json", "csv"]).default("json"),
  dataset: z.string().optional(),
  mas: z.string().optional(),
  benchmark: z.string().optional(),
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "from: YYYY-MM-DD").optional(),
  to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "to: YYYY-MM-DD").optional(),
});

const csvCell = (v: unknown) => {
  // 12 significant digits: no floating-point noise like -0.5000000000000001
  const s = v === null || v === undefined ? "" : typeof v === "number" ? String(Number(v.toPrecision(12))) : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** GET ?format=json|csv&dataset=&mas=&benchmark=: the reliability table as a download. */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "adjudicator", "admin");
  if (v instanceof Response) return v;
  const parsed = q.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return Response.json({ error: parsed.error.issues[0].message }, { status: 400 });
  const db = getDb();
  const pending = await db.assignment.count({ where: { userId: v.id, role: "annotator", status: { not: "submitted" } } });
  if (pending > 0) return Response.json({ error: "hidden while you have unsubmitted annotations of your own" }, { status: 403 });
  const { format, ...filter } = parsed.data;
  const [report, mad] = await Promise.all([agreementFromDb(db, filter), madAgreementFromDb(db)]);
  if (format === "json") {
    return new Response(JSON.stringify({ filter, report, mad: mad ? { pooled: mad.pooled, modes: mad.modes } : null }, null, 2), {
      headers: { "content-type": "application/json", "content-disposition": 'attachment; filename="agreement.json"' },
    });
  }
  const lines = [["variable", "fleiss_kappa", "ci95_low", "ci95_high", "landis_koch", "pairwise_agreement", "unanimous", "cases"].join(",")];
  if (report.ok) {
    for (const [name, x] of variableRows(report)) {
      lines.push([name, x.kappa, x.ci95?.[0], x.ci95?.[1], landisKoch(x.kappa), x.pairwiseAgreement, x.unanimous, report.cases].map(csvCell).join(","));
    }
  }
  if (mad) lines.push(["MAD pooled binary (failure modes)", mad.pooled.kappa, "", "", landisKoch(mad.pooled.kappa), "", mad.pooled.unanimous, mad.pooled.items].map(csvCell).join(","));
  return new Response(lines.join("\n") + "\n", { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="agreement.csv"' } });
}
