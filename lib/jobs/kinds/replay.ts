/**
 * Job kind "replay" (issue 13 item 1): one ReplayRun row = one selective replay. Claimed from
 * `queued` only, with a heartbeat lease; a run whose worker died is never taken over — the sweep
 * marks it `interrupted` (retryReplayRun queues a new run). The handler builds the executor's spec
 * (the source case exported as a bundle, the registered runner it names, the run's endpoint), runs
 * the executor (default lib/services/replay-exec.ts through ../default-executor.ts) with the
 * worker's AbortSignal and progress, evaluates a completed replay when SYMTRACE_REPLAY_EVALUATOR is
 * set, and records the outcome with finishRun (shutdown → interrupted, retryable).
 */
import type { Db } from "../../db/client";
import { exportBundle } from "../../db/cases";
import {
  DEFAULT_REPLAY_STALE_MS,
  claimNextRun,
  claimRun,
  finishRun,
  getRunControl,
  heartbeat,
  interruptRun,
  markInterrupted,
  parseEndpoint,
  parseProgress,
  REPLAY_LEASE,
  type ClaimedRun,
  type ReplayRunStatus,
} from "../../db/replay-runs";
import { listClaimable, listHeld } from "../../db/leases";
import { evaluateReplay } from "../../services/replay-evaluate";
import { loadRunnerRegistry, planReplay, type RegisteredRunner } from "../../services/runners";
import { JOB_QUEUES } from "../backends";
import { errorText, type JobKind } from "../job-worker";
import type { JobReplayProgress, JobReplayResult, JobReplaySpec, ReplayExecutor } from "../types";

export const REPLAY_QUEUE = JOB_QUEUES.replay.name;

export interface ReplayKindOptions {
  /** Default: lib/services/replay-exec.ts `executeReplay` (loaded on first use). */
  executor?: ReplayExecutor;
  /** The registered runners (default: loadRunnerRegistry() of this server, read per run). */
  runners?: readonly RegisteredRunner[];
}

let defaultExecutor: Promise<ReplayExecutor> | null = null;
/** executeReplay from lib/services/replay-exec.ts, imported lazily (tests never load it). */
export function loadDefaultExecutor(): Promise<ReplayExecutor> {
  defaultExecutor ??= import("../default-executor").then((m) => m.defaultExecutor);
  return defaultExecutor;
}

/**
 * The executor's input for a claimed run: the source case exported as a bundle, the registered
 * runner it names (planReplay over `registry`, default this server's; null → transcript
 * continuation), the endpoint of the run, and a deterministic id for the bundle it produces (`<source id>~replay-<run id>`).
 * @throws Error when the source case is gone
 */
export async function buildReplaySpec(
  db: Db,
  run: Pick<ClaimedRun, "id" | "sourceCaseId" | "targetNodeId" | "guidance" | "endpointJson">,
  registry: readonly RegisteredRunner[] = loadRunnerRegistry(),
): Promise<JobReplaySpec> {
  const source = await exportBundle(db, { caseId: run.sourceCaseId });
  if (!source) throw new Error(`source case ${run.sourceCaseId} no longer exists`);
  const e = parseEndpoint(run.endpointJson);
  // The runner is resolved here, from this server's registry: a bundle's own command is never run.
  const plan = planReplay(source, registry);
  return {
    runner: plan.runner,
    source,
    targetNodeId: run.targetNodeId,
    guidance: run.guidance,
    upstream: e.upstream,
    toolUpstream: e.toolUpstream ?? null,
    ...(e.anthropicUpstream ? { anthropicUpstream: e.anthropicUpstream } : {}),
    ...(e.model ? { model: e.model } : {}),
    ...(e.command ? { command: e.command } : {}),
    newBundleId: `${source.id}~replay-${run.id}`,
  };
}

