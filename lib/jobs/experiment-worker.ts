/**
 * ExperimentWorker: executes experiment attempts (rows of ExperimentAttempt, lib/db/experiments.ts),
 * one job per (case, method, attempt). Like ReplayWorker (./worker.ts) the row is the truth: a
 * conditional claim with a lease decides who runs an attempt; the lease is renewed while it runs;
 * a worker that dies stops renewing and any other worker reclaims the attempt once the lease has
 * expired (resume after a crash); only the lease owner may record the outcome, so a finished
 * attempt is never re-run nor counted twice.
 *
 * Per attempt: claim → context (frozen settings; the source case exported as a bundle; its
 * registered runner via planReplay; the frozen reference; earlier attempts of a task-level chain;
 * the derived seed) → budget check (exhausted: not run, cancelled) → `method.skipReason` (skipped
 * with the reason) → `method.run(ctx)` with an AbortSignal (cancel / budget stop / lost lease /
 * shutdown) → the attempt's bundle imported as a case (`<source>~exp-<experiment>-<method>-a<k>`,
 * sourceDataset "experiment") → finishAttempt (creates the next row of a task-level chain) →
 * budget check → completeIfDone.
 *
 * The method registry is injected (`methods`); the default is `METHODS` of
 * lib/services/experiments/methods (loadDefaultMethods).
 */
import { createHash } from "node:crypto";
import type { ReplayBundle } from "../bundle";
import type { Db } from "../db/client";
import { exportBundle, importCase } from "../db/cases";
import {
  checkBudget,
  claimAttempt,
  claimNextAttempt,
  completeIfDone,
  finishAttempt,
  releaseAttempt,
  renewLease,
  stampFakeExperiment,
  sweepExperiments,
  type ClaimedAttempt,
} from "../db/experiments";
import { loadRunnerRegistry, planReplay, type RegisteredRunner } from "../services/runners";
import { newWorkerId } from "./worker";
import type { AttemptContext, AttemptOutcome, CaseReference, ExperimentCaseInput, ExperimentSettings, MethodName, MethodRegistry } from "./experiment-types";

export interface ExperimentWorkerOptions {
  db: Db;
  workerId?: string;
  /** The method registry (default: loadDefaultMethods()). */
  methods?: MethodRegistry;
  /** Attempts executed at once (default 1). */
  concurrency?: number;
  /** Lease length (default 30 s); renewed every leaseMs / 3 (or `renewMs`). */
  leaseMs?: number;
  renewMs?: number;
  /** Polling loop: wait between empty polls (default 1000 ms). */
  idlePollMs?: number;
  /** Only attempts of this experiment (the CLI). */
  experimentId?: string;
  /** Registered runners (default: this server's registry). */
  runners?: readonly RegisteredRunner[];
  /** New rows of a task-level chain (PostgreSQL: send their jobs). */
  onNewAttempts?: (ids: string[]) => void | Promise<void>;
  log?: (line: string) => void;
}

export const DEFAULT_LEASE_MS = 30_000;

let defaultMethods: Promise<MethodRegistry> | null = null;
/**
 * `METHODS` of lib/services/experiments/methods (helper A's registry), loaded on first use.
 * @throws Error while that module is not part of this build
 */
export function loadDefaultMethods(): Promise<MethodRegistry> {
  defaultMethods ??= import("./experiment-methods").then((m) => m.loadMethodRegistry());
  defaultMethods.catch(() => (defaultMethods = null));
  return defaultMethods;
}

/**
 * The seed of one attempt: the first 31 bits of sha256("<seed>|<case bundle id>|<method>|<attempt>").
 * Deterministic, so a re-run experiment with the same seed draws the same random choices.
 */
export function attemptSeed(seed: number, caseId: string, method: string, attempt: number): number {
  return createHash("sha256").update(`${seed}|${caseId}|${method}|${attempt}`).digest().readUInt32BE(0) >>> 1;
}

