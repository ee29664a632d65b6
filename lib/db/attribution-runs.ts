/**
 * Failure-attribution runs in the database (issue 24 item 2: "it runs as jobs on the job layer"):
 * one AttributionRun per study (found by name), its Who&When cases copied in (AttributionRunCase,
 * so a worker on any machine needs no files) and one AttributionJob per (attributor, ground-truth
 * setting, case), run by workers of kind "attribution" (lib/jobs/kinds/attribution.ts).
 *
 *   job:  queued ──claim (lease)──▶ running ──finish──▶ done | error
 *           ▲                         │ lease expired (worker died) ──▶ taken over (claims + 1);
 *           └── release (shutdown) ───┘   after MAX_ATTRIBUTION_JOB_CLAIMS: error
 *         error ──rerun (startAttributionRun)──▶ queued          done: never run again
 *   run:  running ──budget reached (finish)──▶ budget-exhausted (queued jobs stay queued: "not run")
 *           │ no job queued or running ──▶ finished (seen by the CLI's wait and the workers' sweep);
 *           │ a rerun sets the budget again ──▶ running
 *           │ cancel (a user: the page's Cancel, `--cancel`) ──▶ cancelled (running or budget-exhausted
 *           │   only): no job is claimed any more; jobs already running finish and are recorded;
 *           │   queued jobs stay queued ("not run: cancelled"); a cancelled run is never finished by
 *           │   the sweep; a rerun (Resume, the CLI again) ──▶ running, its queued jobs run then
 *
 * Budget: the run's HTTP calls and tokens (`spentCalls` / `spentTokens`, added by each finished job
 * before its result is recorded) against `maxCalls` / `maxTokens`; once reached, no job of
 * the run is claimed any more (the claim requires status running). Jobs already running finish, so
 * a cap can be passed by at most the jobs running when it is reached.
 *
 * Reservation: a run with a `runner` is claimed only by a claim naming that runner (the CLI that
 * runs it in the foreground); ordinary workers (the app's embedded ones, `npm run worker`) and the
 * queue re-sends see only runs with runner null.
 */
import type { AttributionCase, AttributorName, CaseResult, GroundTruthSetting, Subset } from "../attribution";
import { InputError } from "../input-error";
import type { Db } from "./client";
import { claimLease, closeExpired, listClaimable, listClaimableRows, listExpired, renewLease, updateHeld, type LeaseTable } from "./leases";

export const ATTRIBUTION_JOB_STATUSES = ["queued", "running", "done", "error"] as const;
export type AttributionJobStatus = (typeof ATTRIBUTION_JOB_STATUSES)[number];
export const ATTRIBUTION_RUN_STATUSES = ["running", "finished", "budget-exhausted", "cancelled"] as const;
export type AttributionRunStatus = (typeof ATTRIBUTION_RUN_STATUSES)[number];
/** A job whose worker died this many times is recorded as an error instead of being taken over again. */
export const MAX_ATTRIBUTION_JOB_CLAIMS = 3;

/** One (attributor, ground-truth setting) of a run's plan. */
export interface AttributionPlanItem {
  attributor: AttributorName;
  groundTruth: GroundTruthSetting;
}

/** What a run was made with (`planJson`). model/protocol/seed are frozen; upstream is the latest start's. */
export interface AttributionRunPlan {
  /** null: baselines only (no endpoint). */
  model: string | null;
  upstream: string | null;
  protocol: string;
  seed: number;
  /** Table order: attributor × setting as first planned, later additions after. */
  plan: AttributionPlanItem[];
  /** Where the cases were read from (informative). */
  dirs: string[];
}

export interface AttributionRunView {
  id: string;
  name: string;
  status: AttributionRunStatus;
  plan: AttributionRunPlan;
  budget: { maxCalls: number | null; maxTokens: number | null };
  /** HTTP calls the endpoint answered for this run and their tokens (cached calls not counted). */
  spent: { httpCalls: number; tokens: number };
  runner: string | null;
  /** Jobs by status; `total` = all of them. */
  progress: { total: number; queued: number; running: number; done: number; error: number };
  createdAt: Date;
  updatedAt: Date;
}

