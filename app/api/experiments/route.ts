import { parseBody } from "@/lib/api";
import { ExperimentError, getDb, listExperiments } from "@/lib/db";
import { ensureEmbeddedExperimentWorker } from "@/lib/jobs";
import { createExperimentSchema } from "@/lib/schemas/experiments";
import { experimentSettingsFromEnv, startExperiment } from "@/lib/services/experiments/run";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/** GET: experiments, newest first, with status and live progress (researchers, admins). */
export async function GET(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  return Response.json({ experiments: await listExperiments(getDb()) });
}

/**
 * POST {name?, methods, attempts (k), seed?, maxCalls?, maxTokens?, cases: {bundleIds} | {filter}}:
 * create an experiment with the server's frozen settings (endpoint, model, evaluator, judge) and
 * queue its attempts. 201 {experiment}; 400 {error, at} for bad input; 503 when no endpoint is set.
 */
export async function POST(req: Request) {
  const v = await viewerForRequest(req, "researcher", "admin");
  if (v instanceof Response) return v;
  const body = await parseBody(req, createExperimentSchema);
  if (body instanceof Response) return body;
  const settings = experimentSettingsFromEnv({ attempts: body.attempts, seed: body.seed, maxCalls: body.maxCalls, maxTokens: body.maxTokens });
  if ("error" in settings) return Response.json({ error: settings.error }, { status: 503 });
  try {
    await ensureEmbeddedExperimentWorker();
    const cases = "bundleIds" in body.cases ? { kind: "list" as const, bundleIds: body.cases.bundleIds } : { kind: "filter" as const, filter: body.cases.filter };
    const experiment = await startExperiment(getDb(), { name: body.name, settings, methods: body.methods, cases, createdById: v.id });
    return Response.json({ experiment }, { status: 201 });
  } catch (e) {
    if (e instanceof ExperimentError) return Response.json({ error: e.message, at: e.at }, { status: e.code === "not-found" ? 404 : 400 });
    console.error(e);
    return Response.json({ error: "internal error" }, { status: 500 });
  }
}
