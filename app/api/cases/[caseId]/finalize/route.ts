import { caseFromParam, errorResponse, parseBody } from "@/lib/api";
import { finalizeCase, getDb } from "@/lib/db";
import { finalizeSchema } from "@/lib/schemas/annotations";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST {fields}: the adjudicator's final annotation; 409 when another adjudicator finalized first. */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req, "adjudicator");
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  const body = await parseBody(req, finalizeSchema);
  if (body instanceof Response) return body;
  try {
    return Response.json({ annotation: await finalizeCase(getDb(), v, { caseId, fields: body.fields }) });
  } catch (e) {
    return errorResponse(e);
  }
}
