/**
 * Job kind "attribution" (issue 24 item 2): one AttributionJob row (lib/db/attribution-runs.ts) =
 * one attributor of lib/attribution on one Who&When case in one ground-truth setting. An expiry
 * lease; a worker that dies stops renewing and any other worker takes the job over once the lease
 * expired (claims + 1; the third death → error, retried by the next start of the run). Only the
 * lease holder records, so a job is counted once.
 *
 * Handler: the run's plan (model, protocol, seed; cached per run for a minute) and the case (its
 * stored bundle → attributionCaseFromBundle; a few hundred kept in memory; one that cannot be
 * read is an error result) → `ATTRIBUTORS[a].attribute` through
 * the model client (injected, or made from the plan with this process's API key and call cache:
 * lib/services/attribution/llm.ts, so a cached call is never asked again) wrapped to count the
 * HTTP calls and tokens of this job → finishAttributionJob: the CaseResult (done, or error with the
 * endpoint's message) and the spending added to the run's, which stops the run at its budget; the
 * job that leaves nothing queued or running finishes the run (completeAttributionRunIfDone).
 * A handler aborted (shutdown, lost lease) records nothing; the job is released or taken over.
 */
import { ATTRIBUTORS, attributionCaseFromBundle, type AttributionCase, type AttributionLlm, type CaseResult } from "../../attribution";
import type { ReplayBundle } from "../../bundle";
import type { Db } from "../../db/client";
import {
  ATTRIBUTION_JOB_LEASE,
  attributionJobClaimer,
  claimAttributionJob,
  completeAttributionRunIfDone,
  finishAttributionJob,
  getAttributionRunCase,
  getAttributionRunPlan,
  listClaimableAttributionJobIds,
  releaseAttributionJob,
  renewAttributionJobLease,
  sweepAttributionJobs,
  type AttributionRunPlan,
  type ClaimedAttributionJob,
} from "../../db/attribution-runs";
import { listHeld } from "../../db/leases";
import { JOB_QUEUES } from "../backends";
import { errorText, type JobContext, type JobKind } from "../job-worker";

export const ATTRIBUTION_QUEUE = JOB_QUEUES.attribution.name;
export const DEFAULT_ATTRIBUTION_LEASE_MS = 30_000;
/** Parsed cases kept per process (a run has at most a few hundred; 184 for Who&When). */
const CASE_CACHE_SIZE = 512;
/** A run's plan is read again after this long (a new start may point it at another upstream). */
const PLAN_TTL_MS = 60_000;

export interface AttributionKindOptions {
  /** The model client of every job (the CLI's, whose cache statistics it prints); default: one per run from its plan (lib/services/attribution/llm.ts). */
  llm?: AttributionLlm | null;
  /** Only jobs of this run (the CLI). */
  runId?: string;
  /** The runner this worker works for: only runs reserved for it (`AttributionRun.runner`); default null = unreserved runs. */
  runner?: string | null;
}

/** An AttributionLlm that counts what the endpoint answered (not the cache): the job's spending. */
export function countingLlm(llm: AttributionLlm): AttributionLlm & { spent: { httpCalls: number; tokens: number } } {
  const spent = { httpCalls: 0, tokens: 0 };
  return {
    model: llm.model,
    spent,
    async complete(request) {
      const reply = await llm.complete(request);
      if (!reply.cached) {
        spent.httpCalls++;
        spent.tokens += reply.usage.prompt + reply.usage.completion;
      }
      return reply;
    },
  };
}

/** What a job reads of its case: the label (always) and the parsed case, or why it cannot be read. */
interface LoadedCase {
  base: Pick<CaseResult, "caseId" | "subset" | "reference">;
  case: AttributionCase | null;
  error: string | null;
}

