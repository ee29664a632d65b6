/**
 * ReplayWorker: takes queued replay runs (rows of ReplayRun) and executes them, one or a few at a
 * time, in this process. The backends (./backends.ts) decide how it learns about runs: a polling
 * loop (`start()`, SQLite) or pg-boss deliveries (`processRun(runId)`, PostgreSQL).
 *
 * Per run: claim (conditional update queued → running) → build the spec (exportBundle of the
 * source case; upstream/model/toolUpstream from the run's endpoint) → run the executor with an
 * AbortSignal → every ~500 ms poll cancelRequested, every ~1 s heartbeat with the latest progress
 * → finishRun. On stop(): no new claims; the current run gets `graceMs` to finish, then its signal
 * fires (reason "shutdown") and it is marked interrupted (retryable).
 */
import { evaluateReplay } from "../services/replay-evaluate";
import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Db } from "../db/client";
import { exportBundle } from "../db/cases";
import { loadRunnerRegistry, planReplay, type RegisteredRunner } from "../services/runners";
import {
  claimNextRun,
  claimRun,
  finishRun,
  getRunControl,
  heartbeat,
  interruptRun,
  markInterrupted,
  parseEndpoint,
  parseProgress,
  type ClaimedRun,
  type ReplayRunStatus,
} from "../db/replay-runs";
import type { JobReplayProgress, JobReplayResult, JobReplaySpec, ReplayExecutor } from "./types";

export interface ReplayWorkerOptions {
  db: Db;
  /** Stable name of this worker in the rows (default host:pid:random). */
  workerId?: string;
  /** Default: lib/services/replay-exec.ts `executeReplay` (loaded on first use). */
  executor?: ReplayExecutor;
  /** Runs executed at once by this worker (default 1). */
  concurrency?: number;
  /** Heartbeat + progress save interval (default 1000 ms). */
  heartbeatMs?: number;
  /** cancelRequested poll interval (default 500 ms). */
  cancelPollMs?: number;
  /** Polling loop: wait between empty polls (default 1000 ms). */
  idlePollMs?: number;
  /** A running run without heartbeat for this long is interrupted (default 30 s). */
  staleAfterMs?: number;
  /** One line per run (default: stderr). */
  log?: (line: string) => void;
  /** The registered runners (default: loadRunnerRegistry() of this server, read per run). */
  runners?: readonly RegisteredRunner[];
}

export const DEFAULT_STALE_AFTER_MS = 30_000;

