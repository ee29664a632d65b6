import { errorResponse, parseBody } from "@/lib/api";
import { assignCases, getDb, listCases } from "@/lib/db";
import { assignSchema } from "@/lib/schemas/annotations";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST {caseIds | filter, perCase, annotatorIds?, adjudicatorId?}: assign in bulk (admin). */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "admin");
  if (v instanceof Response) return v;
  const body = await parseBody(req, assignSchema);
  if (body instanceof Response) return body;
  const db = getDb();
  try {
    const caseIds = body.caseIds ?? (await listCases(db, { ...body.filter, take: 100_000 })).cases.map((c) => c.id);
    const res = await assignCases(db, v, { caseIds, perCase: body.perCase, annotatorIds: body.annotatorIds, adjudicatorId: body.adjudicatorId });
    return Response.json({ assigned: res });
  } catch (e) {
    return errorResponse(e);
  }
}