/** The attribution job kind. */
export function attributionKind(o: AttributionKindOptions = {}): JobKind<ClaimedAttributionJob> {
  const scope = { runner: o.runner ?? null, runId: o.runId };
  const claimNext = attributionJobClaimer(scope);
  const plans = new Map<string, { at: number; p: Promise<{ plan: AttributionRunPlan; llm: AttributionLlm | null }> }>();
  const cases = new Map<string, LoadedCase>();

  /** The run's plan and its model client (per run, read again after PLAN_TTL_MS: a restart may change the upstream). */
  const runOf = (db: Db, runId: string) => {
    const hit = plans.get(runId);
    if (hit && Date.now() - hit.at < PLAN_TTL_MS) return hit.p;
    const p = (async () => {
      const plan = await getAttributionRunPlan(db, runId);
      if (o.llm !== undefined) return { plan, llm: o.llm };
      if (!plan.model || !plan.upstream) return { plan, llm: null };
      const { attributionLlmSettings, createAttributionLlm, parseAttributionProtocol } = await import("../../services/attribution/llm");
      const s = attributionLlmSettings();
      return { plan, llm: createAttributionLlm({ upstream: plan.upstream, model: plan.model, apiKey: s.apiKey, protocol: parseAttributionProtocol(plan.protocol, "the run's protocol"), cacheDir: s.cacheDir }) };
    })();
    p.catch(() => plans.delete(runId));
    plans.set(runId, { at: Date.now(), p });
    return p;
  };
  /** The case (stored rows never change: kept for CASE_CACHE_SIZE cases). */
  const caseOf = async (db: Db, runCaseId: string): Promise<LoadedCase> => {
    const hit = cases.get(runCaseId);
    if (hit) return hit;
    const row = await getAttributionRunCase(db, runCaseId);
    const base = { caseId: row.caseId, subset: row.subset, reference: row.reference };
    let loaded: LoadedCase;
    try {
      loaded = { base, case: attributionCaseFromBundle(JSON.parse(row.bundleJson) as ReplayBundle), error: null };
    } catch (e) {
      loaded = { base, case: null, error: `the stored case cannot be read: ${errorText(e)}` };
    }
    if (cases.size >= CASE_CACHE_SIZE) cases.delete(cases.keys().next().value as string);
    cases.set(runCaseId, loaded);
    return loaded;
  };

  return {
    name: "attribution",
    label: "attribution",
    released: "released",
    queue: JOB_QUEUES.attribution,
    leaseMs: DEFAULT_ATTRIBUTION_LEASE_MS,
    cancel: "soft",
    claim: (db, id, owner, leaseMs) => claimAttributionJob(db, id, owner, leaseMs, scope),
    claimNext: (db, owner, leaseMs) => claimNext(db, owner, leaseMs),
    claimable: (db, c) => listClaimableAttributionJobIds(db, { olderThanMs: c.olderThanMs }),
    renew: async (db, id, owner, leaseMs) => ({ owned: await renewAttributionJobLease(db, id, owner, leaseMs), cancel: false }),
    release: (db, id, owner) => releaseAttributionJob(db, id, owner),
    sweep: (db) => sweepAttributionJobs(db),
    held: (db, owner) => listHeld(db, ATTRIBUTION_JOB_LEASE, owner),
    run: (j, ctx) => runJob(j, ctx, runOf, caseOf),
  };
}

async function runJob(
  j: ClaimedAttributionJob,
  ctx: JobContext,
  runOf: (db: Db, runId: string) => Promise<{ plan: AttributionRunPlan; llm: AttributionLlm | null }>,
  caseOf: (db: Db, runCaseId: string) => Promise<LoadedCase>,
): Promise<void> {
  const spec = ATTRIBUTORS[j.attributor];
  let result: CaseResult;
  let spent = { httpCalls: 0, tokens: 0 };
  const c = await caseOf(ctx.db, j.runCaseId);
  const base = { attributor: j.attributor, groundTruth: j.groundTruth, ...c.base };
  try {
    if (!spec) throw new Error(`unknown attributor ${j.attributor}`);
    if (!c.case) throw new Error(c.error ?? "no case");
    const { plan, llm } = await runOf(ctx.db, j.runId);
    if (spec.usesLlm && !llm) throw new Error(`${j.attributor} needs an endpoint and the run has none`);
    const counted = llm ? countingLlm(llm) : null;
    try {
      const a = await spec.attribute(c.case, { llm: counted ?? undefined, withGroundTruth: j.groundTruth === "with", seed: plan.seed });
      result = { ...base, status: "done", attribution: a, error: null };
    } finally {
      if (counted) spent = counted.spent;
    }
  } catch (e) {
    result = { ...base, status: "error", attribution: null, error: errorText(e) };
  }
  // Shutdown or a lost lease: record nothing (released, or another worker has it).
  if (ctx.signal.aborted || ctx.lost()) return;
  await ctx.settle();
  const r = await finishAttributionJob(ctx.db, j, ctx.workerId, result, spent);
  if (!r.recorded) return;
  // The last job of the run finishes it now (else the next sweep would, up to lease/2 later).
  await completeAttributionRunIfDone(ctx.db, j.runId);
  ctx.count(result.status);
  if (result.status === "error") ctx.log(`attribution ${j.id} ${j.attributor}/${j.groundTruth}/${c.base.caseId}: ${result.error} [${ctx.workerId}]`);
  if (r.budgetExhausted) ctx.count("budget-exhausted");
}
