import { caseRoute, errorResponse, parseBody } from "@/lib/api";
import { getDb, getOwnAnnotation, submitInitial } from "@/lib/db";
import { warningsForFields } from "@/lib/services/symptoms-case";
import { submitAnnotationSchema } from "@/lib/schemas/annotations";

export const dynamic = "force-dynamic";

/**
 * POST {version}: submit the viewer's initial annotation (400 with field errors when invalid).
 * The earliest-node warnings for the submitted tuple are recorded with it.
 */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params, "annotator");
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const body = await parseBody(req, submitAnnotationSchema);
  if (body instanceof Response) return body;
  try {
    const db = getDb();
    const own = await getOwnAnnotation(db, v, { caseId, kind: "initial" });
    const warningsShown = own ? await warningsForFields(db, v, caseId, own) : undefined;
    return Response.json({ annotation: await submitInitial(db, v, { caseId, version: body.version, warningsShown }) });
  } catch (e) {
    return errorResponse(e);
  }
}
