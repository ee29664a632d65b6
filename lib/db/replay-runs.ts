/**
 * Replay runs as jobs (ISSUE 7 item 2). The ReplayRun row is the single source of truth: a run is
 * created `queued`, claimed by exactly one worker (`running`, conditional update), heartbeats its
 * progress, and ends in one final status. Workers (lib/jobs) only move rows through these
 * functions; pg-boss (PostgreSQL) merely delivers run ids, so a job delivered twice cannot run twice.
 *
 * Status machine:
 *
 *   queued ──claim──▶ running ──finish──▶ completed | prefix_verified | diverged | failed | cancelled
 *     │                  │  └─ no heartbeat for staleAfterMs / worker shut down ──▶ interrupted
 *     └─ cancel ──▶ cancelled                         (cancel requested + stale ──▶ cancelled)
 *   interrupted | failed | cancelled ──retry──▶ a NEW queued run (attempt + 1, retryOfId)
 *
 * Timestamps come from the process clock (workers on several machines need roughly synchronized
 * clocks; the default staleness of 30 s tolerates ordinary skew).
 */
import { randomUUID } from "node:crypto";
import type { ReplayBundle } from "../bundle";
import type { Db } from "./client";
import { importCase } from "./cases";
import { claimLease, closeExpired, listClaimable, listExpired, renewLease, updateHeld, type LeaseTable } from "./leases";

export const REPLAY_RUN_STATUSES = ["queued", "running", "completed", "prefix_verified", "diverged", "failed", "cancelled", "interrupted"] as const;
export type ReplayRunStatus = (typeof REPLAY_RUN_STATUSES)[number];
/** Statuses a run never leaves. */
export const FINAL_REPLAY_STATUSES: readonly ReplayRunStatus[] = ["completed", "prefix_verified", "diverged", "failed", "cancelled", "interrupted"];
/** Statuses from which `retryRun` may start a new attempt. */
export const RETRYABLE_REPLAY_STATUSES: readonly ReplayRunStatus[] = ["interrupted", "failed", "cancelled"];
/** At most this many runs are started together by `createReplayRuns`. */
export const MAX_REPLAYS_PER_REQUEST = 5;
/** A running run without a heartbeat for this long is stale (its worker died): interrupted by the sweep. */
export const DEFAULT_REPLAY_STALE_MS = 30_000;

/** Where a replay's live calls go: `{ upstream, model, toolUpstream, command? }` (stored as endpointJson). */
export interface ReplayEndpoint {
  /** OpenAI-compatible base URL for the live suffix; null = verify the prefix only. */
  upstream: string | null;
  model?: string | null;
  toolUpstream?: string | null;
  /** Anthropic Messages base URL (without /v1); null: derived from `upstream`. */
  anthropicUpstream?: string | null;
  /** MAS command to run natively (overrides the bundle's config.runner.command). */
  command?: string[] | null;
  /** True when `upstream` is the scripted stand-in model (demo): results are labelled as scripted. */
  scripted?: boolean;
}

/** Live progress of a run (progressJson): prefix nodes verified / total, live calls made. */
export interface ReplayRunProgress {
  phase?: string;
  verified: number;
  prefixTotal: number | null;
  liveCalls: number;
  boundaryNodeId?: string | null;
}

/**
 * What an executor reports when a run ends (the ReplayRunResult of lib/services/replay-exec.ts):
 * - `{ status: "completed", mode, bundle, boundaryNodeId, verified, liveCalls }`
 * - `{ status: "prefix-verified", mode, verified, boundaryNodeId }`
 * - `{ status: "diverged", mode: "native", report, verified }`
 * - `{ status: "cancelled", verified }`
 * - `{ status: "failed", error, verified }`
 */
export type ReplayRunOutcome =
  | { status: "completed"; mode: string; bundle: ReplayBundle; boundaryNodeId: string | null; verified: number; liveCalls: number }
  | { status: "prefix-verified"; mode: string; verified: number; boundaryNodeId: string | null }
  | { status: "diverged"; mode: string; report: unknown; verified: number }
  | { status: "cancelled"; verified: number }
  | { status: "failed"; error: unknown; verified: number };

