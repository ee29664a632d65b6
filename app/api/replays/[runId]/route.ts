import { getDb, getRun } from "@/lib/db";
import { mayReplay } from "@/lib/services/replay-access";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: one replay run (status, progress, divergence, result). */
export async function GET(req: Request, ctx: { params: Promise<{ runId: string }> }) {
  const v = await viewerForRequest(req);
  if (v instanceof Response) return v;
  const db = getDb();
  const run = await getRun(db, (await ctx.params).runId);
  if (!run || !(await mayReplay(db, v, run.sourceCaseId))) return Response.json({ error: "no such replay" }, { status: 404 });
  return Response.json({ run });
}
