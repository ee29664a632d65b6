import { parseBody, refusePooledView } from "@/lib/api";
import { ExperimentError, getDb, listExperiments } from "@/lib/db";
import { ensureEmbeddedWorkers } from "@/lib/jobs";
import { createExperimentSchema } from "@/lib/schemas/experiments";
import { resolveCaseSelection, experimentSettingsFromEnv, startExperiment } from "@/lib/services/experiments/run";
import { chooseEvaluation } from "@/lib/services/experiments/judgeable";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: experiments, newest first, with status and live progress (researchers, admins). */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  return Response.json({ experiments: await listExperiments(getDb()) });
}

/**
 * POST {name?, methods, attempts (k), seed?, maxCalls?, maxTokens?, evaluator?, judge?, cases: {bundleIds} | {filter}}:
 * create an experiment with the server's frozen settings (endpoint, model) and the configured
 * evaluator and reproduction judge chosen by name, and queue its attempts. 201 {experiment};
 * 400 {error, at} for bad input, including a case the evaluator cannot judge (`at: "$.cases"`,
 * the message names the cases and the reasons) or no evaluator configured; 503 when no endpoint is set.
 */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const hidden = await refusePooledView(getDb(), v, "experiments");
  if (hidden) return hidden;
  const body = await parseBody(req, createExperimentSchema);
  if (body instanceof Response) return body;
  const settings = experimentSettingsFromEnv({ attempts: body.attempts, seed: body.seed, maxCalls: body.maxCalls, maxTokens: body.maxTokens });
  if ("error" in settings) return Response.json({ error: settings.error }, { status: 503 });
  try {
    await ensureEmbeddedWorkers();
    const cases = "bundleIds" in body.cases ? { kind: "list" as const, bundleIds: body.cases.bundleIds } : { kind: "filter" as const, filter: body.cases.filter };
    // Refused when a case cannot be judged by the chosen evaluator (issue 22 item 2): 400 naming the cases and why.
    const judged = await chooseEvaluation(getDb(), await resolveCaseSelection(getDb(), cases), { evaluator: body.evaluator, judge: body.judge });
    const experiment = await startExperiment(getDb(), { name: body.name, settings: { ...settings, ...judged }, methods: body.methods, cases, createdById: v.id });
    return Response.json({ experiment }, { status: 201 });
  } catch (e) {
    if (e instanceof ExperimentError) return Response.json({ error: e.message, at: e.at }, { status: e.code === "not-found" ? 404 : 400 });
    console.error(e);
    return Response.json({ error: "internal error" }, { status: 500 });
  }
}
