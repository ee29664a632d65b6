import { caseRoute, errorResponse, parseBody } from "@/lib/api";
import { finalizeCase, getDb } from "@/lib/db";
import { warningsForFields } from "@/lib/services/symptoms-case";
import { finalizeSchema } from "@/lib/schemas/annotations";

export const dynamic = "force-dynamic";

/**
 * POST {fields}: the adjudicator's final annotation; 409 when another adjudicator finalized first.
 * The earliest-node warnings for the final tuple are recorded with it.
 */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params, "adjudicator");
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const body = await parseBody(req, finalizeSchema);
  if (body instanceof Response) return body;
  try {
    const db = getDb();
    const warningsShown = await warningsForFields(db, v, caseId, body.fields);
    return Response.json({ annotation: await finalizeCase(db, v, { caseId, fields: body.fields, warningsShown }) });
  } catch (e) {
    return errorResponse(e);
  }
}
