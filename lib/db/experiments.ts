/**
 * Repair experiments in the database (issue 13 items 1 and 4): an Experiment (frozen settings,
 * methods, k, seed, budget), its frozen case set (ExperimentCase) and one ExperimentAttempt row per
 * (experiment, case, method, attempt) — unique on that tuple, so an attempt exists, runs and is
 * counted at most once.
 *
 * Attempt status machine (rows are the single source of truth; pg-boss only delivers ids):
 *
 *   queued ──claim (lease)──▶ running ──finish──▶ passed | failed | error | skipped | cancelled
 *     ▲                         │  lease expired (worker died) ──▶ claimable again (claims + 1;
 *     └──── release (shutdown) ─┘                 after MAX_ATTEMPT_CLAIMS: error)
 *   queued ──cancel / budget stop──▶ cancelled (skipReason says why; never run)
 *
 * Experiment: queued ──first claim──▶ running ──no queued/running attempt left──▶ finished |
 * cancelled | budget-exhausted (the stopReason decides). A final experiment is never changed: a
 * finish is accepted only from the lease owner of a running attempt, and a final experiment has none.
 *
 * Task-level methods (rerun, self-reflection, critic) chain: the row of attempt a+1 is created in
 * the same transaction that records attempt a as failed/error (a ≤ k−1, experiment not stopping).
 * Node-level methods get all k rows at creation.
 *
 * Budget: the calls (calls + auxCalls) and tokens of final attempts; checked before a claimed
 * attempt runs and after each finish. Attempts already running when the cap is reached finish and
 * count (overshoot ≤ the number of concurrently running attempts).
 */
import type { Db } from "./client";
import { claimLease, claimNextLease, closeExpired, listClaimable, listExpired, renewLease, updateHeld, type LeaseTable } from "./leases";
import { METHOD_NAMES, TASK_LEVEL_METHODS, methodDescriptor } from "../experiments/methods";
import type { AttemptOutcome, CaseReference, ExperimentSettings } from "../experiments/settings";
import { checkMarsSettings, checkMethodNames, checkSettings, emptyStatusCounts, ExperimentError, FINAL_ATTEMPT_STATUSES, FINAL_EXPERIMENT_STATUSES, type AttemptRowStatus, type ExperimentStatus, type StatusCounts } from "../experiments/lifecycle";
import { CATEGORIES } from "../annotation/protocol";

/** The lifecycle rules live in lib/experiments (pure); lib/db callers keep their names. */
export * from "../experiments/lifecycle";
/** An attempt whose worker died this many times is recorded as an error instead of being run again. */
export const MAX_ATTEMPT_CLAIMS = 3;

/** How the case set was chosen (frozen with the experiment). */
export type CaseSetSpec = { kind: "list"; bundleIds: string[] } | { kind: "filter"; filter: ExperimentCaseFilter; bundleIds: string[] };

/** `--from-db` filter: source dataset, MAS, benchmark; only failed cases unless `includePassed`. */
export interface ExperimentCaseFilter {
  dataset?: string | null;
  mas?: string | null;
  benchmark?: string | null;
  /** Default false: only cases whose recorded outcome is not passed (failed or unknown). */
  includePassed?: boolean;
  /** At most this many cases (by bundle id order). */
  limit?: number | null;
}

export interface CreateExperimentInput {
  name?: string;
  settings: ExperimentSettings;
  methods: string[];
  /** Database ids of the cases (in order). */
  caseIds: string[];
  caseSet: { kind: "list" } | { kind: "filter"; filter: ExperimentCaseFilter };
  createdById?: string | null;
  /**
   * Who may claim its attempts: omitted/null = any worker; a name = only claims that pass the same
   * `runner` (a test harness deciding outcomes itself; no app worker can race it).
   */
  runner?: string | null;
}


export interface ExperimentProgress {
  /** Per method: attempts by status, and `planned` (node level: cases × k; task level: at most that). */
  byMethod: Record<string, StatusCounts & { planned: number }>;
  total: StatusCounts;
  /** Attempts in a final status / rows. */
  done: number;
  rows: number;
  /** Budget used by final attempts: calls (MAS + aux) and tokens. */
  used: { calls: number; tokens: number };
}

export interface ExperimentView {
  id: string;
  name: string;
  status: ExperimentStatus;
  stopReason: string | null;
  cancelRequested: boolean;
  settings: ExperimentSettings;
  caseSet: CaseSetSpec;
  methods: string[];
  attempts: number;
  seed: number;
  budget: { maxCalls: number | null; maxTokens: number | null };
  createdBy: { id: string; name: string; email: string } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  caseCount: number;
  progress: ExperimentProgress;
}

