/**
 * Starting, resuming and cancelling attribution runs from the app (issue 24, "every README path
 * working from the app"): the attribution page's New run, Resume and Cancel and POST
 * /api/experiments/attribution.
 * Both go through `enqueueAttributionStudy` (./study.ts) — what `symtrace detect --eval
 * --attribution --background` does — so the run and its jobs are made by the same lib/db
 * function (`startAttributionRun`) and handed to the same workers (the app's embedded ones,
 * `npm run worker`). What the server offers: the attributor registry (lib/attribution
 * `ATTRIBUTORS`), its configured model endpoint (./llm.ts `attributionLlmSettings`: the API key
 * never leaves the server), the Who&When subsets it ships (./sources.ts) and the Who&When cases
 * imported into its database (lib/db/attribution-cases.ts, behind the all-cases blindness gate).
 */
import { ATTRIBUTOR_NAMES, ATTRIBUTORS, attributionCaseFromBundle, type AttributionCase, type AttributorName, type Subset } from "../../attribution";
import type { Viewer } from "../../annotation";
import { AttributionRunError, attributionRunRefusal, cancelAttributionRun, countDbWhoWhenCases, dbWhoWhenBundles, getAttributionRun, type AttributionRunView, type Db, type DbWhoWhenCases } from "../../db";
import type { CancelAttributionBody, ResumeAttributionBody, StartAttributionBody } from "../../schemas/attribution";
import { attributionLlmSettings } from "./llm";
import { whoWhenDatasetDir, whoWhenSources, loadWhoWhenCases, type WhoWhenSource } from "./sources";
import { DEFAULT_ATTRIBUTION_SEED, enqueueAttributionStudy, planFor } from "./study";

/** The model endpoint configured on the server (no API key). */
export interface ServerAttributionEndpoint {
  upstream: string;
  model: string;
  protocol: string;
}

/** What the New run form offers. */
export interface AttributionAppOptions {
  /** The registry's attributors in its order; `disabled` says why one cannot run here (null: it can). */
  attributors: Array<{ name: AttributorName; usesLlm: boolean; groundTruthVariants: boolean; disabled: string | null }>;
  endpoint: ServerAttributionEndpoint | null;
  /** Why there is no endpoint (null when there is one). */
  endpointProblem: string | null;
  /** The Who&When subsets the server ships, with their number of cases (files). */
  subsets: Array<{ subset: Subset; cases: number }>;
  /** Where they were looked for. */
  datasetDir: string;
  /** The Who&When cases imported into the database, per subset, or why the viewer cannot use them. */
  database: DbWhoWhenCases;
  defaultSeed: number;
}

/**
 * The server's endpoint for attribution runs from SYMTRACE_ATTRIBUTION_UPSTREAM / _MODEL /
 * _PROTOCOL (each falling back to SYMTRACE_JUDGE_*), or why there is none.
 */
export function serverAttributionEndpoint(env: NodeJS.ProcessEnv = process.env): { endpoint: ServerAttributionEndpoint | null; problem: string | null } {
  try {
    const s = attributionLlmSettings(env);
    if (s.upstream && s.model) return { endpoint: { upstream: s.upstream, model: s.model, protocol: s.protocol }, problem: null };
    return { endpoint: null, problem: "no model endpoint is configured on the server (SYMTRACE_ATTRIBUTION_UPSTREAM and SYMTRACE_ATTRIBUTION_MODEL, or SYMTRACE_JUDGE_UPSTREAM and SYMTRACE_JUDGE_MODEL)" };
  } catch (e) {
    return { endpoint: null, problem: (e as Error).message };
  }
}

