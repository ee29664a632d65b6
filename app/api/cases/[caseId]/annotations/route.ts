import { caseFromParam, errorResponse } from "@/lib/api";
import { getCaseAnnotationsFor, getDb } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * GET: the case's annotations this viewer may see. An annotator who has not submitted gets only
 * their own (blind: true); others' initials and the final come after submission.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  try {
    const r = await getCaseAnnotationsFor(getDb(), v, { caseId });
    return Response.json({ blind: r.blind, own: r.own, initials: r.initials, final: r.final, finalizedAt: r.finalizedAt });
  } catch (e) {
    return errorResponse(e);
  }
}