export interface ExperimentCaseView {
  id: string;
  idx: number;
  caseId: string | null;
  bundleId: string;
  mas: string;
  benchmark: string | null;
  task: string;
  primaryCategory: string | null;
  reference: (CaseReference & { source: string }) | null;
}

export interface ExperimentAttemptView {
  id: string;
  experimentId: string;
  experimentCaseId: string;
  caseBundleId: string;
  mas: string;
  primaryCategory: string | null;
  method: string;
  attempt: number;
  status: AttemptRowStatus;
  passed: boolean | null;
  reproduced: boolean | null;
  anchorNodeId: string | null;
  guidance: string | null;
  bundleId: string | null;
  calls: number;
  auxCalls: number;
  tokens: { prompt: number; completion: number; total: number };
  /** Of tokens.total: the method's own LLM calls (critic; MARS selector + judge). */
  auxTokens: number;
  /** Whether the attempt stored an artifact (MARS: the repair tree; read it with getAttemptArtifact). */
  hasArtifact: boolean;
  masMs: number;
  error: string | null;
  skipReason: string | null;
  judgeReason: string | null;
  final: unknown;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  claims: number;
  progress: { phase?: string; liveCalls?: number };
  startedAt: Date | null;
  finishedAt: Date | null;
}

function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text == null || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

const isTaskLevel = (m: string) => TASK_LEVEL_METHODS.includes(m);
const asCategory = (v: unknown): CaseReference["primaryCategory"] | null => (typeof v === "string" && (CATEGORIES as readonly string[]).includes(v) ? (v as CaseReference["primaryCategory"]) : null);

// ------------------------------------------------------------------ validation

/** Read an attempt's stored artifact (MARS: the repair tree `{kind: "mars-tree", ...}`), or null. */
export async function getAttemptArtifact(db: Db, attemptId: string): Promise<unknown> {
  const r = await db.experimentAttempt.findUnique({ where: { id: attemptId }, select: { artifactJson: true } });
  return parseJson<unknown>(r?.artifactJson ?? null, null);
}

/**
 * Check method names against the known methods (lib/experiments `checkMethodNames`).
 * @throws ExperimentError "invalid" at `$.methods[i]`
 */
export function checkMethods(methods: readonly string[]): string[] {
  return checkMethodNames(methods, METHOD_NAMES);
}

// ------------------------------------------------------------------ case set

/**
 * Database ids of the cases a `--from-db` filter selects, by bundle id. Without `dataset`, replay
 * results and experiment attempts are left out (they are products, not sources).
 */
export async function findExperimentCases(db: Db, f: ExperimentCaseFilter): Promise<Array<{ id: string; bundleId: string }>> {
  const where: Record<string, unknown> = {
    ...(f.dataset ? { sourceDataset: f.dataset } : { sourceDataset: { notIn: ["replay", "experiment"] } }),
    ...(f.mas ? { mas: f.mas } : {}),
    ...(f.benchmark ? { benchmark: f.benchmark } : {}),
    ...(f.includePassed ? {} : { NOT: { outcomePassed: true } }),
  };
  return db.case.findMany({ where, select: { id: true, bundleId: true }, orderBy: { bundleId: "asc" }, ...(f.limit ? { take: f.limit } : {}) });
}

/**
 * The reference of a case, frozen into the experiment: the final annotation's node, primary
 * category and categories; else the first dataset reference label with a node and a C1–C4
 * category in `extra.primaryCategory` (or `extra.category`); else null. A final annotation's
 * proposed correction (issue 14 item 3) is frozen with it as `correction` (read by the `correction` method).
 */
async function caseReference(db: Db, caseId: string, finalAnnotationId: string | null): Promise<(CaseReference & { source: string; correction?: string }) | null> {
  if (finalAnnotationId) {
    const a = await db.annotation.findUnique({ where: { id: finalAnnotationId }, select: { nodeId: true, primary: true, categories: true, correction: true } });
    const primary = asCategory(a?.primary);
    // The proposed correction (issue 14) is frozen with the reference: the `correction` method substitutes it.
    if (a?.nodeId && primary) return { nodeId: a.nodeId, primaryCategory: primary, categories: a.categories.split(",").filter(Boolean), source: "final annotation", ...(a.correction?.trim() ? { correction: a.correction } : {}) };
  }
  const labels = await db.referenceLabel.findMany({ where: { caseId, nodeId: { not: null } }, orderBy: { idx: "asc" } });
  for (const l of labels) {
    const extra = parseJson<Record<string, unknown>>(l.extraJson, {});
    const primary = asCategory(extra.primaryCategory) ?? asCategory(extra.category);
    if (!primary || !l.nodeId) continue;
    const cats = Array.isArray(extra.categories) ? extra.categories.filter((c): c is string => !!asCategory(c)) : [];
    return { nodeId: l.nodeId, primaryCategory: primary, categories: cats.length ? cats : [primary], source: `reference label (${l.source}/${l.annotator})` };
  }
  return null;
}