export class ReplayRunError extends Error {
  constructor(
    readonly code: "not-found" | "invalid" | "conflict",
    message: string,
  ) {
    super(message);
    this.name = "ReplayRunError";
  }
}

/** A run as the UI and the API show it (getRun, listRunsForCase, createReplayRuns). */
export interface ReplayRunView {
  id: string;
  groupId: string | null;
  attempt: number;
  retryOfId: string | null;
  sourceCaseId: string;
  sourceBundleId: string;
  targetNodeId: string;
  guidance: string;
  status: ReplayRunStatus;
  /** native | transcript, once finished. */
  mode: string | null;
  progress: ReplayRunProgress;
  cancelRequested: boolean;
  workerId: string | null;
  heartbeatAt: Date | null;
  boundaryNodeId: string | null;
  /** Endpoint without secrets (URLs and model only). */
  endpoint: ReplayEndpoint;
  error: { message: string; [k: string]: unknown } | null;
  divergence: unknown;
  result: Record<string, unknown> | null;
  resultCaseId: string | null;
  resultBundleId: string | null;
  createdBy: { id: string; name: string; email: string } | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** listRunsForCase: 0 = runs of the case asked for, 1 = runs of its replays, … */
  depth?: number;
}

const viewInclude = {
  sourceCase: { select: { bundleId: true } },
  resultCase: { select: { bundleId: true } },
  createdBy: { select: { id: true, name: true, email: true } },
} as const;

type RunRow = NonNullable<Awaited<ReturnType<Db["replayRun"]["findUnique"]>>>;
type RunRowWithRefs = RunRow & {
  sourceCase: { bundleId: string };
  resultCase: { bundleId: string } | null;
  createdBy: { id: string; name: string; email: string } | null;
};

function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text == null || text === "") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Parse progressJson into a full progress object (missing numbers are 0 / null). */
export function parseProgress(text: string | null | undefined): ReplayRunProgress {
  const p = parseJson<Partial<ReplayRunProgress>>(text, {});
  return {
    ...p,
    verified: typeof p.verified === "number" ? p.verified : 0,
    prefixTotal: typeof p.prefixTotal === "number" ? p.prefixTotal : null,
    liveCalls: typeof p.liveCalls === "number" ? p.liveCalls : 0,
  };
}

/** Parse endpointJson. */
export function parseEndpoint(text: string | null | undefined): ReplayEndpoint {
  const e = parseJson<Partial<ReplayEndpoint>>(text, {});
  return {
    upstream: typeof e.upstream === "string" ? e.upstream : null,
    model: typeof e.model === "string" ? e.model : null,
    toolUpstream: typeof e.toolUpstream === "string" ? e.toolUpstream : null,
    ...(typeof e.anthropicUpstream === "string" ? { anthropicUpstream: e.anthropicUpstream } : {}),
    ...(Array.isArray(e.command) ? { command: e.command.map(String) } : {}),
    ...(e.scripted === true ? { scripted: true } : {}),
  };
}

function toView(r: RunRowWithRefs): ReplayRunView {
  return {
    id: r.id,
    groupId: r.groupId,
    attempt: r.attempt,
    retryOfId: r.retryOfId,
    sourceCaseId: r.sourceCaseId,
    sourceBundleId: r.sourceCase.bundleId,
    targetNodeId: r.targetNodeId,
    guidance: r.guidance,
    status: r.status as ReplayRunStatus,
    mode: r.mode,
    progress: parseProgress(r.progressJson),
    cancelRequested: r.cancelRequested,
    workerId: r.workerId,
    heartbeatAt: r.heartbeatAt,
    boundaryNodeId: r.boundaryNodeId,
    endpoint: parseEndpoint(r.endpointJson),
    error: parseJson(r.errorJson, null),
    divergence: parseJson(r.divergenceJson, null),
    result: parseJson(r.resultJson, null),
    resultCaseId: r.resultCaseId,
    resultBundleId: r.resultCase?.bundleId ?? null,
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
  };
}

function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  if (e && typeof e === "object" && typeof (e as { message?: unknown }).message === "string") return (e as { message: string }).message;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