/** Deterministic id of an attempt's stored bundle. */
export function attemptBundleId(sourceBundleId: string, experimentId: string, method: string, attempt: number): string {
  return `${sourceBundleId}~exp-${experimentId}-${method}-a${attempt}`;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function outcomeOf(status: AttemptOutcome["status"], extra: Partial<AttemptOutcome> = {}): AttemptOutcome {
  return {
    status,
    passed: status === "passed" ? true : status === "failed" || status === "error" ? false : null,
    reproduced: null,
    anchorNodeId: null,
    guidance: null,
    bundle: null,
    final: null,
    calls: 0,
    auxCalls: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    error: null,
    skipReason: null,
    masMs: 0,
    judgeReason: null,
    ...extra,
  };
}

interface Execution {
  attemptId: string;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The input of a claimed attempt: frozen settings, the case (bundle exported from the database,
 * runner resolved from `registry`, frozen reference) and the earlier attempts of its chain.
 * @throws Error when the experiment or the source case is gone
 */
export async function buildAttemptContext(
  db: Db,
  row: Pick<ClaimedAttempt, "experimentId" | "experimentCaseId" | "method" | "attempt">,
  registry: readonly RegisteredRunner[],
  signal: AbortSignal,
): Promise<Omit<AttemptContext, "onProgress">> {
  const e = await db.experiment.findUnique({ where: { id: row.experimentId }, select: { settingsJson: true } });
  if (!e) throw new Error(`experiment ${row.experimentId} no longer exists`);
  const settings = JSON.parse(e.settingsJson) as ExperimentSettings;
  const ec = await db.experimentCase.findUnique({ where: { id: row.experimentCaseId } });
  if (!ec) throw new Error(`experiment case ${row.experimentCaseId} no longer exists`);
  const bundle = (ec.caseId ? await exportBundle(db, { caseId: ec.caseId }) : null) ?? (await exportBundle(db, { bundleId: ec.bundleId }));
  if (!bundle) throw new Error(`source case ${ec.bundleId} no longer exists`);
  const plan = planReplay(bundle, registry);
  const ref = ec.referenceJson ? (JSON.parse(ec.referenceJson) as CaseReference & { source?: string; correction?: string | null }) : null;
  const c: ExperimentCaseInput = {
    caseId: ec.bundleId,
    bundle,
    mas: ec.mas,
    benchmark: ec.benchmark,
    task: ec.task,
    reference: ref ? { nodeId: ref.nodeId, primaryCategory: ref.primaryCategory, categories: ref.categories } : null,
    correction: ref?.correction ?? null,
    runner: plan.runner,
  };
  const earlier = await db.experimentAttempt.findMany({
    where: { experimentId: row.experimentId, experimentCaseId: row.experimentCaseId, method: row.method, attempt: { lt: row.attempt } },
    orderBy: { attempt: "asc" },
  });
  const previous: AttemptOutcome[] = [];
  for (const p of earlier) {
    const b = p.bundleId ? await exportBundle(db, { bundleId: p.bundleId }) : null;
    previous.push(
      outcomeOf(p.status as AttemptOutcome["status"], {
        passed: p.passed,
        reproduced: p.reproduced,
        anchorNodeId: p.anchorNodeId,
        guidance: p.guidance,
        bundle: b,
        final: p.finalJson ? JSON.parse(p.finalJson) : null,
        calls: p.calls,
        auxCalls: p.auxCalls,
        tokens: { prompt: p.promptTokens, completion: p.completionTokens, total: p.tokens },
        error: p.error,
        skipReason: p.skipReason,
        masMs: p.masMs,
        judgeReason: p.judgeReason,
      }),
    );
  }
  return {
    case: c,
    method: row.method as MethodName,
    attempt: row.attempt,
    settings,
    seed: attemptSeed(settings.seed, ec.bundleId, row.method, row.attempt),
    previous,
    signal,
  };
}

export class ExperimentWorker {
  readonly id: string;
  readonly db: Db;
  private readonly o: ExperimentWorkerOptions & { concurrency: number; leaseMs: number; renewMs: number; idlePollMs: number; log: (l: string) => void };
  private readonly active = new Map<string, Execution>();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wakeUp: (() => void) | null = null;
  private lastSweep = 0;
  /** Attempts this worker recorded (tests, the CLI). */
  recorded = 0;
  /** Experiments this worker already stamped as run by fake methods. */
  private readonly stamped = new Set<string>();

  constructor(o: ExperimentWorkerOptions) {
    this.db = o.db;
    this.id = o.workerId ?? newWorkerId("exp:");
    const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
    this.o = {
      ...o,
      concurrency: Math.max(1, o.concurrency ?? 1),
      leaseMs,
      renewMs: o.renewMs ?? Math.max(50, Math.floor(leaseMs / 3)),
      idlePollMs: o.idlePollMs ?? 1000,
      log: o.log ?? ((line) => process.stderr.write(line + "\n")),
    };
  }

  get stopped(): boolean {
    return this.stopping;
  }

  get activeAttemptIds(): string[] {
    return [...this.active.keys()];
  }

  /** sweepExperiments (stale attempts of stopping experiments, attempts that killed their workers, completion). */
  async sweep(): Promise<string[]> {
    this.lastSweep = Date.now();
    const ids = await sweepExperiments(this.db);
    for (const id of ids) this.o.log(`attempt ${id} closed by sweep [${this.id}]`);
    return ids;
  }

  private async maybeSweep(): Promise<void> {
    if (Date.now() - this.lastSweep >= Math.max(1000, this.o.leaseMs / 2)) await this.sweep();
  }

  private methods(): Promise<MethodRegistry> {
    return this.o.methods ? Promise.resolve(this.o.methods) : loadDefaultMethods();
  }

  /**
   * Claim the oldest claimable attempt and execute it to the end.
   * @returns the attempt id, or null when nothing was claimable
   */
  async runNext(): Promise<string | null> {
    if (this.stopping) return null;
    const row = await claimNextAttempt(this.db, this.id, this.o.leaseMs, { experimentId: this.o.experimentId });
    if (!row) return null;
    await this.track(row);
    return row.id;
  }

  /**
   * Execute one given attempt if it can be claimed (a pg-boss delivery; a duplicate delivery or
   * a final attempt is a no-op).
   * @returns true when this call executed it
   */
  async processAttempt(attemptId: string): Promise<boolean> {
    if (this.stopping) return false;
    const row = await claimAttempt(this.db, attemptId, this.id, this.o.leaseMs);
    if (!row) return false;
    if (this.stopping) {
      await releaseAttempt(this.db, row.id, this.id).catch(() => false);
      return false;
    }
    await this.track(row);
    return true;
  }

  /** Polling loop (idempotent): sweep, then claim while there is room, else wait idlePollMs. */
  start(): void {
    if (this.loop || this.stopping) return;
    this.loop = (async () => {
      try {
        await this.methods();
      } catch (e) {
        this.o.log(`experiment worker ${this.id}: not taking attempts: ${errorText(e)}`);
        return;
      }
      await this.sweep().catch((e) => this.o.log(`experiment worker ${this.id}: sweep failed: ${errorText(e)}`));
      while (!this.stopping) {
        try {
          await this.maybeSweep();
          if (this.active.size < this.o.concurrency) {
            const row = await claimNextAttempt(this.db, this.id, this.o.leaseMs, { experimentId: this.o.experimentId });
            if (row) {
              void this.track(row);
              continue;
            }
          }
        } catch (e) {
          this.o.log(`experiment worker ${this.id}: ${errorText(e)}`);
        }
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, this.o.idlePollMs);
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

  /** Poll now (attempts were just queued in this process). */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Stop: no new claims; running attempts get `graceMs` (default 5 s), then are aborted
   * ("shutdown") and released back to `queued` for another worker (never recorded half-done).
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.stopping = true;
    this.wake();
    const grace = o.graceMs ?? 5000;
    const all = () => Promise.all([...this.active.values()].map((x) => x.done));
    const finished = await Promise.race([all().then(() => true), sleep(grace).then(() => false)]);
    if (!finished) {
      for (const x of this.active.values()) if (!x.controller.signal.aborted) x.controller.abort("shutdown");
      await Promise.race([all(), sleep(Math.min(2000, Math.max(200, grace / 2)))]);
      for (const x of this.active.values()) await releaseAttempt(this.db, x.attemptId, this.id).catch(() => false);
    }
    await this.loop?.catch(() => {});
    const mine = await this.db.experimentAttempt.findMany({ where: { status: "running", leaseOwner: this.id }, select: { id: true } }).catch(() => []);
    for (const r of mine) await releaseAttempt(this.db, r.id, this.id).catch(() => false);
  }

  private track(row: ClaimedAttempt): Promise<void> {
    const controller = new AbortController();
    const x: Execution = { attemptId: row.id, controller, done: Promise.resolve() };
    x.done = this.execute(row, controller).finally(() => {
      this.active.delete(row.id);
      this.wake();
    });
    this.active.set(row.id, x);
    return x.done;
  }

  private async execute(row: ClaimedAttempt, controller: AbortController): Promise<void> {
    const t0 = Date.now();
    const { signal } = controller;
    const label = `attempt ${row.id} (${row.method} #${row.attempt})`;
    let progress: { phase: string; liveCalls: number } = { phase: "starting", liveCalls: 0 };
    let dirty = false;
    let lost = false;
    let busy: Promise<void> | null = null;
    const renew = async () => {
      try {
        const r = await renewLease(this.db, row.id, this.id, this.o.leaseMs, dirty ? progress : null);
        dirty = false;
        if (!r.owned) {
          lost = true;
          if (!signal.aborted) controller.abort("lost-lease");
        } else if (r.stop && !signal.aborted) controller.abort("cancel");
      } catch (e) {
        this.o.log(`${label}: lease renewal failed: ${errorText(e)}`);
      }
    };
    const timer = setInterval(() => {
      if (!busy) busy = renew().finally(() => (busy = null));
    }, this.o.renewMs);

    let outcome: AttemptOutcome;
    let ctx: Omit<AttemptContext, "onProgress"> | null = null;
    try {
      const methods = await this.methods();
      ctx = await buildAttemptContext(this.db, row, this.o.runners ?? loadRunnerRegistry(), signal);
      const method = methods[row.method];
      if (await checkBudget(this.db, row.experimentId)) {
        outcome = outcomeOf("cancelled", { skipReason: "not run: budget exhausted" });
      } else if (!method) {
        outcome = outcomeOf("error", { error: `method "${row.method}" is not available on this worker` });
      } else {
        if (method.fake && !this.stamped.has(row.experimentId)) {
          // anything fake leaves its trace: the experiment's frozen settings say so (and so its report)
          await stampFakeExperiment(this.db, row.experimentId, method.fake);
          this.stamped.add(row.experimentId);
        }
        const skip = method.skipReason(ctx.case, ctx.settings);
        if (skip) outcome = outcomeOf("skipped", { skipReason: skip });
        else {
          outcome = await method.run({
            ...ctx,
            onProgress: (p) => {
              progress = p;
              dirty = true;
            },
          });
        }
      }
    } catch (e) {
      outcome = outcomeOf("error", { error: errorText(e) });
    } finally {
      clearInterval(timer);
      await busy;
    }

    if (lost || signal.reason === "lost-lease") {
      this.o.log(`${label} lost its lease; its result is not recorded [${this.id}]`);
      return;
    }
    if (signal.reason === "shutdown") {
      await releaseAttempt(this.db, row.id, this.id).catch(() => false);
      this.o.log(`${label} released (worker shut down) [${this.id}]`);
      return;
    }
    if (signal.reason === "cancel" && outcome.status !== "cancelled") {
      outcome = { ...outcome, status: "cancelled", passed: null, skipReason: outcome.skipReason ?? "stopped while running: the experiment was cancelled or ran out of budget" };
    }

    let bundleId: string | null = null;
    if (outcome.bundle && ctx && (outcome.status === "passed" || outcome.status === "failed" || outcome.status === "error")) {
      try {
        bundleId = await this.storeBundle(row, ctx.case.bundle, outcome);
      } catch (e) {
        outcome = { ...outcome, status: "error", passed: false, error: `the attempt's bundle could not be stored: ${errorText(e)}` };
      }
    }
    try {
      const fin = await finishAttempt(this.db, row.id, this.id, outcome, { bundleId });
      if (fin.recorded) this.recorded++;
      if (fin.nextAttemptId) await this.o.onNewAttempts?.([fin.nextAttemptId]);
      this.o.log(
        `${label} ${fin.recorded ? outcome.status : `${outcome.status} (not recorded: lease lost)`} calls=${outcome.calls}+${outcome.auxCalls} tokens=${outcome.tokens.total} ${((Date.now() - t0) / 1000).toFixed(1)}s [${this.id}]`,
      );
      await checkBudget(this.db, row.experimentId);
      await completeIfDone(this.db, row.experimentId);
    } catch (e) {
      this.o.log(`${label}: recording failed: ${errorText(e)} (the lease expires and the attempt is run again)`);
    }
  }

  /** Import the attempt's bundle as a case with a deterministic id (idempotent). @returns its bundle id */
  private async storeBundle(row: ClaimedAttempt, source: ReplayBundle, outcome: AttemptOutcome): Promise<string> {
    const b = outcome.bundle as ReplayBundle;
    const id = attemptBundleId(source.id, row.experimentId, row.method, row.attempt);
    const parent = b.parent ?? (outcome.anchorNodeId ? { bundleId: source.id, targetNodeId: outcome.anchorNodeId, guidance: outcome.guidance ?? "", mode: "selective" } : null);
    const bundle: ReplayBundle = { ...b, id, ...(parent ? { parent } : {}) };
    await importCase(this.db, { bundle, source: { dataset: "experiment" as never, file: row.experimentId, recordKey: `${row.method}#${row.attempt}` } });
    return id;
  }
}