// ------------------------------------------------------------------ create

/**
 * Create an experiment: settings, methods and the case set are frozen (each case's bundle id,
 * MAS, benchmark, task and reference are copied), with the first attempt rows — node-level
 * methods attempts 1..k, task-level methods attempt 1 — all `queued`, in one transaction, plus an
 * AuditEvent "experiment.create". Only rows: lib/jobs `enqueueExperiment` hands them to workers.
 * @returns the experiment view
 * @throws ExperimentError "invalid" (settings, methods, empty case set), "not-found" (a case id)
 */
export async function createExperiment(db: Db, input: CreateExperimentInput): Promise<ExperimentView> {
  const settings = checkSettings(input.settings);
  // The `mars` arm's own budget is frozen resolved (defaults filled) so the page and every export show it.
  if (input.methods.some((m) => methodDescriptor(m)?.settings === "mars")) settings.mars = checkMarsSettings(settings.mars ?? null);
  const methods = checkMethods(input.methods);
  if (!Array.isArray(input.caseIds) || input.caseIds.length === 0) throw new ExperimentError("invalid", "the case set is empty: give at least one case", "$.cases");
  if (new Set(input.caseIds).size !== input.caseIds.length) throw new ExperimentError("invalid", "the case set names a case twice", "$.cases");
  const rows = await db.case.findMany({
    where: { id: { in: input.caseIds } },
    select: { id: true, bundleId: true, mas: true, benchmark: true, taskPrompt: true, finalAnnotationId: true, headerJson: true },
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const frozen: Array<{ caseId: string; bundleId: string; mas: string; benchmark: string | null; task: string; reference: (CaseReference & { source: string }) | null }> = [];
  for (const [i, id] of input.caseIds.entries()) {
    const c = byId.get(id);
    if (!c) throw new ExperimentError("not-found", `$.cases[${i}]: no case with id "${id}"`, `$.cases[${i}]`);
    frozen.push({ caseId: c.id, bundleId: c.bundleId, mas: c.mas ?? "unknown", benchmark: c.benchmark, task: c.taskPrompt, reference: await caseReference(db, c.id, c.finalAnnotationId) });
  }
  const bundleIds = frozen.map((c) => c.bundleId);
  const caseSet: CaseSetSpec = input.caseSet.kind === "filter" ? { kind: "filter", filter: input.caseSet.filter, bundleIds } : { kind: "list", bundleIds };
  const id = await db.$transaction(
    async (tx) => {
      const e = await tx.experiment.create({
        data: {
          name: input.name ?? "",
          settingsJson: JSON.stringify(settings),
          caseSetJson: JSON.stringify(caseSet),
          methodsJson: JSON.stringify(methods),
          attempts: settings.attempts,
          seed: settings.seed,
          maxCalls: settings.budget.maxCalls,
          maxTokens: settings.budget.maxTokens,
          createdById: input.createdById ?? null,
          runner: input.runner ?? null,
        },
        select: { id: true },
      });
      for (const [idx, c] of frozen.entries()) {
        const ec = await tx.experimentCase.create({
          data: {
            experimentId: e.id,
            idx,
            caseId: c.caseId,
            bundleId: c.bundleId,
            mas: c.mas,
            benchmark: c.benchmark,
            task: c.task,
            primaryCategory: c.reference?.primaryCategory ?? null,
            referenceJson: c.reference ? JSON.stringify(c.reference) : null,
          },
          select: { id: true },
        });
        const data = methods.flatMap((method) => {
          const n = isTaskLevel(method) ? 1 : settings.attempts;
          return Array.from({ length: n }, (_, a) => ({ experimentId: e.id, experimentCaseId: ec.id, method, attempt: a + 1 }));
        });
        await tx.experimentAttempt.createMany({ data });
      }
      await tx.auditEvent.create({
        data: {
          actorId: input.createdById ?? null,
          action: "experiment.create",
          entityType: "experiment",
          entityId: e.id,
          dataJson: JSON.stringify({ cases: frozen.length, methods, attempts: settings.attempts, seed: settings.seed, budget: settings.budget, upstream: settings.upstream, model: settings.model }),
        },
      });
      return e.id;
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  return (await getExperiment(db, id)) as ExperimentView;
}

// ------------------------------------------------------------------ read

/** Attempt counts per method and status, and the budget used by final attempts. */
export async function getExperimentProgress(db: Db, experimentId: string): Promise<ExperimentProgress> {
  const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { methodsJson: true, attempts: true, _count: { select: { cases: true } } } });
  const methods = parseJson<string[]>(e?.methodsJson, []);
  const groups = await db.experimentAttempt.groupBy({ by: ["method", "status"], where: { experimentId }, _count: { _all: true } });
  const used = await budgetUsage(db, experimentId);
  const byMethod: ExperimentProgress["byMethod"] = {};
  for (const m of methods) byMethod[m] = { ...emptyStatusCounts(), planned: (e?._count.cases ?? 0) * (e?.attempts ?? 0) };
  const total = emptyStatusCounts();
  let rows = 0;
  let done = 0;
  for (const g of groups) {
    const s = g.status as AttemptRowStatus;
    byMethod[g.method] ??= { ...emptyStatusCounts(), planned: 0 };
    byMethod[g.method][s] = (byMethod[g.method][s] ?? 0) + g._count._all;
    total[s] = (total[s] ?? 0) + g._count._all;
    rows += g._count._all;
    if (FINAL_ATTEMPT_STATUSES.includes(s)) done += g._count._all;
  }
  return { byMethod, total, done, rows, used };
}

/** Calls (calls + auxCalls) and tokens of the final attempts of an experiment. */
export async function budgetUsage(db: Db, experimentId: string): Promise<{ calls: number; tokens: number }> {
  const s = await db.experimentAttempt.aggregate({
    where: { experimentId, status: { in: [...FINAL_ATTEMPT_STATUSES] } },
    _sum: { calls: true, auxCalls: true, tokens: true },
  });
  return { calls: (s._sum.calls ?? 0) + (s._sum.auxCalls ?? 0), tokens: s._sum.tokens ?? 0 };
}

type ExperimentRow = NonNullable<Awaited<ReturnType<Db["experiment"]["findUnique"]>>> & {
  createdBy: { id: string; name: string; email: string } | null;
  _count: { cases: number };
};

function toExperimentView(e: ExperimentRow, progress: ExperimentProgress): ExperimentView {
  return {
    id: e.id,
    name: e.name,
    status: e.status as ExperimentStatus,
    stopReason: e.stopReason,
    cancelRequested: e.cancelRequested,
    settings: parseJson<ExperimentSettings>(e.settingsJson, {} as ExperimentSettings),
    caseSet: parseJson<CaseSetSpec>(e.caseSetJson, { kind: "list", bundleIds: [] }),
    methods: parseJson<string[]>(e.methodsJson, []),
    attempts: e.attempts,
    seed: e.seed,
    budget: { maxCalls: e.maxCalls, maxTokens: e.maxTokens },
    createdBy: e.createdBy,
    createdAt: e.createdAt,
    startedAt: e.startedAt,
    finishedAt: e.finishedAt,
    caseCount: e._count.cases,
    progress,
  };
}

const experimentInclude = { createdBy: { select: { id: true, name: true, email: true } }, _count: { select: { cases: true } } } as const;

/** One experiment with its frozen settings and live progress, or null. */
export async function getExperiment(db: Db, experimentId: string): Promise<ExperimentView | null> {
  const e = await db.experiment.findUnique({ where: { id: experimentId }, include: experimentInclude });
  if (!e) return null;
  return toExperimentView(e, await getExperimentProgress(db, experimentId));
}

/** Experiments, newest first, with progress. */
export async function listExperiments(db: Db, o: { take?: number } = {}): Promise<ExperimentView[]> {
  const rows = await db.experiment.findMany({ include: experimentInclude, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: o.take ?? 100 });
  return Promise.all(rows.map(async (e) => toExperimentView(e, await getExperimentProgress(db, e.id))));
}

/** The frozen case set, in order. */
export async function listExperimentCases(db: Db, experimentId: string): Promise<ExperimentCaseView[]> {
  const rows = await db.experimentCase.findMany({ where: { experimentId }, orderBy: { idx: "asc" } });
  return rows.map((c) => ({
    id: c.id,
    idx: c.idx,
    caseId: c.caseId,
    bundleId: c.bundleId,
    mas: c.mas,
    benchmark: c.benchmark,
    task: c.task,
    primaryCategory: c.primaryCategory,
    reference: parseJson(c.referenceJson, null),
  }));
}

type AttemptRow = NonNullable<Awaited<ReturnType<Db["experimentAttempt"]["findUnique"]>>>;
type AttemptRowWithCase = AttemptRow & { experimentCase: { bundleId: string; mas: string; primaryCategory: string | null; idx: number } };

function toAttemptView(r: AttemptRowWithCase): ExperimentAttemptView {
  return {
    id: r.id,
    experimentId: r.experimentId,
    experimentCaseId: r.experimentCaseId,
    caseBundleId: r.experimentCase.bundleId,
    mas: r.experimentCase.mas,
    primaryCategory: r.experimentCase.primaryCategory,
    method: r.method,
    attempt: r.attempt,
    status: r.status as AttemptRowStatus,
    passed: r.passed,
    reproduced: r.reproduced,
    anchorNodeId: r.anchorNodeId,
    guidance: r.guidance,
    bundleId: r.bundleId,
    calls: r.calls,
    auxCalls: r.auxCalls,
    tokens: { prompt: r.promptTokens, completion: r.completionTokens, total: r.tokens },
    auxTokens: r.auxTokens,
    hasArtifact: r.artifactJson !== null,
    masMs: r.masMs,
    error: r.error,
    skipReason: r.skipReason,
    judgeReason: r.judgeReason,
    final: parseJson(r.finalJson, null),
    leaseOwner: r.leaseOwner,
    leaseExpiresAt: r.leaseExpiresAt,
    claims: r.claims,
    progress: parseJson(r.progressJson, {}),
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

const attemptInclude = { experimentCase: { select: { bundleId: true, mas: true, primaryCategory: true, idx: true } } } as const;

/**
 * Attempts of an experiment (case order, method, attempt), optionally filtered — the page's
 * "click a cell to the attempts behind it".
 */
export async function listExperimentAttempts(
  db: Db,
  experimentId: string,
  f: { method?: string | null; mas?: string | null; primaryCategory?: string | null; status?: AttemptRowStatus; caseBundleId?: string } = {},
): Promise<ExperimentAttemptView[]> {
  // "all" does not filter; category "none" = cases without a primary category (lib/experiments NO_CATEGORY)
  const mas = f.mas && f.mas !== "all" ? f.mas : null;
  const category = f.primaryCategory && f.primaryCategory !== "all" ? f.primaryCategory : null;
  const method = f.method && f.method !== "all" ? f.method : null;
  const rows = await db.experimentAttempt.findMany({
    where: {
      experimentId,
      ...(method ? { method } : {}),
      ...(f.status ? { status: f.status } : {}),
      ...(mas || category || f.caseBundleId
        ? { experimentCase: { ...(mas ? { mas } : {}), ...(category ? { primaryCategory: category === "none" ? null : category } : {}), ...(f.caseBundleId ? { bundleId: f.caseBundleId } : {}) } }
        : {}),
    },
    include: attemptInclude,
  });
  return (rows as AttemptRowWithCase[])
    .sort((a, b) => a.experimentCase.idx - b.experimentCase.idx || a.method.localeCompare(b.method) || a.attempt - b.attempt)
    .map(toAttemptView);
}

/** One attempt, or null. */
export async function getExperimentAttempt(db: Db, attemptId: string): Promise<ExperimentAttemptView | null> {
  const r = await db.experimentAttempt.findUnique({ where: { id: attemptId }, include: attemptInclude });
  return r ? toAttemptView(r as AttemptRowWithCase) : null;
}

// ------------------------------------------------------------------ claim / lease / finish

/** The row a worker works from. */
export type ClaimedAttempt = AttemptRow;

/** ExperimentAttempt as a lease table (lib/db/leases.ts): an expiry lease, taken over after a crash (claims < MAX_ATTEMPT_CLAIMS); nothing of a stopping or final experiment is claimed. */
export const ATTEMPT_LEASE: LeaseTable = {
  model: "experimentAttempt",
  owner: "leaseOwner",
  lease: { column: "leaseExpiresAt", kind: "expires" },
  takeover: { maxClaims: MAX_ATTEMPT_CLAIMS },
  claimable: () => ({ experiment: { stopReason: null, status: { in: ["queued", "running"] } } }),
  onClaim: (now) => ({ startedAt: now, progressJson: "{}" }),
};

/** Only experiments reserved for `runner` (null: those any worker may run; a named runner's never reach the app's workers). */
const runnerScope = (runner: string | null | undefined) => ({ experiment: { runner: runner ?? null } });

/**
 * Claim one attempt for `owner` with a lease of `leaseMs`: a conditional update from `queued`, or
 * from `running` with an expired lease (its worker died; claims < MAX_ATTEMPT_CLAIMS). Exactly one
 * of any number of concurrent callers wins (SQLite or PostgreSQL). An attempt of an experiment that
 * is stopping or final is not claimed, nor one of an experiment reserved for another runner
 * (`o.runner` must equal the experiment's `runner`; both null for ordinary workers). The
 * experiment becomes `running` on its first claim.
 * @returns the claimed row, or null
 */
export async function claimAttempt(db: Db, attemptId: string, owner: string, leaseMs: number, o: { runner?: string | null } = {}): Promise<ClaimedAttempt | null> {
  if (!(await claimLease(db, ATTEMPT_LEASE, attemptId, owner, leaseMs, { scope: runnerScope(o.runner) }))) return null;
  const row = await db.experimentAttempt.findUnique({ where: { id: attemptId } });
  if (row) await db.experiment.updateMany({ where: { id: row.experimentId, status: "queued" }, data: { status: "running", startedAt: row.startedAt ?? new Date() } });
  return row;
}

/**
 * Claim the oldest claimable attempt (queued, or running with an expired lease) of any running or
 * queued experiment — or of `experimentId` only — whose `runner` equals `o.runner` (null for
 * ordinary workers: experiments reserved for a named runner are never theirs).
 * @returns the claimed row, or null when nothing is claimable
 */
export async function claimNextAttempt(db: Db, owner: string, leaseMs: number, o: { experimentId?: string; runner?: string | null } = {}): Promise<ClaimedAttempt | null> {
  const id = await claimNextLease(db, ATTEMPT_LEASE, owner, leaseMs, { scope: { ...runnerScope(o.runner), ...(o.experimentId ? { experimentId: o.experimentId } : {}) } });
  if (!id) return null;
  const row = await db.experimentAttempt.findUnique({ where: { id } });
  if (row) await db.experiment.updateMany({ where: { id: row.experimentId, status: "queued" }, data: { status: "running", startedAt: row.startedAt ?? new Date() } });
  return row;
}

/**
 * Extend the lease of a running attempt held by `owner` (and save its progress).
 * @returns `{ owned, stop }`: owned false when the lease was lost (another worker reclaimed it);
 *   stop is "cancelled" | "budget-exhausted" when the experiment is stopping
 */
export async function renewAttemptLease(
  db: Db,
  attemptId: string,
  owner: string,
  leaseMs: number,
  progress?: { phase?: string; liveCalls?: number } | null,
): Promise<{ owned: boolean; stop: string | null }> {
  const owned = await renewLease(db, ATTEMPT_LEASE, attemptId, owner, leaseMs, progress ? { progressJson: JSON.stringify(progress) } : {});
  const a = await db.experimentAttempt.findUnique({ where: { id: attemptId }, select: { experiment: { select: { stopReason: true } } } });
  return { owned, stop: a?.experiment.stopReason ?? null };
}

/**
 * Put a running attempt this worker cannot finish (shutdown) back to `queued` at once, so another
 * worker takes it without waiting for the lease to expire.
 * @returns true when the row was changed
 */
export async function releaseAttempt(db: Db, attemptId: string, owner: string): Promise<boolean> {
  return updateHeld(db, ATTEMPT_LEASE, attemptId, owner, { status: "queued", leaseOwner: null, leaseExpiresAt: null, progressJson: "{}" });
}

/**
 * Record how an attempt ended — only by the lease owner of a running attempt (a worker that lost
 * its lease records nothing: the attempt is counted once). For a task-level method whose attempt
 * a < k failed or errored (and the experiment is not stopping), the row of attempt a+1 is created in
 * the same transaction. AuditEvent "experiment.attempt".
 * @param o.bundleId the stored bundle of the attempt (imported by the caller), or null
 * @returns `{ recorded, nextAttemptId }`
 */
export async function finishAttempt(
  db: Db,
  attemptId: string,
  owner: string,
  outcome: AttemptOutcome,
  o: { bundleId?: string | null } = {},
): Promise<{ recorded: boolean; nextAttemptId: string | null }> {
  const now = new Date();
  const finalJson = outcome.final === undefined ? null : safeStringify(outcome.final);
  return db.$transaction(async (tx) => {
    const recorded = await updateHeld(tx, ATTEMPT_LEASE, attemptId, owner, {
        status: outcome.status,
        passed: outcome.status === "error" ? false : outcome.status === "no_verdict" ? null : outcome.passed,
        reproduced: outcome.reproduced,
        anchorNodeId: outcome.anchorNodeId,
        guidance: outcome.guidance,
        bundleId: o.bundleId ?? null,
        calls: nonNeg(outcome.calls),
        auxCalls: nonNeg(outcome.auxCalls),
        promptTokens: nonNeg(outcome.tokens?.prompt),
        completionTokens: nonNeg(outcome.tokens?.completion),
        tokens: nonNeg(outcome.tokens?.total),
        auxTokens: nonNeg(outcome.auxTokens),
        artifactJson: outcome.artifact === undefined || outcome.artifact === null ? null : safeStringify(outcome.artifact),
        masMs: nonNeg(outcome.masMs),
        error: outcome.error,
        skipReason: outcome.skipReason,
        judgeReason: outcome.judgeReason,
        finalJson,
        finishedAt: now,
        leaseExpiresAt: null,
        progressJson: JSON.stringify({ phase: "done", liveCalls: nonNeg(outcome.calls) }),
    });
    if (!recorded) return { recorded: false, nextAttemptId: null };
    const row = await tx.experimentAttempt.findUniqueOrThrow({ where: { id: attemptId }, select: { experimentId: true, experimentCaseId: true, method: true, attempt: true, experiment: { select: { attempts: true, stopReason: true } } } });
    await tx.auditEvent.create({
      data: { action: "experiment.attempt", entityType: "experiment_attempt", entityId: attemptId, dataJson: JSON.stringify({ experimentId: row.experimentId, method: row.method, attempt: row.attempt, status: outcome.status, owner }) },
    });
    let nextAttemptId: string | null = null;
    if (isTaskLevel(row.method) && (outcome.status === "failed" || outcome.status === "error" || outcome.status === "no_verdict") && row.attempt < row.experiment.attempts && !row.experiment.stopReason) {
      const exists = await tx.experimentAttempt.findUnique({
        where: { experimentId_experimentCaseId_method_attempt: { experimentId: row.experimentId, experimentCaseId: row.experimentCaseId, method: row.method, attempt: row.attempt + 1 } },
        select: { id: true },
      });
      nextAttemptId = exists?.id ?? (await tx.experimentAttempt.create({ data: { experimentId: row.experimentId, experimentCaseId: row.experimentCaseId, method: row.method, attempt: row.attempt + 1 }, select: { id: true } })).id;
    }
    return { recorded: true, nextAttemptId };
  });
}

const nonNeg = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.round(v) : 0);
function safeStringify(v: unknown): string | null {
  try {
    return JSON.stringify(v) ?? null;
  } catch {
    return JSON.stringify(String(v));
  }
}

// ------------------------------------------------------------------ stop / complete

/**
 * Stop an experiment early: `stopReason` is set once (cancelled | budget-exhausted; the first
 * wins), every queued attempt becomes `cancelled` with `skipReason` (not run, never counted as
 * run), running attempts are told to stop (renewAttemptLease answers `stop`). The experiment turns final
 * when no attempt runs any more (completeIfDone).
 * @returns true when this call set the stop reason
 */
export async function stopExperiment(db: Db, experimentId: string, reason: "cancelled" | "budget-exhausted", o: { detail?: string; actor?: string | null } = {}): Promise<boolean> {
  const now = new Date();
  const set = await db.$transaction(async (tx) => {
    const u = await tx.experiment.updateMany({
      where: { id: experimentId, stopReason: null, status: { in: ["queued", "running"] } },
      data: { stopReason: reason, ...(reason === "cancelled" ? { cancelRequested: true } : {}) },
    });
    if (u.count !== 1) return false;
    const why = reason === "cancelled" ? "not run: the experiment was cancelled" : `not run: budget exhausted${o.detail ? ` (${o.detail})` : ""}`;
    await tx.experimentAttempt.updateMany({ where: { experimentId, status: "queued" }, data: { status: "cancelled", skipReason: why, finishedAt: now } });
    await tx.auditEvent.create({ data: { actorId: o.actor ?? null, action: reason === "cancelled" ? "experiment.cancel" : "experiment.budget", entityType: "experiment", entityId: experimentId, dataJson: JSON.stringify({ detail: o.detail ?? null }) } });
    return true;
  });
  await completeIfDone(db, experimentId);
  return set;
}

/**
 * When the budget of the experiment is used up, stop it (stopExperiment "budget-exhausted").
 * @returns true when the budget is exhausted (whether or not this call stopped it)
 */
export async function checkBudget(db: Db, experimentId: string): Promise<boolean> {
  const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { maxCalls: true, maxTokens: true, stopReason: true } });
  if (!e || (e.maxCalls == null && e.maxTokens == null)) return false;
  const used = await budgetUsage(db, experimentId);
  const over = (e.maxCalls != null && used.calls >= e.maxCalls) || (e.maxTokens != null && used.tokens >= e.maxTokens);
  if (!over) return false;
  const detail = [e.maxCalls != null ? `calls ${used.calls}/${e.maxCalls}` : null, e.maxTokens != null ? `tokens ${used.tokens}/${e.maxTokens}` : null].filter(Boolean).join(", ");
  await stopExperiment(db, experimentId, "budget-exhausted", { detail });
  return true;
}

/**
 * Make the experiment final when no attempt is queued or running: `finished`, or the stop reason
 * (`cancelled` | `budget-exhausted`). Conditional on the experiment not being final yet.
 * @returns the experiment's status afterwards, or null when it does not exist
 */
export async function completeIfDone(db: Db, experimentId: string): Promise<ExperimentStatus | null> {
  const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { status: true, stopReason: true } });
  if (!e) return null;
  if (FINAL_EXPERIMENT_STATUSES.includes(e.status as ExperimentStatus)) return e.status as ExperimentStatus;
  const active = await db.experimentAttempt.count({ where: { experimentId, status: { in: ["queued", "running"] } } });
  if (active > 0) return e.status as ExperimentStatus;
  const status: ExperimentStatus = e.stopReason === "cancelled" ? "cancelled" : e.stopReason === "budget-exhausted" ? "budget-exhausted" : "finished";
  const now = new Date();
  const u = await db.experiment.updateMany({ where: { id: experimentId, status: { in: ["queued", "running"] } }, data: { status, finishedAt: now } });
  if (u.count === 1) {
    await db.auditEvent.create({ data: { action: "experiment.finish", entityType: "experiment", entityId: experimentId, dataJson: JSON.stringify({ status }) } });
  }
  return (await db.experiment.findUnique({ where: { id: experimentId }, select: { status: true } }))?.status as ExperimentStatus;
}

