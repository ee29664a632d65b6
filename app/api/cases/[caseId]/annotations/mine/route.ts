import { caseRoute, errorResponse, parseBody } from "@/lib/api";
import { getDb, getOwnAnnotation, saveDraft } from "@/lib/db";
import { saveAnnotationSchema } from "@/lib/schemas/annotations";

export const dynamic = "force-dynamic";

/** GET ?kind=initial|final: the viewer's own annotation of this case (or null). */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const kind = new URL(req.url).searchParams.get("kind") === "final" ? "final" : "initial";
  return Response.json({ annotation: await getOwnAnnotation(getDb(), v, { caseId, kind }) });
}

/** PUT {kind, version, fields}: save the draft (optimistic version; 409 with the current copy on conflict). */
export async function PUT(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params, "annotator", "adjudicator");
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const body = await parseBody(req, saveAnnotationSchema);
  if (body instanceof Response) return body;
  try {
    return Response.json({ annotation: await saveDraft(getDb(), v, { caseId, ...body }) });
  } catch (e) {
    return errorResponse(e);
  }
}