/** The form's choices for `viewer`: attributors (LLM ones disabled with the reason when no endpoint), endpoint, case sources. */
export async function attributionAppOptions(db: Db, viewer: Viewer, env: NodeJS.ProcessEnv = process.env, sources: readonly WhoWhenSource[] = whoWhenSources()): Promise<AttributionAppOptions> {
  const { endpoint, problem } = serverAttributionEndpoint(env);
  return {
    attributors: ATTRIBUTOR_NAMES.map((name) => {
      const a = ATTRIBUTORS[name];
      return { name, usesLlm: a.usesLlm, groundTruthVariants: a.groundTruthVariants, disabled: a.usesLlm && !endpoint ? `needs a model endpoint: ${problem}` : null };
    }),
    endpoint,
    endpointProblem: problem,
    subsets: sources.map((s) => ({ subset: s.subset, cases: s.files.length })),
    datasetDir: whoWhenDatasetDir(),
    database: await countDbWhoWhenCases(db, viewer),
    defaultSeed: DEFAULT_ATTRIBUTION_SEED,
  };
}

/** A started or resumed run: the run and how many of its jobs were handed to the workers. */
export interface AppResumeResult {
  run: AttributionRunView;
  enqueued: number;
}

/** A started run: also its cases per subset and the files that did not import. */
export interface AppStartResult extends AppResumeResult {
  cases: Record<Subset, number>;
  skipped: Array<{ file: string; message: string }>;
}

/** The cases of a start: from the shipped folders, or from the database (bundles that are not attribution cases are skipped with the reason). */
async function casesOf(db: Db, viewer: Viewer, body: StartAttributionBody, sources: readonly WhoWhenSource[]): Promise<{ cases: AttributionCase[]; dirs: string[]; skipped: Array<{ file: string; message: string }> }> {
  const subsets = body.subsets as Subset[];
  if (body.source === "database") {
    const cases: AttributionCase[] = [];
    const skipped: Array<{ file: string; message: string }> = [];
    for (const b of await dbWhoWhenBundles(db, viewer, subsets, body.limit ?? null)) {
      try {
        cases.push(attributionCaseFromBundle(b));
      } catch (e) {
        skipped.push({ file: b.id, message: (e as Error).message });
      }
    }
    return { cases, dirs: ["database:who_and_when"], skipped };
  }
  try {
    return loadWhoWhenCases(sources, subsets, body.limit ?? null);
  } catch (e) {
    throw new AttributionRunError("invalid", (e as Error).message, "subsets");
  }
}

/**
 * Create the run `body.name` (refused when it exists) with the plan of the chosen attributors and
 * ground-truth settings over the first `limit` cases of each chosen subset — of the shipped
 * folders or of the database (`body.source`) — on the server's endpoint, and queue its jobs for
 * the workers. Audited ("attribution.create") with the viewer as actor.
 * @throws AttributionRunError (routes: 400 / 404 / 409 with `at` the body field): an LLM attributor
 *   without an endpoint (`attributors`), a subset not shipped or no case read (`subsets`), any
 *   source while the viewer's all-cases blindness gate is closed (`source`: a run reads every
 *   label), a run of that name (`name`)
 */
export async function startAttributionFromApp(db: Db, viewer: Viewer, body: StartAttributionBody, o: { env?: NodeJS.ProcessEnv; sources?: readonly WhoWhenSource[] } = {}): Promise<AppStartResult> {
  // Every source, not only the database: the shipped folders hold the same reference labels.
  const locked = await attributionRunRefusal(db, viewer);
  if (locked) throw new AttributionRunError("invalid", locked, "source");
  const { endpoint, problem } = serverAttributionEndpoint(o.env);
  const attributors = [...new Set(body.attributors)];
  const needs = attributors.filter((a) => ATTRIBUTORS[a].usesLlm);
  if (needs.length && !endpoint) throw new AttributionRunError("invalid", `${needs.join(", ")} ${needs.length === 1 ? "needs" : "need"} a model endpoint: ${problem}`, "attributors");
  const loaded = await casesOf(db, viewer, body, o.sources ?? whoWhenSources());
  if (!loaded.cases.length) throw new AttributionRunError("invalid", `no Who&When case of ${body.subsets.join(", ")} could be read from the ${body.source === "database" ? "database" : "dataset folders"}`, "subsets");
  const settings = body.groundTruth === "both" ? (["with", "without"] as const) : ([body.groundTruth] as const);
  const q = await enqueueAttributionStudy({
    db,
    name: body.name,
    cases: loaded.cases,
    plan: planFor(attributors, settings),
    endpoint,
    seed: body.seed ?? DEFAULT_ATTRIBUTION_SEED,
    budget: { maxCalls: body.maxCalls ?? null, maxTokens: body.maxTokens ?? null },
    dirs: loaded.dirs,
    expect: "new",
    actorId: viewer.id,
  });
  const count = (s: Subset) => loaded.cases.filter((c) => c.subset === s).length;
  return { ...q, cases: { "Hand-Crafted": count("Hand-Crafted"), "Algorithm-Generated": count("Algorithm-Generated") }, skipped: loaded.skipped };
}