/**
 * Maintenance any worker runs at start and periodically: running attempts with an expired lease
 * in a stopping experiment become `cancelled`; those claimed MAX_ATTEMPT_CLAIMS times become
 * `error` (their worker died every time); experiments left without active attempts are completed.
 * @returns ids of the attempts changed
 */
export async function sweepExperiments(db: Db, now: Date = new Date()): Promise<string[]> {
  const stale = await listExpired(db, ATTEMPT_LEASE, {
    leaseMs: 0,
    now,
    where: { OR: [{ experiment: { stopReason: { not: null } } }, { claims: { gte: MAX_ATTEMPT_CLAIMS } }] },
    select: { experiment: true },
  });
  const changed: string[] = [];
  for (const a of stale) {
    const stopping = (a.row.experiment as { stopReason: string | null }).stopReason;
    const ok = await closeExpired(
      db,
      ATTEMPT_LEASE,
      a,
      stopping
        ? { status: "cancelled", skipReason: `not finished: the experiment stopped (${stopping}) and its worker ${a.owner ?? "?"} stopped reporting`, finishedAt: now, leaseExpiresAt: null }
        : { status: "error", passed: false, error: `the attempt's worker stopped reporting ${a.claims} times (last: ${a.owner ?? "?"}); not run again`, finishedAt: now, leaseExpiresAt: null },
    );
    if (ok) changed.push(a.id);
  }
  const open = await db.experiment.findMany({ where: { status: { in: ["queued", "running"] } }, select: { id: true } });
  for (const e of open) await completeIfDone(db, e.id);
  return changed;
}

