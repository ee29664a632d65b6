import { replayCaseRoute } from "@/lib/api";
import { replaySettings } from "@/lib/env";
import { describeReplayTarget } from "@/lib/services/replay-start";
import { registryForRoute } from "@/lib/services/runners";

export const dynamic = "force-dynamic";

/**
 * GET ?node=<id>: what a replay from this node would do — native with a registered runner (its
 * name, exact command and working directory) or transcript continuation (with the reason, e.g. the
 * bundle's runner is not registered), the boundary the intervention acts on (lib/replay
 * resolveTarget), the live endpoint and model from the settings, and guidance prefilled from the
 * final (or the viewer's own) annotation. Nothing runs here.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await replayCaseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const registry = registryForRoute();
  if (registry instanceof Response) return registry;
  const node = new URL(req.url).searchParams.get("node") ?? "";
  const { status, body } = await describeReplayTarget(r.db, { viewer: r.viewer, caseId: r.caseId, node, registry, settings: replaySettings() });
  return Response.json(body, { status });
}
