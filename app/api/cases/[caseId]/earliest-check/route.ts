import { z } from "zod";
import { caseRoute, errorResponse, parseBody } from "@/lib/api";
import { getDb } from "@/lib/db";
import { caseEarliestCheck } from "@/lib/services/symptoms-case";
import { EarliestCheckError } from "@/lib/symptoms";
import { CATEGORIES } from "@/lib/annotation";

export const dynamic = "force-dynamic";

const bodySchema = z.object({
  node: z.string().min(1, "choose a failure node"),
  categories: z.array(z.enum(CATEGORIES)).max(4),
  evidence: z.array(z.object({ nodeId: z.string().min(1), quote: z.string() })).max(200).default([]),
});

/**
 * POST {node, categories, evidence} → `{warnings, detector}`: the earliest-node warnings for that
 * chosen node (issue 12 item 5) — evidence quotes downstream of it, and, for a viewer who may see
 * the detector layer (lib/db blindnessGate: after submitting, or an assisted assignment), rules of
 * the chosen categories on its ancestors (issue 20 item 2). `detector` says whether rule-based
 * checks ran. Never the detection result itself. POST because evidence quotes can be long.
 */
export async function POST(req: Request, ctx: { params: Promise<{ caseId: string }> }) {
  const r = await caseRoute(req, ctx.params);
  if (r instanceof Response) return r;
  const body = await parseBody(req, bodySchema);
  if (body instanceof Response) return body;
  try {
    const checked = await caseEarliestCheck(getDb(), r.viewer, r.caseId, body);
    if (!checked) return Response.json({ error: "no such case" }, { status: 404 });
    return Response.json(checked);
  } catch (e) {
    if (e instanceof EarliestCheckError) return Response.json({ error: e.message, fieldErrors: [{ field: "node", message: e.message }] }, { status: 400 });
    return errorResponse(e);
  }
}