/**
 * Ids of claimable attempts (queued, or running with an expired lease), oldest first — for
 * re-sending queue jobs. Only experiments of `o.runner` (default null: those any worker may run).
 */
export async function listClaimableAttemptIds(db: Db, o: { experimentId?: string; olderThanMs?: number; take?: number; runner?: string | null } = {}): Promise<string[]> {
  return listClaimable(db, ATTEMPT_LEASE, { leaseMs: 0, take: o.take, olderThanMs: o.olderThanMs, scope: { ...runnerScope(o.runner), ...(o.experimentId ? { experimentId: o.experimentId } : {}) } });
}

/**
 * Stamp an experiment as run by fake methods (issue 20 item 5): the worker calls this when a
 * method that says it is fake (ExperimentMethod.fake; test harness only) runs one of its attempts,
 * so the frozen settings — and with them every report and export — say so. Idempotent; a stamp
 * already there is kept.
 * @returns true when stamped now
 */
export async function stampFakeExperiment(db: Db, experimentId: string, fake: string): Promise<boolean> {
  const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { settingsJson: true } });
  if (!e) return false;
  const s = parseJson<Record<string, unknown>>(e.settingsJson, {});
  if (typeof s.fake === "string" && s.fake) return false;
  const u = await db.experiment.updateMany({ where: { id: experimentId, settingsJson: e.settingsJson }, data: { settingsJson: JSON.stringify({ ...s, fake }) } });
  return u.count === 1;
}

/** The stored report of a final experiment, or null. */
export async function getStoredReport(db: Db, experimentId: string): Promise<unknown> {
  const e = await db.experiment.findUnique({ where: { id: experimentId }, select: { reportJson: true } });
  return parseJson(e?.reportJson, null);
}

/** Store the report of a final experiment (once; a report never changes afterwards). @returns true when stored now */
export async function storeReport(db: Db, experimentId: string, report: unknown): Promise<boolean> {
  const u = await db.experiment.updateMany({ where: { id: experimentId, reportJson: null, status: { in: [...FINAL_EXPERIMENT_STATUSES] } }, data: { reportJson: JSON.stringify(report) } });
  return u.count === 1;
}
