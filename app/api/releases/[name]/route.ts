import { Readable } from "node:stream";
import { releaseArchive } from "@/lib/services/release-store";
import { blindnessGate, getDb } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * GET /api/releases/<release>.tar.gz: the whole release folder as one gzip-compressed tar
 * (researcher or admin), streamed from disk. Unpack it and run `symtrace release import <folder>`.
 * Anything not ending in .tar.gz, or an unknown release, is 404.
 */
export async function GET(req: Request, ctx: { params: Promise<{ name: string }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  // a release holds everyone's annotations: closed while the viewer has open annotations of their own
  if (!(await blindnessGate(getDb(), v, { allCases: true })).references) return Response.json({ error: "hidden while you have unsubmitted annotations of your own: a release holds everyone's annotations" }, { status: 403 });
  const raw = decodeURIComponent((await ctx.params).name);
  const name = raw.endsWith(".tar.gz") ? raw.slice(0, -".tar.gz".length) : null;
  const stream = name ? releaseArchive(name) : null;
  if (!name || !stream) return Response.json({ error: `no release archive ${raw} (ask for /api/releases/<release>.tar.gz)` }, { status: 404 });
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
    headers: { "content-type": "application/gzip", "content-disposition": `attachment; filename="${name}.tar.gz"`, "x-content-type-options": "nosniff" },
  });
}
