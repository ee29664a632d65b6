/**
 * Search-based repairs (MARS, seeds/002; issue 15 item 3) in the database: one RepairSearch row per
 * search of a source case, run as a job by one worker at a time (lib/jobs/kinds/repair-search.ts).
 *
 * Status machine (the row is the single source of truth; pg-boss only delivers ids):
 *
 *   queued ──claim (lease)──▶ running ──finish──▶ completed | failed | cancelled
 *     ▲                         │  lease expired (worker died) ──▶ claimable again (claims + 1),
 *     └── release (shutdown) ───┘     resumed from `stateJson`; after MAX_REPAIR_SEARCH_CLAIMS: interrupted
 *   queued ──cancel──▶ cancelled;   running ──cancel──▶ cancelRequested (the worker stops after the
 *                                   current iteration and finishes as cancelled)
 *
 * `stateJson` is the lib/repair-search SearchState after the last finished iteration; it is written
 * after EVERY iteration by the lease holder only ({@link saveRepairSearchState}), together with
 * `nodeCasesJson` (tree node id → Case id of the bundle the node's state refers to: the root "n0" is
 * the source case; a rollback node, whose state is its parent's bundle cut before a checkpoint
 * (`stateRef` = `<file>#<checkpoint>`), maps to the case of that bundle). A worker that takes over a
 * search continues from that state, so a finished iteration is never redone and none is lost.
 */
import { InputError } from "../input-error";
import type { SearchSettings, SearchState, SearchUsage } from "../repair-search";
import type { Db } from "./client";
import { claimLease, claimNextLease, closeExpired, listClaimable, listExpired, renewLease, updateHeld, type LeaseTable } from "./leases";

export const REPAIR_SEARCH_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "interrupted"] as const;
export type RepairSearchStatus = (typeof REPAIR_SEARCH_STATUSES)[number];
export const FINAL_REPAIR_SEARCH_STATUSES: readonly RepairSearchStatus[] = ["completed", "failed", "cancelled", "interrupted"];
/** A search whose worker died this many times is marked interrupted instead of being taken over again. */
export const MAX_REPAIR_SEARCH_CLAIMS = 3;

/** The judge of a search: an LLM (OpenAI-compatible endpoint) or a command printing `{score, failureMode, feedback}`. */
export type RepairSearchJudge = { kind: "llm"; upstream: string; model: string } | { kind: "command"; cmd: string };

/** Frozen settings of one search (stored as `settingsJson` at creation, never changed). */
export interface RepairSearchSettings {
  /** Live OpenAI-compatible base URL of the MAS (…/v1), its tool server, and the MAS model (null: the bundle's). */
  upstream: string;
  toolUpstream: string | null;
  model: string | null;
  /** The action selector's endpoint and model (seeds/002: one call with the three tools). */
  selector: { upstream: string; model: string };
  judge: RepairSearchJudge;
  /** Ground-truth evaluator command (SYMTRACE_REPLAY_EVALUATOR contract), run once on the best trajectory; null: none. */
  evaluator: string | null;
  /** lib/repair-search settings (C, K, L, D_max, N_iter; `budget` mirrors maxCalls / maxTokens). */
  search: SearchSettings;
  /** Seed: the selector/judge `seed` field and SYMTRACE_ATTEMPT_SEED prefix of every rollout. */
  seed: string | number | null;
  /** Caps on the search's calls (selector + judge + MAS) and tokens; null = none. */
  maxCalls: number | null;
  maxTokens: number | null;
  /** A trusted MAS command (argv), else the source bundle's registered runner. Never taken from an API request. */
  command: string[] | null;
}