function cleanEndpoint(e: ReplayEndpoint): ReplayEndpoint {
  const str = (v: unknown, field: string): string | null => {
    if (v == null || v === "") return null;
    if (typeof v !== "string") throw new ReplayRunError("invalid", `endpoint.${field} must be a string`);
    return v.trim() || null;
  };
  const out: ReplayEndpoint = { upstream: str(e.upstream, "upstream"), model: str(e.model, "model"), toolUpstream: str(e.toolUpstream, "toolUpstream") };
  if (e.scripted === true && out.upstream) out.scripted = true;
  const anthropic = str(e.anthropicUpstream, "anthropicUpstream");
  if (anthropic) out.anthropicUpstream = anthropic;
  for (const [k, v] of [["upstream", out.upstream], ["toolUpstream", out.toolUpstream], ["anthropicUpstream", anthropic]] as const) {
    if (v && !/^https?:\/\//i.test(v)) throw new ReplayRunError("invalid", `endpoint.${k} must be an http(s) URL; got "${v}"`);
  }
  if (e.command != null) {
    if (!Array.isArray(e.command) || e.command.length === 0 || !e.command.every((c) => typeof c === "string")) {
      throw new ReplayRunError("invalid", "endpoint.command must be a non-empty array of strings");
    }
    out.command = [...e.command];
  }
  return out;
}

export interface CreateReplayRunsInput {
  /** Database id of the source case. */
  sourceCaseId: string;
  targetNodeId: string;
  /** The guidance Δ appended at the target (may be ""). */
  guidance: string;
  /** 1–5 runs started together (one group). */
  count: number;
  endpoint: ReplayEndpoint;
  createdById?: string | null;
}

/**
 * Queue `count` replays of one (case, target, guidance, endpoint), in one transaction, with one
 * AuditEvent "replay.create" per run. The runs share a group id. They are only rows: call
 * lib/jobs `enqueueReplayRuns` (or `startReplayRuns`, which does both) so a worker picks them up.
 * @returns `{ groupId, runs }` (runs in creation order)
 * @throws ReplayRunError "invalid" (count, endpoint), "not-found" (case or target node)
 */
export async function createReplayRuns(db: Db, o: CreateReplayRunsInput): Promise<{ groupId: string; runs: ReplayRunView[] }> {
  if (!Number.isInteger(o.count) || o.count < 1 || o.count > MAX_REPLAYS_PER_REQUEST) {
    throw new ReplayRunError("invalid", `count must be an integer from 1 to ${MAX_REPLAYS_PER_REQUEST}; got ${o.count}`);
  }
  if (typeof o.guidance !== "string") throw new ReplayRunError("invalid", "guidance must be a string");
  const endpoint = cleanEndpoint(o.endpoint ?? { upstream: null });
  const src = await db.case.findUnique({ where: { id: o.sourceCaseId }, select: { id: true, bundleId: true } });
  if (!src) throw new ReplayRunError("not-found", `no case with id "${o.sourceCaseId}"`);
  const node = await db.node.findUnique({ where: { caseId_nodeId: { caseId: src.id, nodeId: o.targetNodeId } }, select: { id: true } });
  if (!node) throw new ReplayRunError("not-found", `case ${src.bundleId} has no node "${o.targetNodeId}"`);
  const groupId = "g" + randomUUID().replaceAll("-", "");
  const ids = await db.$transaction(async (tx) => {
    const out: string[] = [];
    for (let i = 0; i < o.count; i++) {
      const run = await tx.replayRun.create({
        data: {
          sourceCaseId: src.id,
          targetNodeId: o.targetNodeId,
          guidance: o.guidance,
          endpointJson: JSON.stringify(endpoint),
          groupId,
          createdById: o.createdById ?? null,
        },
        select: { id: true },
      });
      await tx.auditEvent.create({
        data: {
          actorId: o.createdById ?? null,
          action: "replay.create",
          entityType: "replay_run",
          entityId: run.id,
          caseId: src.id,
          dataJson: JSON.stringify({ groupId, index: i, count: o.count, targetNodeId: o.targetNodeId, guidance: o.guidance, upstream: endpoint.upstream, model: endpoint.model }),
        },
      });
      out.push(run.id);
    }
    return out;
  });
  const rows = await db.replayRun.findMany({ where: { id: { in: ids } }, include: viewInclude });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { groupId, runs: ids.map((id) => toView(byId.get(id) as RunRowWithRefs)) };
}

/** The row a worker works from (claimRun / claimNextRun). */
export type ClaimedRun = RunRow;

/** ReplayRun as a lease table (lib/db/leases.ts): a heartbeat lease, never taken over — a run whose worker died is interrupted (retry makes a new run). */
export const REPLAY_LEASE: LeaseTable = {
  model: "replayRun",
  owner: "workerId",
  lease: { column: "heartbeatAt", kind: "heartbeat" },
  takeover: null,
  claimable: () => ({ cancelRequested: false }),
  onClaim: (now) => ({ startedAt: now }),
};

/**
 * Claim one given run for `workerId`: a conditional update queued → running (exactly one of any
 * number of concurrent callers, on SQLite or PostgreSQL, gets the row). Used by the pg-boss
 * handler with the delivered run id.
 * @returns the claimed row, or null when the run is not queued (already claimed, cancelled, gone)
 */
export async function claimRun(db: Db, runId: string, workerId: string): Promise<ClaimedRun | null> {
  if (!(await claimLease(db, REPLAY_LEASE, runId, workerId, DEFAULT_REPLAY_STALE_MS))) return null;
  const row = await db.replayRun.findUnique({ where: { id: runId } });
  if (row) {
    await db.auditEvent.create({
      data: { action: "replay.start", entityType: "replay_run", entityId: runId, caseId: row.sourceCaseId, dataJson: JSON.stringify({ workerId, attempt: row.attempt }) },
    });
  }
  return row;
}

/**
 * Claim the oldest queued run (FIFO by createdAt) for `workerId`; race-free (see claimRun): when
 * another worker wins a candidate, the next one is tried.
 * @returns the claimed row, or null when nothing is queued
 */
export async function claimNextRun(db: Db, workerId: string): Promise<ClaimedRun | null> {
  for (let round = 0; round < 10; round++) {
    const ids = await listClaimable(db, REPLAY_LEASE, { leaseMs: DEFAULT_REPLAY_STALE_MS, take: 8 });
    if (ids.length === 0) return null;
    for (const id of ids) {
      const row = await claimRun(db, id, workerId);
      if (row) return row;
    }
  }
  return null;
}

/**
 * A running run's sign of life: sets heartbeatAt (and progressJson when `progress` is given) if
 * `workerId` still holds it.
 * @returns `{ owned }` false when the run is no longer running under this worker (e.g. marked
 *   interrupted), and `cancelRequested`
 */
export async function heartbeat(
  db: Db,
  runId: string,
  workerId: string,
  progress?: ReplayRunProgress | null,
): Promise<{ owned: boolean; cancelRequested: boolean }> {
  const owned = await renewLease(db, REPLAY_LEASE, runId, workerId, DEFAULT_REPLAY_STALE_MS, progress ? { progressJson: JSON.stringify(progress) } : {});
  const ctl = await getRunControl(db, runId);
  return { owned, cancelRequested: ctl?.cancelRequested ?? true };
}

/** Cheap poll of what a worker must react to: `{ status, cancelRequested }`, null when the run is gone. */
export async function getRunControl(db: Db, runId: string): Promise<{ status: ReplayRunStatus; cancelRequested: boolean } | null> {
  const r = await db.replayRun.findUnique({ where: { id: runId }, select: { status: true, cancelRequested: true } });
  return r ? { status: r.status as ReplayRunStatus, cancelRequested: r.cancelRequested } : null;
}

const OUTCOME_STATUS: Record<ReplayRunOutcome["status"], ReplayRunStatus> = {
  completed: "completed",
  "prefix-verified": "prefix_verified",
  diverged: "diverged",
  cancelled: "cancelled",
  failed: "failed",
};

/** A result bundle always names its source (parent), so lineage survives even a bare executor. */
function withParent(b: ReplayBundle, run: { sourceBundleId: string; targetNodeId: string; guidance: string; boundaryNodeId: string | null }): ReplayBundle {
  if (b.parent?.bundleId) return b;
  return {
    ...b,
    parent: { bundleId: run.sourceBundleId, targetNodeId: run.targetNodeId, guidance: run.guidance, mode: "selective", ...(run.boundaryNodeId ? { boundaryNodeId: run.boundaryNodeId } : {}) },
  };
}

/**
 * Record how a run ended. Accepted while the run is `running` (or `interrupted`: a worker that
 * was presumed dead but finished anyway still delivers its result) under `workerId`.
 * - completed: the bundle is imported as a Case (importCase; parentBundleId = the source,
 *   sourceDataset "replay"; idempotent by bundle id) and linked as resultCaseId. When the import
 *   fails, the run becomes `failed` with the error and the bundle is kept in resultJson.bundle.
 * - prefix-verified / diverged (divergenceJson = report) / cancelled / failed (errorJson).
 * One AuditEvent "replay.finish".
 * @returns `{ status, resultCaseId, recorded }`; recorded false when the run was not held by this
 *   worker (nothing written)
 */
export async function finishRun(
  db: Db,
  runId: string,
  workerId: string,
  result: ReplayRunOutcome,
): Promise<{ status: ReplayRunStatus; resultCaseId: string | null; recorded: boolean }> {
  const run = await db.replayRun.findUnique({ where: { id: runId }, include: { sourceCase: { select: { bundleId: true } } } });
  if (!run) return { status: "failed", resultCaseId: null, recorded: false };
  if (run.workerId !== workerId || (run.status !== "running" && run.status !== "interrupted")) {
    return { status: run.status as ReplayRunStatus, resultCaseId: run.resultCaseId, recorded: false };
  }
  const last = parseProgress(run.progressJson);
  const boundaryNodeId = ("boundaryNodeId" in result ? result.boundaryNodeId : null) ?? last.boundaryNodeId ?? null;
  const liveCalls = "liveCalls" in result ? result.liveCalls : last.liveCalls;
  const progress: ReplayRunProgress = { ...last, phase: "done", verified: result.verified ?? last.verified, liveCalls, boundaryNodeId };
  let status = OUTCOME_STATUS[result.status] ?? "failed";
  let resultCaseId: string | null = null;
  let error: Record<string, unknown> | null = null;
  const summary: Record<string, unknown> = {
    status: result.status,
    mode: "mode" in result ? result.mode : null,
    verified: progress.verified,
    liveCalls,
    boundaryNodeId,
  };

  if (result.status === "completed") {
    const bundle = withParent(result.bundle, { sourceBundleId: run.sourceCase.bundleId, targetNodeId: run.targetNodeId, guidance: run.guidance, boundaryNodeId });
    summary.bundleId = bundle.id;
    try {
      const imp = await importCase(db, { bundle }, { actorId: run.createdById });
      resultCaseId = imp.caseId;
      summary.importStatus = imp.status;
    } catch (e) {
      status = "failed";
      error = { message: `the replayed bundle could not be stored: ${errorMessage(e)}`, stage: "import" };
      summary.bundle = bundle;
    }
  } else if (result.status === "failed") {
    const e = result.error;
    error = e && typeof e === "object" && !(e instanceof Error) ? { ...(e as Record<string, unknown>), message: errorMessage(e) } : { message: errorMessage(e) };
  }

  const now = new Date();
  const updated = await db.$transaction(async (tx) => {
    const ok = await updateHeld(
      tx,
      REPLAY_LEASE,
      runId,
      workerId,
      {
        status,
        mode: "mode" in result ? result.mode : run.mode,
        boundaryNodeId,
        progressJson: JSON.stringify(progress),
        resultJson: JSON.stringify(summary),
        finishedAt: now,
        heartbeatAt: now,
        ...(resultCaseId ? { resultCaseId } : {}),
        ...(error ? { errorJson: JSON.stringify(error) } : {}),
        ...(result.status === "diverged" ? { divergenceJson: JSON.stringify(result.report ?? null) } : {}),
      },
      { statuses: ["running", "interrupted"] },
    );
    if (ok) {
      await tx.auditEvent.create({
        data: {
          action: "replay.finish",
          entityType: "replay_run",
          entityId: runId,
          caseId: run.sourceCaseId,
          dataJson: JSON.stringify({ status, workerId, verified: progress.verified, liveCalls, resultCaseId, error: error?.message ?? null }),
        },
      });
    }
    return ok;
  });
  return { status: updated ? status : (run.status as ReplayRunStatus), resultCaseId, recorded: updated };
}

/**
 * Release a running run this worker cannot finish (worker shutting down): → interrupted (or
 * cancelled when a cancel was requested), with an audit event. Retry with retryRun.
 * @returns true when the row was changed
 */
export async function interruptRun(db: Db, runId: string, workerId: string, reason: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const row = await tx.replayRun.findUnique({ where: { id: runId }, select: { sourceCaseId: true, cancelRequested: true } });
    if (!row) return false;
    const status = row.cancelRequested ? "cancelled" : "interrupted";
    if (!(await updateHeld(tx, REPLAY_LEASE, runId, workerId, { status, finishedAt: new Date(), errorJson: JSON.stringify({ message: reason, stage: "worker" }) }))) return false;
    await tx.auditEvent.create({
      data: { action: status === "cancelled" ? "replay.cancelled" : "replay.interrupted", entityType: "replay_run", entityId: runId, caseId: row.sourceCaseId, dataJson: JSON.stringify({ workerId, reason }) },
    });
    return true;
  });
}

