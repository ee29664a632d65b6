import { errorResponse, parseBody } from "@/lib/api";
import { getDb, reopenAnnotation } from "@/lib/db";
import { reopenSchema } from "@/lib/schemas/annotations";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** POST {reason}: admin reopens a submitted annotation. */
export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const v = await viewerForRequest(req, "admin");
  if (v instanceof Response) return v;
  const body = await parseBody(req, reopenSchema);
  if (body instanceof Response) return body;
  try {
    await reopenAnnotation(getDb(), v, { annotationId: (await ctx.params).id, reason: body.reason });
    return Response.json({ ok: true });
  } catch (e) {
    return errorResponse(e);
  }
}
