import { caseRoute, errorResponse, parseBody } from "@/lib/api";
import { getDb, submitInitial } from "@/lib/db";
import { submitAnnotationSchema } from "@/lib/schemas/annotations";

export const dynamic = "force-dynamic";

/** POST {version}: submit the viewer's initial annotation (400 with field errors when invalid). */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params, "annotator");
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const body = await parseBody(req, submitAnnotationSchema);
  if (body instanceof Response) return body;
  try {
    return Response.json({ annotation: await submitInitial(getDb(), v, { caseId, version: body.version }) });
  } catch (e) {
    return errorResponse(e);
  }
}
