import { caseRoute } from "@/lib/api";
import { getDb } from "@/lib/db";
import { SymptomsUnavailable, windowedSymptomNode, windowedSymptomsFor } from "@/lib/services/symptoms-case";

export const dynamic = "force-dynamic";

/**
 * GET /api/cases/<bundleId>/symptoms: the symptom layer of a large (windowed) case, rules only
 * (lib/services windowedSymptomsFor): `{mode, threshold, anchor, anchorNode, anchorRow,
 * anchorNodeRow, ids, rows, cf, nodeCount}`; with `?node=<id>` that node's rules and evidence as a
 * SymptomLayer of one node. 403 for a viewer who may not see detector output (blind annotation),
 * 413 for a case over SYMTRACE_SYMPTOMS_MAX_NODES, 404 for an unknown case; `{error}` each.
 */
export async function GET(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const { viewer: v, caseId } = r;
  const db = getDb();
  const node = new URL(req.url).searchParams.get("node");
  try {
    return Response.json(node ? await windowedSymptomNode(db, v, caseId, node) : await windowedSymptomsFor(db, v, caseId));
  } catch (e) {
    if (e instanceof SymptomsUnavailable) return Response.json({ error: e.message }, { status: e.status });
    throw e;
  }
}
