import { parseBody, refusePooledView } from "@/lib/api";
import { ExperimentError, getDb } from "@/lib/db";
import { byDataset } from "@/lib/experiments/judgeable";
import { checkExperimentSchema } from "@/lib/schemas/experiments";
import { configuredEvaluators, configuredJudges, judgeCases, loadJudgeableCases } from "@/lib/services/experiments/judgeable";
import { resolveCaseSelection } from "@/lib/services/experiments/run";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

const MAX_PREVIEW = 500;

/**
 * POST {cases: {bundleIds} | {filter}}: the New experiment form's preview (issue 22 item 2) —
 * for each configured evaluator, which of the selected cases it can judge and why not, per dataset,
 * and the reproduction judges on offer with it. Researchers, admins. 400 {error, at} bad input or
 * more than 500 cases.
 */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  const body = await parseBody(req, checkExperimentSchema);
  if (body instanceof Response) return body;
  try {
    const db = getDb();
    const sel = "bundleIds" in body.cases ? { kind: "list" as const, bundleIds: body.cases.bundleIds } : { kind: "filter" as const, filter: body.cases.filter };
    const ids = await resolveCaseSelection(db, sel);
    if (ids.length > MAX_PREVIEW) return Response.json({ error: `${ids.length} cases: the preview takes at most ${MAX_PREVIEW} (narrow the filter or set a limit)`, at: "$.cases" }, { status: 400 });
    const cases = await loadJudgeableCases(db, ids);
    const evaluators = [];
    for (const ev of configuredEvaluators()) {
      const rows = await judgeCases(db, ev, cases);
      evaluators.push({
        name: ev.name,
        description: ev.description,
        source: ev.source,
        judges: configuredJudges(ev).map((j) => ({ name: j.name, description: j.description })),
        datasets: byDataset(rows),
        cases: rows.map((r) => ({ bundleId: r.bundleId, dataset: r.dataset, reason: r.reason })),
      });
    }
    return Response.json({ caseCount: cases.length, evaluators });
  } catch (e) {
    if (e instanceof ExperimentError) return Response.json({ error: e.message, at: e.at }, { status: e.code === "not-found" ? 404 : 400 });
    console.error(e);
    return Response.json({ error: e instanceof Error ? e.message.split("\n")[0] : "internal error" }, { status: 500 });
  }
}