/**
 * Runs left `running` by a dead worker: every running run whose heartbeat is older than
 * `staleAfterMs` becomes `interrupted` (or `cancelled` when a cancel had been requested), with an
 * audit event "replay.interrupted". Conditional on the heartbeat read, so a heartbeat arriving at
 * the same moment wins. Called by every worker at start and periodically.
 * @returns ids of the runs changed
 */
export async function markInterrupted(db: Db, o: { staleAfterMs: number; now?: Date }): Promise<string[]> {
  const now = o.now ?? new Date();
  const stale = await listExpired(db, REPLAY_LEASE, { leaseMs: o.staleAfterMs, now, select: { sourceCaseId: true, cancelRequested: true } });
  const changed: string[] = [];
  for (const r of stale) {
    const status = r.row.cancelRequested ? "cancelled" : "interrupted";
    const message = `worker ${r.owner ?? "?"} stopped reporting (last heartbeat ${r.lease?.toISOString() ?? "never"})`;
    const ok = await db.$transaction(async (tx) => {
      if (!(await closeExpired(tx, REPLAY_LEASE, r, { status, finishedAt: now, errorJson: JSON.stringify({ message, stage: "worker" }) }))) return false;
      await tx.auditEvent.create({
        data: { action: status === "cancelled" ? "replay.cancelled" : "replay.interrupted", entityType: "replay_run", entityId: r.id, caseId: r.row.sourceCaseId as string, dataJson: JSON.stringify({ workerId: r.owner, reason: message }) },
      });
      return true;
    });
    if (ok) changed.push(r.id);
  }
  return changed;
}

