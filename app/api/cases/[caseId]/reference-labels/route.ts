import { caseRoute } from "@/lib/api";
import { getDb, listReferenceLabels, mayViewerSeeOthers } from "@/lib/db";

export const dynamic = "force-dynamic";

/** GET: the dataset's own labels of the case; withheld (403) from an annotator who has not submitted. */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const db = getDb();
  if (!(await mayViewerSeeOthers(db, v, caseId))) return Response.json({ error: "reference labels are hidden until you submit your annotation of this case" }, { status: 403 });
  return Response.json({ labels: await listReferenceLabels(db, { caseId }) });
}
