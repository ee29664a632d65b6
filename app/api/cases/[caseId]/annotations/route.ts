import { caseRoute, errorResponse } from "@/lib/api";
import { getCaseAnnotationsFor, getDb } from "@/lib/db";

export const dynamic = "force-dynamic";

/**
 * GET: the case's annotations this viewer may see. An annotator who has not submitted gets only
 * their own (blind: true); others' initials and the final come after submission.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  try {
    const r = await getCaseAnnotationsFor(getDb(), v, { caseId });
    return Response.json({ blind: r.blind, own: r.own, initials: r.initials, final: r.final, finalizedAt: r.finalizedAt });
  } catch (e) {
    return errorResponse(e);
  }
}
