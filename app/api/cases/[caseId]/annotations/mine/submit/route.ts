import { caseFromParam, errorResponse, parseBody } from "@/lib/api";
import { getDb, submitInitial } from "@/lib/db";
import { submitAnnotationSchema } from "@/lib/schemas/annotations";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST {version}: submit the viewer's initial annotation (400 with field errors when invalid). */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const v = await viewerForRequest(req, "annotator");
  if (v instanceof Response) return v;
  const caseId = await caseFromParam((await ctx.params).caseId);
  if (caseId instanceof Response) return caseId;
  const body = await parseBody(req, submitAnnotationSchema);
  if (body instanceof Response) return body;
  try {
    return Response.json({ annotation: await submitInitial(getDb(), v, { caseId, version: body.version }) });
  } catch (e) {
    return errorResponse(e);
  }
}