/** Whether a run can be resumed from the app, and if not why (null: it can). */
export function resumeRefusal(run: AttributionRunView): string | null {
  if (run.status === "budget-exhausted" || run.status === "cancelled" || run.progress.error > 0) return null;
  return `run "${run.name}" is ${run.status} with no failed job: only a run stopped at its budget, cancelled, or with failed jobs, can be resumed`;
}

/** Whether a run can be cancelled from the app (running, or stopped at its budget with jobs queued). */
export function canCancel(run: AttributionRunView): boolean {
  return run.status === "running" || (run.status === "budget-exhausted" && run.progress.queued + run.progress.running > 0);
}

/**
 * Cancel the run `body.name` (lib/db cancelAttributionRun, audited with the viewer as actor): no job
 * of it is started any more, running ones finish, queued ones wait for a Resume.
 * @returns the run and whether this call cancelled it (false: already finished or cancelled)
 * @throws AttributionRunError not-found (`name`)
 */
export function cancelAttributionFromApp(db: Db, viewer: Viewer, body: CancelAttributionBody): Promise<{ run: AttributionRunView; cancelled: boolean }> {
  return cancelAttributionRun(db, body.name, { actorId: viewer.id });
}

/**
 * Resume the run `body.name` (stopped at its budget, cancelled, or with failed jobs) — the same
 * run (its model, protocol, seed, plan and cases as stored), with the new caps: failed jobs are
 * queued again, done ones kept, and the queued ones handed to the workers. A cap must leave room beyond what the run has spent. Audited with the viewer as actor.
 * @throws AttributionRunError not-found (`name`), conflict (not stopped at its budget and no failed
 *   job: `name`), invalid (a cap not above the spending: `maxCalls` / `maxTokens`; the viewer's
 *   all-cases blindness gate closed: `name`, a resumed run reads every label as a start does)
 */
export async function resumeAttributionFromApp(db: Db, viewer: Viewer, body: ResumeAttributionBody): Promise<AppResumeResult> {
  const locked = await attributionRunRefusal(db, viewer);
  if (locked) throw new AttributionRunError("invalid", locked, "name");
  const run = await getAttributionRun(db, body.name);
  if (!run) throw new AttributionRunError("not-found", `no attribution run named "${body.name}"`, "name");
  const refused = resumeRefusal(run);
  if (refused) throw new AttributionRunError("conflict", refused, "name");
  const maxCalls = body.maxCalls ?? null;
  const maxTokens = body.maxTokens ?? null;
  if (maxCalls !== null && maxCalls <= run.spent.httpCalls) throw new AttributionRunError("invalid", `maxCalls must be above the ${run.spent.httpCalls} calls the run has spent (or empty: no cap)`, "maxCalls");
  if (maxTokens !== null && maxTokens <= run.spent.tokens) throw new AttributionRunError("invalid", `maxTokens must be above the ${run.spent.tokens} tokens the run has spent (or empty: no cap)`, "maxTokens");
  const p = run.plan;
  return await enqueueAttributionStudy({
    db,
    name: run.name,
    cases: [],
    plan: [],
    endpoint: p.model && p.upstream ? { upstream: p.upstream, model: p.model, protocol: p.protocol } : null,
    seed: p.seed,
    budget: { maxCalls, maxTokens },
    dirs: [],
    expect: "existing",
    actorId: viewer.id,
  });
}