/** The replay job kind with its executor and runner registry. */
export function replayKind(o: ReplayKindOptions = {}): JobKind<ClaimedRun> {
  return {
    name: "replay",
    label: "replay",
    released: "interrupted",
    queue: JOB_QUEUES.replay,
    leaseMs: DEFAULT_REPLAY_STALE_MS,
    renewMs: 1000,
    controlPollMs: 500,
    cancel: "abort",
    claim: (db, id, owner) => claimRun(db, id, owner),
    claimNext: (db, owner) => claimNextRun(db, owner),
    claimable: (db, c) => listClaimable(db, REPLAY_LEASE, { leaseMs: DEFAULT_REPLAY_STALE_MS, take: 500, olderThanMs: c.olderThanMs }),
    renew: async (db, id, owner, _leaseMs, progress) => {
      const r = await heartbeat(db, id, owner, progress as JobReplayProgress | null);
      return { owned: r.owned, cancel: r.cancelRequested };
    },
    control: async (db, id) => {
      const c = await getRunControl(db, id);
      return { cancel: !c || c.cancelRequested };
    },
    release: (db, id, owner, reason) => interruptRun(db, id, owner, reason),
    sweep: (db, leaseMs) => markInterrupted(db, { staleAfterMs: leaseMs }),
    held: (db, owner) => listHeld(db, REPLAY_LEASE, owner),
    run: async (row, ctx) => {
      const t0 = Date.now();
      const { db, signal } = ctx;
      let progress: JobReplayProgress = parseProgress(row.progressJson);
      ctx.progress(progress);
      let result: JobReplayResult;
      try {
        const executor = o.executor ?? (await loadDefaultExecutor());
        const spec = await buildReplaySpec(db, row, o.runners ?? loadRunnerRegistry());
        result = await executor(spec, {
          signal,
          onProgress: (p) => {
            progress = { ...progress, ...p };
            ctx.progress(progress);
          },
        });
        // The outcome of the replayed run, when an evaluator command is configured.
        if (result.status === "completed") {
          const command = process.env.SYMTRACE_REPLAY_EVALUATOR;
          const outcome = await evaluateReplay(result.bundle, command);
          // The source's outcome for "source → replay": its recorded verdict when it has one,
          // else the same evaluator on its final answer, kept beside the replay's (lib/replay/compare).
          const sourceEvaluation = outcome && typeof spec.source.outcome?.passed !== "boolean" ? await evaluateReplay(spec.source, command) : null;
          if (outcome) result = { ...result, bundle: { ...result.bundle, outcome: sourceEvaluation ? { ...outcome, sourceEvaluation } : outcome } };
        }
      } catch (e) {
        result = { status: "failed", error: errorText(e), verified: progress.verified };
      }
      // Persist the last progress before the final write (finishRun merges it).
      await ctx.flush();
      await ctx.settle();

      let status: ReplayRunStatus | string = result.status;
      const shutdown = signal.reason === "shutdown";
      try {
        if (shutdown && result.status === "cancelled") {
          // Cancelled by our own shutdown, not by a user: the run is released for a retry.
          await interruptRun(db, row.id, ctx.workerId, `worker ${ctx.workerId} shut down mid-run`);
          status = "interrupted";
        } else {
          const fin = await finishRun(db, row.id, ctx.workerId, result);
          status = fin.recorded ? fin.status : `${result.status} (not recorded: run is ${fin.status})`;
        }
      } catch (e) {
        status = `failed to record ${result.status}: ${errorText(e)}`;
        // Never leave the row running with a result in hand: record the failure if we still can.
        await finishRun(db, row.id, ctx.workerId, { status: "failed", error: `recording the result failed: ${errorText(e)}`, verified: progress.verified }).catch(() => {});
      }
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      ctx.log(`replay ${row.id} ${status} verified=${progress.verified}/${progress.prefixTotal ?? "?"} liveCalls=${progress.liveCalls} ${secs}s [${ctx.workerId}]` + (shutdown ? " (released at shutdown)" : ""));
    },
  };
}