/** A refused start (a run of that name made with another model, protocol or seed; bad name). */
export class AttributionRunError extends InputError {
  override name = "AttributionRunError";
}

/** Run names: what the page's ?run= and the CLI's --run accept. */
export const ATTRIBUTION_RUN_NAME = /^[A-Za-z0-9._-]{1,200}$/;

type RunRow = NonNullable<Awaited<ReturnType<Db["attributionRun"]["findUnique"]>>>;
type Counts = Record<AttributionJobStatus, number>;

function toView(r: RunRow, c: Partial<Counts> = {}): AttributionRunView {
  const n = (s: AttributionJobStatus) => c[s] ?? 0;
  return {
    id: r.id,
    name: r.name,
    status: r.status as AttributionRunStatus,
    plan: JSON.parse(r.planJson) as AttributionRunPlan,
    budget: { maxCalls: r.maxCalls, maxTokens: r.maxTokens },
    spent: { httpCalls: r.spentCalls, tokens: r.spentTokens },
    runner: r.runner,
    progress: { total: n("queued") + n("running") + n("done") + n("error"), queued: n("queued"), running: n("running"), done: n("done"), error: n("error") },
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const overBudget = (r: { maxCalls: number | null; maxTokens: number | null; spentCalls: number; spentTokens: number }) =>
  (r.maxCalls != null && r.spentCalls >= r.maxCalls) || (r.maxTokens != null && r.spentTokens >= r.maxTokens);

async function countsOf(db: Db, runIds: string[]): Promise<Map<string, Partial<Counts>>> {
  const out = new Map<string, Partial<Counts>>();
  if (!runIds.length) return out;
  const g = await db.attributionJob.groupBy({ by: ["runId", "status"], where: { runId: { in: runIds } }, _count: { _all: true } });
  for (const x of g) {
    const m = out.get(x.runId) ?? {};
    m[x.status as AttributionJobStatus] = x._count._all;
    out.set(x.runId, m);
  }
  return out;
}

export interface StartAttributionRunInput {
  name: string;
  model: string | null;
  upstream: string | null;
  protocol: string;
  seed: number;
  plan: readonly AttributionPlanItem[];
  dirs: readonly string[];
  /** The cases of this start (added to the run when new; a case already in it is kept as stored). */
  cases: readonly Pick<AttributionCase, "caseId" | "subset" | "reference" | "bundle">[];
  /** Caps of the whole run from now on (null: none). */
  budget: { maxCalls: number | null; maxTokens: number | null };
  /** Reserve the run for this runner (the foreground CLI), or null: any worker. */
  runner: string | null;
  /**
   * "new": refuse when a run of that name exists (the app's New run form); "existing": refuse when
   * none does (its Resume); absent: create or resume (the CLI).
   */
  expect?: "new" | "existing";
  /** Who started it (the audit event's actor; null: the CLI). */
  actorId?: string | null;
}

/**
 * Create the run `name`, or resume it: cases and jobs of this start that are missing are added
 * (plan × cases), error jobs are queued again (retried), done jobs stay done; the budget and the
 * runner are set to this start's; the status becomes budget-exhausted when the spent calls/tokens
 * already reach the new caps, else running (finished at once when no job is left).
 * @returns the run, and of this start's jobs: `total`, `resumed` (already done), `retried` (error → queued)
 * @throws AttributionRunError invalid (name) | conflict (the run exists with another model, protocol or seed; or
 *   exists when `expect` is "new") | not-found (no such run when `expect` is "existing"); `at` "name" for the last two
 */
export async function startAttributionRun(db: Db, input: StartAttributionRunInput): Promise<{ run: AttributionRunView; created: boolean; jobs: { total: number; resumed: number; retried: number } }> {
  if (!ATTRIBUTION_RUN_NAME.test(input.name)) throw new AttributionRunError("invalid", `run name must be 1–200 letters, digits, . _ -; got ${JSON.stringify(input.name)}`, "--run");
  const r = await db.$transaction(
    async (tx) => {
      const old = await tx.attributionRun.findUnique({ where: { name: input.name } });
      if (old && input.expect === "new") throw new AttributionRunError("conflict", `a run named "${input.name}" already exists: resume it or choose another name`, "name");
      if (!old && input.expect === "existing") throw new AttributionRunError("not-found", `no attribution run named "${input.name}"`, "name");
      let plan: AttributionRunPlan;
      if (old) {
        const was = JSON.parse(old.planJson) as AttributionRunPlan;
        for (const k of ["model", "protocol", "seed"] as const) {
          if (was[k] !== input[k]) throw new AttributionRunError("conflict", `run "${input.name}" was made with ${k} ${JSON.stringify(was[k])}, not ${JSON.stringify(input[k])}: choose another run name`, `--${k}`);
        }
        const items = [...was.plan];
        for (const p of input.plan) if (!items.some((q) => q.attributor === p.attributor && q.groundTruth === p.groundTruth)) items.push(p);
        plan = { ...was, upstream: input.upstream, plan: items, dirs: [...new Set([...was.dirs, ...input.dirs])] };
      } else plan = { model: input.model, upstream: input.upstream, protocol: input.protocol, seed: input.seed, plan: [...input.plan], dirs: [...input.dirs] };
      const data = { planJson: JSON.stringify(plan), maxCalls: input.budget.maxCalls, maxTokens: input.budget.maxTokens, runner: input.runner };
      const run = old ? await tx.attributionRun.update({ where: { id: old.id }, data }) : await tx.attributionRun.create({ data: { name: input.name, ...data } });
      // Cases: those not in the run yet, after the stored ones.
      const have = new Map((await tx.attributionRunCase.findMany({ where: { runId: run.id }, select: { id: true, caseId: true } })).map((c) => [c.caseId, c.id]));
      const fresh = input.cases.filter((c, i) => !have.has(c.caseId) && input.cases.findIndex((d) => d.caseId === c.caseId) === i);
      if (fresh.length) {
        await tx.attributionRunCase.createMany({
          data: fresh.map((c, i) => ({ runId: run.id, caseId: c.caseId, subset: c.subset, referenceJson: JSON.stringify(c.reference), bundleJson: JSON.stringify(c.bundle), position: have.size + i })),
        });
        for (const c of await tx.attributionRunCase.findMany({ where: { runId: run.id, caseId: { in: fresh.map((f) => f.caseId) } }, select: { id: true, caseId: true } })) have.set(c.caseId, c.id);
      }
      // Jobs: plan × cases of this start; the missing ones are created.
      const key = (a: string, g: string, rc: string) => `${a}\u0000${g}\u0000${rc}`;
      const existing = await tx.attributionJob.findMany({ where: { runId: run.id }, select: { attributor: true, groundTruth: true, runCaseId: true, status: true } });
      const status = new Map(existing.map((j) => [key(j.attributor, j.groundTruth, j.runCaseId), j.status]));
      const wanted = input.plan.flatMap((p) => [...new Set(input.cases.map((c) => c.caseId))].map((id) => ({ p, rc: have.get(id)! })));
      const missing = wanted.filter((w) => !status.has(key(w.p.attributor, w.p.groundTruth, w.rc)));
      if (missing.length) await tx.attributionJob.createMany({ data: missing.map((w) => ({ runId: run.id, runCaseId: w.rc, attributor: w.p.attributor, groundTruth: w.p.groundTruth })) });
      const resumed = wanted.filter((w) => status.get(key(w.p.attributor, w.p.groundTruth, w.rc)) === "done").length;
      const retried = await tx.attributionJob.updateMany({ where: { runId: run.id, status: "error" }, data: { status: "queued", resultJson: null, error: null, workerId: null, leaseUntil: null, claims: 0, finishedAt: null } });
      await tx.attributionRun.update({ where: { id: run.id }, data: { status: overBudget(run) ? "budget-exhausted" : "running" } });
      await tx.auditEvent.create({ data: { actorId: input.actorId ?? null, action: old ? "attribution.resume" : "attribution.create", entityType: "attribution-run", entityId: run.id, dataJson: JSON.stringify({ name: input.name, jobs: wanted.length, created: missing.length, retried: retried.count, budget: input.budget }) } });
      return { id: run.id, created: !old, jobs: { total: wanted.length, resumed, retried: retried.count } };
    },
    { timeout: 300_000, maxWait: 60_000 },
  );
  await completeAttributionRunIfDone(db, r.id);
  return { run: (await getAttributionRunById(db, r.id))!, created: r.created, jobs: r.jobs };
}

/** One run by id, or null. */
export async function getAttributionRunById(db: Db, id: string): Promise<AttributionRunView | null> {
  const r = await db.attributionRun.findUnique({ where: { id } });
  return r ? toView(r, (await countsOf(db, [r.id])).get(r.id)) : null;
}

/** One run by name, or null (also for a name that is not a run name). */
export async function getAttributionRun(db: Db, name: string): Promise<AttributionRunView | null> {
  if (!ATTRIBUTION_RUN_NAME.test(name)) return null;
  const r = await db.attributionRun.findUnique({ where: { name } });
  return r ? toView(r, (await countsOf(db, [r.id])).get(r.id)) : null;
}

/** Every run, by name. */
export async function listAttributionRuns(db: Db): Promise<AttributionRunView[]> {
  const rows = await db.attributionRun.findMany({ orderBy: { name: "asc" } });
  const c = await countsOf(db, rows.map((r) => r.id));
  return rows.map((r) => toView(r, c.get(r.id)));
}

/**
 * Every job of a run as a lib/attribution CaseResult, in plan order then case order (the table's
 * order): done and error jobs as recorded; queued and running ones as "not-run" (error says why).
 */
export async function attributionRunResults(db: Db, runId: string): Promise<CaseResult[]> {
  const run = await db.attributionRun.findUnique({ where: { id: runId }, select: { planJson: true, status: true } });
  if (!run) return [];
  const plan = (JSON.parse(run.planJson) as AttributionRunPlan).plan;
  const jobs = await db.attributionJob.findMany({
    where: { runId },
    select: { attributor: true, groundTruth: true, status: true, resultJson: true, error: true, runCase: { select: { caseId: true, subset: true, referenceJson: true, position: true } } },
  });
  const idx = (a: string, g: string) => {
    const i = plan.findIndex((p) => p.attributor === a && p.groundTruth === g);
    return i < 0 ? plan.length : i;
  };
  jobs.sort((a, b) => idx(a.attributor, a.groundTruth) - idx(b.attributor, b.groundTruth) || a.runCase.position - b.runCase.position);
  return jobs.map((j): CaseResult => {
    if (j.resultJson) return JSON.parse(j.resultJson) as CaseResult;
    const base = { attributor: j.attributor as AttributorName, groundTruth: j.groundTruth as GroundTruthSetting, caseId: j.runCase.caseId, subset: j.runCase.subset as Subset, reference: JSON.parse(j.runCase.referenceJson) as CaseResult["reference"] };
    if (j.status === "error") return { ...base, status: "error", attribution: null, error: j.error ?? "error" };
    return { ...base, status: "not-run", attribution: null, error: j.status === "running" ? "running" : run.status === "budget-exhausted" ? "budget reached" : run.status === "cancelled" ? "cancelled" : "queued" };
  });
}

/**
 * Cancel the run `name` (a user's stop: the page's Cancel, `symtrace detect --eval --attribution
 * --cancel`): running or budget-exhausted → cancelled, one conditional update, audited
 * ("attribution.cancel"). No job of it is claimed any more (the claim requires status running);
 * jobs already running finish and are recorded (at most the workers' concurrency); queued jobs stay
 * queued and are run by a later start of the run (Resume), which sets it running again.
 * @returns the run after the call and whether this call cancelled it (false: it was already finished or cancelled)
 * @throws AttributionRunError not-found (`at` "name") when there is no run of that name
 */
export async function cancelAttributionRun(db: Db, name: string, o: { actorId?: string | null } = {}): Promise<{ run: AttributionRunView; cancelled: boolean }> {
  const run = await getAttributionRun(db, name);
  if (!run) throw new AttributionRunError("not-found", `no attribution run named ${JSON.stringify(name)}`, "name");
  const u = await db.attributionRun.updateMany({ where: { id: run.id, status: { in: ["running", "budget-exhausted"] } }, data: { status: "cancelled" } });
  if (u.count === 1) {
    await db.auditEvent.create({ data: { actorId: o.actorId ?? null, action: "attribution.cancel", entityType: "attribution-run", entityId: run.id, dataJson: JSON.stringify({ name: run.name, was: run.status, progress: run.progress }) } });
  }
  return { run: (await getAttributionRunById(db, run.id))!, cancelled: u.count === 1 };
}

// ------------------------------------------------------------------ claim / lease / finish

/** AttributionJob as a lease table (lib/db/leases.ts): an expiry lease, taken over after a crash; only jobs of running runs (not budget-exhausted) are claimable. */
export const ATTRIBUTION_JOB_LEASE: LeaseTable = {
  model: "attributionJob",
  owner: "workerId",
  lease: { column: "leaseUntil", kind: "expires" },
  takeover: { maxClaims: MAX_ATTRIBUTION_JOB_CLAIMS },
  claimable: () => ({ run: { status: "running" } }),
  onClaim: (now) => ({ startedAt: now }),
};

/** A claimed job: what the handler needs to run it. */
export interface ClaimedAttributionJob {
  id: string;
  runId: string;
  runCaseId: string;
  attributor: AttributorName;
  groundTruth: GroundTruthSetting;
  claims: number;
}

/** Which jobs a worker may claim: of runs reserved for `runner` (null: unreserved runs), of one run when given. */
export interface AttributionClaimScope {
  runner?: string | null;
  runId?: string;
}
const scopeOf = (o: AttributionClaimScope) => ({ run: { runner: o.runner ?? null }, ...(o.runId ? { runId: o.runId } : {}) });

const JOB_SELECT = { id: true, runId: true, runCaseId: true, attributor: true, groundTruth: true, claims: true } as const;
const toClaimed = (j: Record<string, unknown>): ClaimedAttributionJob => ({
  id: j.id as string,
  runId: j.runId as string,
  runCaseId: j.runCaseId as string,
  attributor: j.attributor as AttributorName,
  groundTruth: j.groundTruth as GroundTruthSetting,
  claims: j.claims as number,
});

/**
 * Claim job `id` for `owner` with a lease of `leaseMs`: from queued, or from running with an
 * expired lease (takeover, claims < MAX_ATTRIBUTION_JOB_CLAIMS); exactly one concurrent caller wins.
 * @returns the claimed job, or null
 */
export async function claimAttributionJob(db: Db, id: string, owner: string, leaseMs: number, o: AttributionClaimScope = {}): Promise<ClaimedAttributionJob | null> {
  if (!(await claimLease(db, ATTRIBUTION_JOB_LEASE, id, owner, leaseMs, { scope: scopeOf(o) }))) return null;
  const j = await db.attributionJob.findUnique({ where: { id }, select: JOB_SELECT });
  return j ? toClaimed(j) : null;
}

/**
 * A claimer for one worker: it claims the oldest claimable job in scope from a batch of
 * candidates read at once (one read per `batch` claims instead of one per claim, which halves the
 * queries of a 1,840-job run); a candidate another worker took meanwhile fails its conditional
 * claim and is skipped; an empty batch is read again.
 * @returns claimNext(db, owner, leaseMs): the claimed job, or null when nothing in scope is claimable
 */
export function attributionJobClaimer(o: AttributionClaimScope & { batch?: number } = {}): (db: Db, owner: string, leaseMs: number) => Promise<ClaimedAttributionJob | null> {
  let batch: ClaimedAttributionJob[] = [];
  return async (db, owner, leaseMs) => {
    for (let round = 0; round < 3; round++) {
      if (!batch.length) {
        batch = (await listClaimableRows(db, ATTRIBUTION_JOB_LEASE, { leaseMs, take: o.batch ?? 32, scope: scopeOf(o), select: JOB_SELECT })).map(toClaimed);
        if (!batch.length) return null;
      }
      while (batch.length) {
        const j = batch.shift()!;
        if (await claimLease(db, ATTRIBUTION_JOB_LEASE, j.id, owner, leaseMs, { scope: scopeOf(o) })) return { ...j, claims: j.claims + 1 };
      }
    }
    return null;
  };
}

/** Claim the oldest claimable job in scope, or null. */
export function claimNextAttributionJob(db: Db, owner: string, leaseMs: number, o: AttributionClaimScope = {}): Promise<ClaimedAttributionJob | null> {
  return attributionJobClaimer({ ...o, batch: 8 })(db, owner, leaseMs);
}

/** Ids of claimable jobs of unreserved runs (of run `o.runId` when given), oldest first (enqueueing, re-sending queue jobs). */
export async function listClaimableAttributionJobIds(db: Db, o: { runId?: string; olderThanMs?: number; take?: number } = {}): Promise<string[]> {
  return listClaimable(db, ATTRIBUTION_JOB_LEASE, { leaseMs: 0, take: o.take ?? 500, olderThanMs: o.olderThanMs, scope: scopeOf({ runId: o.runId }) });
}

/** Extend the lease of a running job held by `owner`. @returns false when the lease was lost */
export function renewAttributionJobLease(db: Db, id: string, owner: string, leaseMs: number): Promise<boolean> {
  return renewLease(db, ATTRIBUTION_JOB_LEASE, id, owner, leaseMs);
}

/** Give a held job back (shutdown): queued again. @returns true when released */
export function releaseAttributionJob(db: Db, id: string, owner: string): Promise<boolean> {
  return updateHeld(db, ATTRIBUTION_JOB_LEASE, id, owner, { status: "queued", workerId: null, leaseUntil: null });
}

/** The case of a job: its bundle (JSON text), subset and label. @throws Error when the row is gone */
export async function getAttributionRunCase(db: Db, runCaseId: string): Promise<{ caseId: string; subset: Subset; reference: CaseResult["reference"]; bundleJson: string }> {
  const c = await db.attributionRunCase.findUnique({ where: { id: runCaseId }, select: { caseId: true, subset: true, referenceJson: true, bundleJson: true } });
  if (!c) throw new Error(`attribution case ${runCaseId} no longer exists`);
  return { caseId: c.caseId, subset: c.subset as Subset, reference: JSON.parse(c.referenceJson) as CaseResult["reference"], bundleJson: c.bundleJson };
}

/** The plan of a run (model, upstream, protocol, seed, …). @throws Error when the run is gone */
export async function getAttributionRunPlan(db: Db, runId: string): Promise<AttributionRunPlan> {
  const r = await db.attributionRun.findUnique({ where: { id: runId }, select: { planJson: true } });
  if (!r) throw new Error(`attribution run ${runId} no longer exists`);
  return JSON.parse(r.planJson) as AttributionRunPlan;
}

/**
 * Record a job's result — only by the holder of its lease (a worker that lost it records nothing).
 * Its HTTP calls and tokens are added to the run's spending first, whether or not the result is
 * recorded (the calls were made; a job run again after a crash finds them in the call cache and
 * spends nothing), so no transaction is needed; when that reaches a cap the run becomes
 * budget-exhausted (no further claim). The run turns finished through
 * {@link completeAttributionRunIfDone} (the foreground CLI's wait, every worker's sweep).
 * @param spent HTTP calls the endpoint answered for this job and their tokens (error jobs too)
 * @returns recorded, and whether the run's budget is now exhausted
 */
export async function finishAttributionJob(db: Db, job: Pick<ClaimedAttributionJob, "id" | "runId">, owner: string, result: CaseResult, spent: { httpCalls: number; tokens: number }): Promise<{ recorded: boolean; budgetExhausted: boolean }> {
  let budgetExhausted = false;
  if (spent.httpCalls || spent.tokens) {
    const run = await db.attributionRun.update({ where: { id: job.runId }, data: { spentCalls: { increment: spent.httpCalls }, spentTokens: { increment: spent.tokens } } });
    if (overBudget(run)) {
      budgetExhausted = true;
      await db.attributionRun.updateMany({ where: { id: job.runId, status: "running" }, data: { status: "budget-exhausted" } });
    }
  }
  const recorded = await updateHeld(db, ATTRIBUTION_JOB_LEASE, job.id, owner, {
    status: result.status === "done" ? "done" : "error",
    resultJson: JSON.stringify(result),
    error: result.status === "done" ? null : result.error,
    httpCalls: spent.httpCalls,
    tokens: spent.tokens,
    leaseUntil: null,
    finishedAt: new Date(),
  });
  return { recorded, budgetExhausted };
}

/**
 * running | budget-exhausted → finished when no job of the run is queued or running (one
 * conditional update; called by the foreground CLI while it waits, by the sweep and at start).
 * @returns true when this call finished it
 */
export async function completeAttributionRunIfDone(db: Db, runId: string): Promise<boolean> {
  const u = await db.attributionRun.updateMany({ where: { id: runId, status: { in: ["running", "budget-exhausted"] }, jobs: { none: { status: { in: ["queued", "running"] } } } }, data: { status: "finished" } });
  return u.count === 1;
}

/**
 * What a foreground run waits on: the run finished first when nothing is queued or running
 * ({@link completeAttributionRunIfDone}), then its status and how many of its jobs run now.
 * @returns null when the run is gone
 */
export async function attributionRunState(db: Db, runId: string): Promise<{ status: AttributionRunStatus; running: number } | null> {
  await completeAttributionRunIfDone(db, runId);
  const r = await db.attributionRun.findUnique({ where: { id: runId }, select: { status: true } });
  if (!r) return null;
  return { status: r.status as AttributionRunStatus, running: await db.attributionJob.count({ where: { runId, status: "running" } }) };
}

/**
 * The sweep: running jobs whose lease expired after MAX_ATTRIBUTION_JOB_CLAIMS claims become
 * errors (retried by the next start of the run; fewer claims: left to be taken over), then runs
 * with nothing queued or running are finished.
 * @returns ids of the jobs closed
 */
export async function sweepAttributionJobs(db: Db, now: Date = new Date()): Promise<string[]> {
  const rows = await listExpired(db, ATTRIBUTION_JOB_LEASE, { leaseMs: 0, now, where: { claims: { gte: MAX_ATTRIBUTION_JOB_CLAIMS } }, select: { runId: true } });
  const done: string[] = [];
  for (const j of rows) {
    const ok = await closeExpired(db, ATTRIBUTION_JOB_LEASE, j, { status: "error", error: `its worker stopped reporting ${j.claims} times (last: ${j.owner ?? "?"}); not taken over again`, leaseUntil: null, finishedAt: now });
    if (ok) done.push(j.id);
  }
  await db.attributionRun.updateMany({ where: { status: { in: ["running", "budget-exhausted"] }, jobs: { none: { status: { in: ["queued", "running"] } } } }, data: { status: "finished" } });
  return done;
}
