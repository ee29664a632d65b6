import { replayRunRoute } from "@/lib/api";

export const dynamic = "force-dynamic";

/** GET: one replay run (status, progress, divergence, result). */
export async function GET(req: Request, ctx: { params: Promise<{ runId: string }> }) {
  const r = await replayRunRoute(req, ctx.params);
  if (r instanceof Response) return r;
  return Response.json({ run: r.run });
}
