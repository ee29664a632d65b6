import { caseFromParam } from "@/lib/api";
import { getDb, listReferenceLabels, mayViewerSeeOthers } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: the dataset's own labels of the case; withheld (403) from an annotator who has not submitted. */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  const db = getDb();
  if (!(await mayViewerSeeOthers(db, v, caseId))) return Response.json({ error: "reference labels are hidden until you submit your annotation of this case" }, { status: 403 });
  return Response.json({ labels: await listReferenceLabels(db, { caseId }) });
}