/**
 * Cancel a run: a queued run becomes `cancelled` at once; a running one gets cancelRequested (its
 * worker aborts the executor within ~0.5 s and records `cancelled`). Final runs are left as they
 * are. Audit "replay.cancel".
 * @returns the run after the request
 * @throws ReplayRunError "not-found"
 */
export async function requestCancel(db: Db, runId: string, actor?: string | null): Promise<ReplayRunView> {
  const run = await db.replayRun.findUnique({ where: { id: runId }, select: { status: true, sourceCaseId: true } });
  if (!run) throw new ReplayRunError("not-found", `no replay run "${runId}"`);
  await db.$transaction(async (tx) => {
    const q = await tx.replayRun.updateMany({ where: { id: runId, status: "queued" }, data: { status: "cancelled", cancelRequested: true, finishedAt: new Date() } });
    const r = q.count ? q : await tx.replayRun.updateMany({ where: { id: runId, status: "running" }, data: { cancelRequested: true } });
    if (r.count) {
      await tx.auditEvent.create({
        data: { actorId: actor ?? null, action: "replay.cancel", entityType: "replay_run", entityId: runId, caseId: run.sourceCaseId, dataJson: JSON.stringify({ was: q.count ? "queued" : "running" }) },
      });
    }
  });
  return (await getRun(db, runId)) as ReplayRunView;
}