/** Default worker id: host:pid:random (unique across machines and restarts). */
export function newWorkerId(prefix = ""): string {
  return `${prefix}${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

let defaultExecutor: Promise<ReplayExecutor> | null = null;
/** executeReplay from lib/services/replay-exec.ts, imported lazily (tests never load it). */
export function loadDefaultExecutor(): Promise<ReplayExecutor> {
  defaultExecutor ??= import("./default-executor").then((m) => m.defaultExecutor);
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
    ...(e.model ? { model: e.model } : {}),
    ...(e.command ? { command: e.command } : {}),
    newBundleId: `${source.id}~replay-${run.id}`,
  };
}

interface Execution {
  runId: string;
  controller: AbortController;
  done: Promise<void>;
  /** Set by stop(): the run was released (interrupted), whatever the executor does next. */
  released: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class ReplayWorker {
  readonly id: string;
  readonly db: Db;
  private readonly opts: Required<Omit<ReplayWorkerOptions, "db" | "workerId" | "executor" | "runners">> & { executor?: ReplayExecutor; runners?: readonly RegisteredRunner[] };
  private readonly active = new Map<string, Execution>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private lastSweep = 0;

  constructor(o: ReplayWorkerOptions) {
    this.db = o.db;
    this.id = o.workerId ?? newWorkerId();
    this.opts = {
      executor: o.executor,
      runners: o.runners,
      concurrency: Math.max(1, o.concurrency ?? 1),
      heartbeatMs: o.heartbeatMs ?? 1000,
      cancelPollMs: o.cancelPollMs ?? 500,
      idlePollMs: o.idlePollMs ?? 1000,
      staleAfterMs: o.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
      log: o.log ?? ((line) => process.stderr.write(line + "\n")),
    };
  }

  /** Run ids this worker is executing now. */
  get activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  get stopped(): boolean {
    return this.stopping;
  }

  /** Mark runs of dead workers interrupted (markInterrupted with this worker's staleAfterMs). */
  async sweep(): Promise<string[]> {
    this.lastSweep = Date.now();
    const ids = await markInterrupted(this.db, { staleAfterMs: this.opts.staleAfterMs });
    for (const id of ids) this.opts.log(`replay ${id} interrupted (no heartbeat for ${this.opts.staleAfterMs} ms) [swept by ${this.id}]`);
    return ids;
  }

  /** Sweep when the last sweep is older than half the staleness window. */
  async maybeSweep(): Promise<void> {
    if (Date.now() - this.lastSweep >= Math.max(1000, this.opts.staleAfterMs / 2)) await this.sweep();
  }

  /**
   * Claim the oldest queued run and execute it to the end.
   * @returns the run id, or null when nothing was queued
   */
  async runNext(): Promise<string | null> {
    if (this.stopping) return null;
    const row = await claimNextRun(this.db, this.id);
    if (!row) return null;
    await this.track(row);
    return row.id;
  }

  /**
   * Execute one given run if it can still be claimed (pg-boss delivery; a duplicate delivery or
   * a cancelled run is a no-op).
   * @returns true when this call executed it
   */
  async processRun(runId: string): Promise<boolean> {
    if (this.stopping) return false;
    const row = await claimRun(this.db, runId, this.id);
    if (!row) return false;
    if (this.stopping) {
      // Stop began while the claim was in flight: release the run at once.
      const ok = await interruptRun(this.db, row.id, this.id, `worker ${this.id} shut down before starting the run`).catch(() => false);
      if (ok) this.opts.log(`replay ${row.id} interrupted (worker shut down before starting it) [${this.id}]`);
      return false;
    }
    await this.track(row);
    return true;
  }

  /** Start the polling loop (idempotent): sweep, then claim while there is room, else wait. */
  start(): void {
    if (this.loop || this.stopping) return;
    this.loop = (async () => {
      await this.sweep().catch((e) => this.opts.log(`replay worker ${this.id}: sweep failed: ${errorText(e)}`));
      while (!this.stopping) {
        try {
          await this.maybeSweep();
          if (this.active.size < this.opts.concurrency) {
            const row = await claimNextRun(this.db, this.id);
            if (row) {
              void this.track(row);
              continue;
            }
          }
        } catch (e) {
          this.opts.log(`replay worker ${this.id}: ${errorText(e)}`);
        }
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, this.opts.idlePollMs);
          this.wakeUp = done;
          function done() {
            clearTimeout(t);
            resolve();
          }
        });
        this.wakeUp = null;
      }
    })();
  }

  /** Poll now instead of after idlePollMs (runs were just queued in this process). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Stop: no new claims; wait up to `graceMs` (default 5 s) for running runs, then abort them
   * (reason "shutdown") and mark them interrupted (retryable). Resolves when no run is held.
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.stopping = true;
    this.wake();
    const grace = o.graceMs ?? 5000;
    const all = () => Promise.all([...this.active.values()].map((x) => x.done));
    const finished = await Promise.race([all().then(() => true), sleep(grace).then(() => false)]);
    if (!finished) {
      for (const x of this.active.values()) {
        x.released = true;
        if (!x.controller.signal.aborted) x.controller.abort("shutdown");
      }
      // The executor gets a moment to return "cancelled"; the run is released either way.
      await Promise.race([all(), sleep(Math.min(2000, Math.max(200, grace / 2)))]);
      for (const x of this.active.values()) {
        const ok = await interruptRun(this.db, x.runId, this.id, `worker ${this.id} shut down mid-run`).catch(() => false);
        if (ok) this.opts.log(`replay ${x.runId} interrupted (worker shut down) [${this.id}]`);
      }
    }
    await this.loop?.catch(() => {});
    // Whatever raced with the stop (a claim in flight, a late delivery): a worker that stops
    // never leaves a run of its own "running".
    const mine = await this.db.replayRun.findMany({ where: { status: "running", workerId: this.id }, select: { id: true } }).catch(() => []);
    for (const r of mine) {
      const ok = await interruptRun(this.db, r.id, this.id, `worker ${this.id} shut down mid-run`).catch(() => false);
      if (ok) this.opts.log(`replay ${r.id} interrupted (worker shut down) [${this.id}]`);
    }
  }

  private track(row: ClaimedRun): Promise<void> {
    const controller = new AbortController();
    const x: Execution = { runId: row.id, controller, released: false, done: Promise.resolve() };
    x.done = this.execute(row, x).finally(() => {
      this.active.delete(row.id);
      this.wake();
    });
    this.active.set(row.id, x);
    return x.done;
  }

  private async execute(row: ClaimedRun, x: Execution): Promise<void> {
    const t0 = Date.now();
    const { signal } = x.controller;
    let progress: JobReplayProgress = parseProgress(row.progressJson);
    let dirty = true;
    let lastBeat = Date.now();
    let tickBusy: Promise<void> | null = null;
    const tick = async () => {
      try {
        let cancel: boolean;
        if (Date.now() - lastBeat >= this.opts.heartbeatMs) {
          lastBeat = Date.now();
          const p = dirty ? progress : null;
          dirty = false;
          const r = await heartbeat(this.db, row.id, this.id, p);
          cancel = r.cancelRequested;
        } else {
          const c = await getRunControl(this.db, row.id);
          cancel = !c || c.cancelRequested;
        }
        if (cancel && !signal.aborted) x.controller.abort("cancel");
      } catch (e) {
        this.opts.log(`replay ${row.id}: heartbeat failed: ${errorText(e)}`);
      }
    };
    const timer = setInterval(() => {
      if (!tickBusy) tickBusy = tick().finally(() => (tickBusy = null));
    }, this.opts.cancelPollMs);

    let result: JobReplayResult;
    try {
      const executor = this.opts.executor ?? (await loadDefaultExecutor());
      const spec = await buildReplaySpec(this.db, row, this.opts.runners ?? loadRunnerRegistry());
      result = await executor(spec, {
        signal,
        onProgress: (p) => {
          progress = { ...progress, ...p };
          dirty = true;
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
    } finally {
      clearInterval(timer);
      await tickBusy;
    }

    let status: ReplayRunStatus | string = result.status;
    try {
      if (signal.reason === "shutdown" && result.status === "cancelled") {
        // Cancelled by our own shutdown, not by a user: the run is released for a retry.
        await interruptRun(this.db, row.id, this.id, `worker ${this.id} shut down mid-run`);
        status = "interrupted";
      } else {
        // Persist the last progress before the final write (finishRun merges it).
        if (dirty) await heartbeat(this.db, row.id, this.id, progress).catch(() => {});
        const fin = await finishRun(this.db, row.id, this.id, result);
        status = fin.recorded ? fin.status : `${result.status} (not recorded: run is ${fin.status})`;
      }
    } catch (e) {
      status = `failed to record ${result.status}: ${errorText(e)}`;
      // Never leave the row running with a result in hand: record the failure if we still can.
      await finishRun(this.db, row.id, this.id, { status: "failed", error: `recording the result failed: ${errorText(e)}`, verified: progress.verified }).catch(() => {});
    }
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    this.opts.log(
      `replay ${row.id} ${status} verified=${progress.verified}/${progress.prefixTotal ?? "?"} liveCalls=${progress.liveCalls} ${secs}s [${this.id}]` +
        (x.released ? " (released at shutdown)" : ""),
    );
  }
}
