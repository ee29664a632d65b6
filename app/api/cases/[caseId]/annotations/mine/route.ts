import { caseFromParam, errorResponse, parseBody } from "@/lib/api";
import { getDb, getOwnAnnotation, saveDraft } from "@/lib/db";
import { saveAnnotationSchema } from "@/lib/schemas/annotations";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET ?kind=initial|final: the viewer's own annotation of this case (or null). */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  const kind = new URL(req.url).searchParams.get("kind") === "final" ? "final" : "initial";
  return Response.json({ annotation: await getOwnAnnotation(getDb(), v, { caseId, kind }) });
}

/** PUT {kind, version, fields}: save the draft (optimistic version; 409 with the current copy on conflict). */
export async function PUT(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req, "annotator", "adjudicator");
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  const body = await parseBody(req, saveAnnotationSchema);
  if (body instanceof Response) return body;
  try {
    return Response.json({ annotation: await saveDraft(getDb(), v, { caseId, ...body }) });
  } catch (e) {
    return errorResponse(e);
  }
}
