import { getDb, listQueue } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: the viewer's own queue (assignments with progress). */
export async function GET(req: Request) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  return Response.json({ items: await listQueue(getDb(), v) });
}
