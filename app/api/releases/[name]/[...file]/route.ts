import { readReleaseFile } from "@/lib/services/release-store";
import { blindnessGate, getDb } from "@/lib/db";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * GET /api/releases/<release>/<path in the release>: one file of a release written by the
 * Releases page (researcher or admin), as an attachment. Only manifest.json, SHA256SUMS and the
 * files the manifest lists are served; anything else is 404.
 */
export async function GET(req: Request, ctx: { params: Promise<{ name: string; file: string[] }> }) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  // a release holds everyone's annotations: closed while the viewer has open annotations of their own
  if (!(await blindnessGate(getDb(), v, { allCases: true })).references) return Response.json({ error: "hidden while you have unsubmitted annotations of your own: a release holds everyone's annotations" }, { status: 403 });
  const { name, file } = await ctx.params;
  const rel = file.map((s) => decodeURIComponent(s)).join("/");
  const f = readReleaseFile(decodeURIComponent(name), rel);
  if (!f) return Response.json({ error: `no file ${rel} in release ${name}` }, { status: 404 });
  const base = rel.split("/").pop() ?? "file";
  return new Response(new Uint8Array(f.bytes), {
    headers: { "content-type": f.contentType, "content-disposition": `attachment; filename="${base.replace(/["\\\r\n]/g, "_")}"`, "x-content-type-options": "nosniff" },
  });
}
