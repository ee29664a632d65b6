import { caseRoute, errorResponse } from "@/lib/api";
import { getDb, listCaseAudit } from "@/lib/db";

export const dynamic = "force-dynamic";

/** GET: the case's append-only audit trail (admins, researchers, adjudicators; never a blind annotator). */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  try {
    return Response.json({ events: await listCaseAudit(getDb(), v, { caseId }) });
  } catch (e) {
    return errorResponse(e);
  }
}