/**
 * Start a new attempt of an interrupted, failed or cancelled run: a NEW queued run with the same
 * source, target, guidance, endpoint and group, attempt + 1 and retryOfId = runId (the old run
 * keeps its status and data). Audit "replay.retry". Enqueue the new run (lib/jobs).
 * @throws ReplayRunError "not-found", or "conflict" when the run's status is not retryable
 */
export async function retryRun(db: Db, runId: string, actor?: string | null): Promise<ReplayRunView> {
  const newId = await db.$transaction(async (tx) => {
    const old = await tx.replayRun.findUnique({ where: { id: runId } });
    if (!old) throw new ReplayRunError("not-found", `no replay run "${runId}"`);
    if (!RETRYABLE_REPLAY_STATUSES.includes(old.status as ReplayRunStatus)) {
      throw new ReplayRunError("conflict", `run ${runId} is ${old.status}; only ${RETRYABLE_REPLAY_STATUSES.join(", ")} runs can be retried`);
    }
    const run = await tx.replayRun.create({
      data: {
        sourceCaseId: old.sourceCaseId,
        targetNodeId: old.targetNodeId,
        guidance: old.guidance,
        endpointJson: old.endpointJson,
        groupId: old.groupId,
        attempt: old.attempt + 1,
        retryOfId: old.id,
        createdById: actor ?? old.createdById,
      },
      select: { id: true },
    });
    await tx.auditEvent.create({
      data: { actorId: actor ?? null, action: "replay.retry", entityType: "replay_run", entityId: run.id, caseId: old.sourceCaseId, dataJson: JSON.stringify({ retryOf: old.id, previousStatus: old.status, attempt: old.attempt + 1 }) },
    });
    return run.id;
  });
  return (await getRun(db, newId)) as ReplayRunView;
}

