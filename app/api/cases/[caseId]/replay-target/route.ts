import { replayCaseRoute } from "@/lib/api";
import { exportBundle, getCaseAnnotationsFor } from "@/lib/db";
import { guidanceFromAnnotation } from "@/lib/annotation";
import { replaySettings } from "@/lib/env";
import { resolveTarget, TargetError } from "@/lib/replay";
import { replayModeOf } from "@/lib/services/replay-exec";

export const dynamic = "force-dynamic";

/**
 * GET ?node=<id>: what a replay from this node would do — the boundary the intervention acts on
 * (lib/replay resolveTarget), native replay or transcript continuation, the live endpoint and
 * model from the settings, and guidance prefilled from the final (or the viewer's own) annotation.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await replayCaseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { db } = r;
  const node = new URL(req.url).searchParams.get("node") ?? "";
  const bundle = await exportBundle(db, { caseId: r.caseId });
  if (!bundle) return Response.json({ error: "no such case" }, { status: 404 });
  const settings = replaySettings();
  const mode = replayModeOf(bundle);
  let boundary: { boundaryNodeId: string | null; seq: number | null; rule: string } = { boundaryNodeId: null, seq: null, rule: "" };
  try {
    if (mode === "native") {
      const t = resolveTarget(bundle, node);
      boundary = { boundaryNodeId: t.boundaryNodeId, seq: t.seq, rule: t.rule };
    } else {
      if (!bundle.graph.nodes.some((n) => n.id === node)) throw new TargetError(`node "${node}" is not in this case`);
      boundary = { boundaryNodeId: node, seq: null, rule: "transcript continuation: the recorded conversation up to this node is replayed as one chat and continued live" };
    }
  } catch (e) {
    return Response.json({ error: e instanceof Error ? e.message : String(e) }, { status: 400 });
  }
  const ann = await getCaseAnnotationsFor(db, r.viewer, { caseId: r.caseId });
  const source = ann.final ?? ann.own;
  return Response.json({
    node,
    mode,
    ...boundary,
    upstream: settings.upstream,
    model: settings.model ?? bundle.config.model ?? null,
    toolUpstream: settings.toolUpstream,
    guidance: guidanceFromAnnotation(source, node),
    guidanceFrom: ann.final ? "final annotation" : ann.own ? "your annotation" : null,
  });
}