/** What the app and the CLI see of a search. */
export interface RepairSearchView {
  id: string;
  status: RepairSearchStatus;
  sourceCaseId: string;
  sourceBundleId: string;
  settings: RepairSearchSettings;
  /** The resumable state after the last finished iteration (null before the worker built the root). */
  state: SearchState | null;
  /** Tree node id → Case id (module doc). */
  nodeCases: Record<string, string>;
  /** Best trajectory so far (final once the search is): judge score; `passed` from the ground-truth evaluator (null: not run). */
  best: { nodeId: string; score: number; passed: boolean | null; caseId: string | null } | null;
  usage: SearchUsage;
  /** Why the search stopped (lib/repair-search StopReason), once it did. */
  stopped: SearchState["stopped"];
  /** The ground-truth evaluation record (node, passed, details), once run. */
  evaluation: unknown;
  error: string | null;
  claims: number;
  cancelRequested: boolean;
  workerId: string | null;
  leaseUntil: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A refused repair-search input (code, JSON path). */
export class RepairSearchDbError extends InputError {
  override name = "RepairSearchDbError";
}

type Row = NonNullable<Awaited<ReturnType<Db["repairSearch"]["findUnique"]>>> & { sourceCase?: { bundleId: string } | null };

const ZERO_USAGE = (): SearchUsage => ({ selector: { calls: 0, tokens: 0 }, judge: { calls: 0, tokens: 0 }, mas: { calls: 0, tokens: 0 } });

function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Map a row (with `sourceCase.bundleId`) to the view. */
export function toRepairSearchView(r: Row): RepairSearchView {
  const state = parseJson<SearchState | null>(r.stateJson, null);
  const nodeCases = parseJson<Record<string, string>>(r.nodeCasesJson, {});
  const bestId = r.bestNodeId ?? state?.bestId ?? null;
  const bestNode = bestId && state ? state.nodes[bestId] : undefined;
  return {
    id: r.id,
    status: r.status as RepairSearchStatus,
    sourceCaseId: r.sourceCaseId,
    sourceBundleId: r.sourceCase?.bundleId ?? "",
    settings: parseJson<RepairSearchSettings>(r.settingsJson, {} as RepairSearchSettings),
    state,
    nodeCases,
    best: bestId ? { nodeId: bestId, score: bestNode?.verdict?.score ?? 0, passed: r.passed, caseId: nodeCases[bestId] ?? null } : null,
    usage: state?.usage ?? ZERO_USAGE(),
    stopped: state?.stopped ?? null,
    evaluation: parseJson<unknown>(r.evaluationJson, null),
    error: r.error,
    claims: r.claims,
    cancelRequested: r.cancelRequested,
    workerId: r.workerId,
    leaseUntil: r.leaseUntil,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

const withSource = { sourceCase: { select: { bundleId: true } } } as const;

function checkSettings(s: RepairSearchSettings): void {
  const bad = (at: string, msg: string) => new RepairSearchDbError("invalid", `${at}: ${msg}`, at);
  if (!s || typeof s !== "object") throw bad("$.settings", "settings are required");
  if (typeof s.upstream !== "string" || !s.upstream) throw bad("$.settings.upstream", "a live endpoint URL is required");
  if (!s.selector || typeof s.selector.upstream !== "string" || typeof s.selector.model !== "string") throw bad("$.settings.selector", "{upstream, model} is required");
  if (!s.judge || (s.judge.kind === "llm" ? typeof s.judge.upstream !== "string" || typeof s.judge.model !== "string" : s.judge.kind === "command" ? typeof s.judge.cmd !== "string" || !s.judge.cmd.trim() : true)) {
    throw bad("$.settings.judge", 'must be {kind:"llm",upstream,model} or {kind:"command",cmd}');
  }
  const sr = s.search;
  if (!sr || typeof sr !== "object") throw bad("$.settings.search", "search settings are required");
  for (const k of ["k", "l", "maxDepth", "iterations"] as const) {
    if (!Number.isInteger(sr[k]) || sr[k] < 1) throw bad(`$.settings.search.${k}`, `must be a positive integer (got ${JSON.stringify(sr[k])})`);
  }
  if (typeof sr.c !== "number" || !(sr.c >= 0)) throw bad("$.settings.search.c", "must be a number ≥ 0");
  for (const k of ["maxCalls", "maxTokens"] as const) {
    const v = s[k];
    if (v !== null && (!Number.isInteger(v) || v < 1)) throw bad(`$.settings.${k}`, "must be a positive integer or null");
  }
}

/**
 * Queue a search of `sourceCaseId` (status queued; nodeCases = {n0: the source case}); audit event
 * `repair-search.create`. Settings are frozen as given (the search budget mirrors maxCalls/maxTokens).
 * @throws RepairSearchDbError not-found (no such case) | invalid (settings, with the JSON path)
 */
export async function createRepairSearch(db: Db, input: { sourceCaseId: string; settings: RepairSearchSettings; createdById?: string | null; runner?: string | null }): Promise<RepairSearchView> {
  checkSettings(input.settings);
  // The source by its internal id or its bundle id (as the CLI's --case takes both).
  const src =
    (await db.case.findUnique({ where: { id: input.sourceCaseId }, select: { id: true } })) ??
    (await db.case.findUnique({ where: { bundleId: input.sourceCaseId }, select: { id: true } }));
  if (!src) throw new RepairSearchDbError("not-found", `no case with id or bundle id ${input.sourceCaseId}`, "$.sourceCaseId");
  const settings: RepairSearchSettings = { ...input.settings, search: { ...input.settings.search, budget: { maxCalls: input.settings.maxCalls, maxTokens: input.settings.maxTokens } } };
  // One transaction: a search exists only with its audit event (nothing half-written).
  const row = await db.$transaction(async (tx) => {
    const r = await tx.repairSearch.create({
      data: { sourceCaseId: src.id, settingsJson: JSON.stringify(settings), nodeCasesJson: JSON.stringify({ n0: src.id }), createdById: input.createdById ?? null, runner: input.runner ?? null },
      include: withSource,
    });
    await tx.auditEvent.create({
      data: { actorId: input.createdById ?? null, action: "repair-search.create", entityType: "repair-search", entityId: r.id, caseId: src.id, dataJson: JSON.stringify({ iterations: settings.search.iterations }) },
    });
    return r;
  });
  return toRepairSearchView(row);
}

/** One search, or null. */
export async function getRepairSearch(db: Db, id: string): Promise<RepairSearchView | null> {
  const row = await db.repairSearch.findUnique({ where: { id }, include: withSource });
  return row ? toRepairSearchView(row) : null;
}

/** Searches, newest first (of one source case when given); `limit` default 50, at most 500. */
export async function listRepairSearches(db: Db, o: { sourceCaseId?: string; limit?: number } = {}): Promise<RepairSearchView[]> {
  const rows = await db.repairSearch.findMany({
    where: o.sourceCaseId ? { sourceCaseId: o.sourceCaseId } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(1, o.limit ?? 50), 500),
    include: withSource,
  });
  return rows.map(toRepairSearchView);
}

// ------------------------------------------------------------------ claim / lease / save / finish

/** RepairSearch as a lease table (lib/db/leases.ts): an expiry lease, taken over after a crash (claims < MAX_REPAIR_SEARCH_CLAIMS; the new holder resumes from the saved state). */
export const REPAIR_SEARCH_LEASE: LeaseTable = {
  model: "repairSearch",
  owner: "workerId",
  lease: { column: "leaseUntil", kind: "expires" },
  takeover: { maxClaims: MAX_REPAIR_SEARCH_CLAIMS },
  claimable: () => ({ cancelRequested: false }),
};

/**
 * Claim a search for `workerId` with a lease of `leaseMs`: a conditional update from queued, or from
 * running with an expired lease (its worker died; the new holder resumes from `state`). Exactly one
 * of any number of concurrent callers wins. A search reserved for a runner is claimed only with
 * that `o.runner` (ordinary workers pass none and never see it).
 * @returns the claimed search, or null
 */
export async function claimRepairSearch(db: Db, id: string, workerId: string, leaseMs: number, o: { runner?: string | null } = {}): Promise<RepairSearchView | null> {
  if (!(await claimLease(db, REPAIR_SEARCH_LEASE, id, workerId, leaseMs, { scope: { runner: o.runner ?? null } }))) return null;
  await db.repairSearch.updateMany({ where: { id, startedAt: null }, data: { startedAt: new Date() } });
  return getRepairSearch(db, id);
}

/** Claim the oldest claimable search (queued, or running with an expired lease) of `o.runner` (default null: any worker's), or null. */
export async function claimNextRepairSearch(db: Db, workerId: string, leaseMs: number, o: { runner?: string | null } = {}): Promise<RepairSearchView | null> {
  const id = await claimNextLease(db, REPAIR_SEARCH_LEASE, workerId, leaseMs, { scope: { runner: o.runner ?? null } });
  if (!id) return null;
  await db.repairSearch.updateMany({ where: { id, startedAt: null }, data: { startedAt: new Date() } });
  return getRepairSearch(db, id);
}

/** Ids of claimable searches any worker may run (runner null), oldest first (for re-sending queue jobs). */
export async function listClaimableRepairSearchIds(db: Db, o: { take?: number; olderThanMs?: number } = {}): Promise<string[]> {
  return listClaimable(db, REPAIR_SEARCH_LEASE, { leaseMs: 0, take: o.take ?? 100, olderThanMs: o.olderThanMs, scope: { runner: null } });
}

/**
 * Extend the lease of a running search held by `workerId`.
 * @returns owned false when the lease was lost (another worker took the search over: stop without
 *   writing); cancel true when a cancel was requested
 */
export async function renewRepairSearchLease(db: Db, id: string, workerId: string, leaseMs: number): Promise<{ owned: boolean; cancel: boolean }> {
  if (!(await renewLease(db, REPAIR_SEARCH_LEASE, id, workerId, leaseMs))) return { owned: false, cancel: false };
  const row = await db.repairSearch.findUnique({ where: { id }, select: { cancelRequested: true } });
  return { owned: true, cancel: row?.cancelRequested ?? false };
}

/**
 * Store the state after an iteration (and the node → case map), only for the lease holder of a
 * running search; extends the lease by `leaseMs` when given.
 * @returns false when `workerId` no longer holds the search (nothing written)
 */
export async function saveRepairSearchState(
  db: Db,
  id: string,
  workerId: string,
  o: { state: SearchState; nodeCases: Record<string, string> },
  leaseMs?: number,
): Promise<boolean> {
  const data = { stateJson: JSON.stringify(o.state), nodeCasesJson: JSON.stringify(o.nodeCases) };
  return leaseMs ? renewLease(db, REPAIR_SEARCH_LEASE, id, workerId, leaseMs, data) : updateHeld(db, REPAIR_SEARCH_LEASE, id, workerId, data);
}

/** How a search ended, as its worker records it. */
export interface RepairSearchOutcome {
  status: "completed" | "failed" | "cancelled";
  state?: SearchState | null;
  nodeCases?: Record<string, string>;
  bestNodeId?: string | null;
  passed?: boolean | null;
  evaluation?: unknown;
  error?: string | null;
}

/**
 * Record how a search ended — only by the lease holder of a running search; audit event
 * `repair-search.finish`.
 * @returns false when `workerId` no longer holds it (nothing written)
 */
export async function finishRepairSearch(db: Db, id: string, workerId: string, o: RepairSearchOutcome): Promise<boolean> {
  const ok = await updateHeld(db, REPAIR_SEARCH_LEASE, id, workerId, {
      status: o.status,
      ...(o.state ? { stateJson: JSON.stringify(o.state) } : {}),
      ...(o.nodeCases ? { nodeCasesJson: JSON.stringify(o.nodeCases) } : {}),
      bestNodeId: o.bestNodeId ?? o.state?.bestId ?? null,
      passed: o.passed ?? null,
      evaluationJson: o.evaluation === undefined ? null : JSON.stringify(o.evaluation),
      error: o.error ?? null,
      leaseUntil: null,
      finishedAt: new Date(),
  });
  if (!ok) return false;
  await db.auditEvent.create({ data: { action: "repair-search.finish", entityType: "repair-search", entityId: id, dataJson: JSON.stringify({ status: o.status, passed: o.passed ?? null }) } });
  return true;
}

/** Give a running search back (worker shutdown): queued again, state kept, so any worker resumes it at once. */
export async function releaseRepairSearch(db: Db, id: string, workerId: string): Promise<boolean> {
  return updateHeld(db, REPAIR_SEARCH_LEASE, id, workerId, { status: "queued", workerId: null, leaseUntil: null });
}

/**
 * Cancel: a queued search becomes cancelled at once; a running one gets `cancelRequested` (its
 * worker stops after the current iteration); a final one is left as it is. Audit `repair-search.cancel`.
 * @throws RepairSearchDbError not-found
 */
export async function requestRepairSearchCancel(db: Db, id: string, actor?: string | null): Promise<RepairSearchView> {
  const row = await db.repairSearch.findUnique({ where: { id }, select: { status: true } });
  if (!row) throw new RepairSearchDbError("not-found", `no repair search ${id}`);
  if (!FINAL_REPAIR_SEARCH_STATUSES.includes(row.status as RepairSearchStatus)) {
    const q = await db.repairSearch.updateMany({ where: { id, status: "queued" }, data: { status: "cancelled", cancelRequested: true, finishedAt: new Date() } });
    if (q.count === 0) await db.repairSearch.updateMany({ where: { id, status: "running" }, data: { cancelRequested: true } });
    await db.auditEvent.create({ data: { actorId: actor ?? null, action: "repair-search.cancel", entityType: "repair-search", entityId: id, dataJson: "{}" } });
  }
  return (await getRepairSearch(db, id))!;
}

/**
 * Maintenance any worker runs: running searches whose lease expired and which were claimed
 * MAX_REPAIR_SEARCH_CLAIMS times, or whose cancel was requested, become interrupted / cancelled
 * (their saved state stays readable).
 * @returns ids changed
 */
export async function sweepRepairSearches(db: Db, now: Date = new Date()): Promise<string[]> {
  const rows = await listExpired(db, REPAIR_SEARCH_LEASE, { leaseMs: 0, now, where: { OR: [{ claims: { gte: MAX_REPAIR_SEARCH_CLAIMS } }, { cancelRequested: true }] }, select: { cancelRequested: true } });
  const done: string[] = [];
  for (const s of rows) {
    const ok = await closeExpired(
      db,
      REPAIR_SEARCH_LEASE,
      s,
      s.row.cancelRequested
        ? { status: "cancelled", error: `cancelled; its worker ${s.owner ?? "?"} stopped reporting`, leaseUntil: null, finishedAt: now }
        : { status: "interrupted", error: `the search's worker stopped reporting ${s.claims} times (last: ${s.owner ?? "?"}); not taken over again`, leaseUntil: null, finishedAt: now },
    );
    if (ok) done.push(s.id);
  }
  return done;
}