/** One run, or null. */
export async function getRun(db: Db, runId: string): Promise<ReplayRunView | null> {
  const r = await db.replayRun.findUnique({ where: { id: runId }, include: viewInclude });
  return r ? toView(r) : null;
}

/**
 * The replay lineage of a case: its runs (depth 0) and, recursively, the runs of the cases
 * replayed from it (depth 1, 2, …), found both through ReplayRun.resultCaseId and through
 * Case.parentBundleId (cases imported from replayed bundles). Oldest first.
 * @returns `{ runs: ReplayRunView[] (with depth), cases: { id, bundleId, depth, parentBundleId }[] }`
 */
export async function listRunsForCase(db: Db, caseId: string, o: { maxDepth?: number } = {}) {
  const maxDepth = o.maxDepth ?? 25;
  const depthOf = new Map<string, number>();
  const cases: Array<{ id: string; bundleId: string; depth: number; parentBundleId: string | null }> = [];
  const root = await db.case.findUnique({ where: { id: caseId }, select: { id: true, bundleId: true, parentBundleId: true } });
  if (!root) return { runs: [] as ReplayRunView[], cases };
  depthOf.set(root.id, 0);
  cases.push({ ...root, depth: 0 });
  let frontier = [root];
  const rows: RunRowWithRefs[] = [];
  for (let depth = 0; frontier.length && depth <= maxDepth; depth++) {
    const ids = frontier.map((c) => c.id);
    const [runs, children] = await Promise.all([
      db.replayRun.findMany({ where: { sourceCaseId: { in: ids } }, include: viewInclude }),
      db.case.findMany({ where: { parentBundleId: { in: frontier.map((c) => c.bundleId) } }, select: { id: true, bundleId: true, parentBundleId: true } }),
    ]);
    rows.push(...runs);
    const resultIds = runs.map((r) => r.resultCaseId).filter((id): id is string => !!id && !depthOf.has(id));
    const viaRuns = resultIds.length
      ? await db.case.findMany({ where: { id: { in: resultIds } }, select: { id: true, bundleId: true, parentBundleId: true } })
      : [];
    const next: typeof frontier = [];
    for (const c of [...children, ...viaRuns]) {
      if (depthOf.has(c.id)) continue;
      depthOf.set(c.id, depth + 1);
      cases.push({ ...c, depth: depth + 1 });
      next.push(c);
    }
    frontier = next;
  }
  const views = rows
    .map((r) => ({ ...toView(r), depth: depthOf.get(r.sourceCaseId) ?? 0 }))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  return { runs: views, cases };
}
