import { caseFromParam, errorResponse } from "@/lib/api";
import { getDb, listCaseAudit } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: the case's append-only audit trail (admins, researchers, adjudicators; never a blind annotator). */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  try {
    return Response.json({ events: await listCaseAudit(getDb(), v, { caseId }) });
  } catch (e) {
    return errorResponse(e);
  }
}
