/**
 * Job kind "experiment-attempt" (issue 13): one ExperimentAttempt row = one job per (case, method,
 * attempt) of an experiment (lib/db/experiments.ts). An expiry lease; a worker that dies stops
 * renewing and any other worker takes the attempt over once the lease expired (claims + 1; the
 * third death → error); only the lease holder records, so an attempt is counted once.
 *
 * Handler: context (frozen settings; the source case exported as a bundle; its registered runner
 * via planReplay; the frozen reference; earlier attempts of a task-level chain; the derived seed)
 * → budget check (exhausted: not run, cancelled) → `method.skipReason` (skipped) → `method.run(ctx)`
 * with the worker's AbortSignal (cancel / budget stop / lost lease / shutdown; in an experiment
 * without a budget the slot is handed back once the MAS run is over, JobContext.handOff) → the attempt's
 * bundle imported as a case (`<source>~exp-<experiment>-<method>-a<k>`, sourceDataset
 * "experiment") → finishAttempt (creates the next row of a task-level chain, enqueued) → budget
 * check → completeIfDone.
 *
 * The method registry is injected (`methods`); the default is `METHODS` of
 * lib/services/experiments/methods (loadDefaultMethods). Fake methods stamp the experiment.
 */
import { createHash } from "node:crypto";
import type { ReplayBundle } from "../../bundle";
import type { Db } from "../../db/client";
import { exportBundle, importCase } from "../../db/cases";
import {
  ATTEMPT_LEASE,
  checkBudget,
  claimAttempt,
  claimNextAttempt,
  completeIfDone,
  finishAttempt,
  listClaimableAttemptIds,
  releaseAttempt,
  renewAttemptLease,
  stampFakeExperiment,
  sweepExperiments,
  type ClaimedAttempt,
} from "../../db/experiments";
import { listHeld } from "../../db/leases";
import { loadRunnerRegistry, planReplay, type RegisteredRunner } from "../../services/runners";
import { enqueueJobs, JOB_QUEUES } from "../backends";
import { AttemptContextCache } from "./attempt-context-cache";
import { errorText, type JobKind } from "../job-worker";
import type { AttemptContext, AttemptOutcome, CaseReference, ExperimentCaseInput, ExperimentSettings, MethodName, MethodRegistry } from "../../services/experiments/methods/types";

export const EXPERIMENT_QUEUE = JOB_QUEUES["experiment-attempt"].name;
export const DEFAULT_LEASE_MS = 30_000;

export interface ExperimentKindOptions {
  /** The method registry (default: loadDefaultMethods()). */
  methods?: MethodRegistry;
  /** Only attempts of this experiment (the CLI). */
  experimentId?: string;
  /** The runner this worker was started for: only experiments reserved for it (`Experiment.runner`); default null = experiments any worker may claim. */
  runner?: string | null;
  /** Registered runners (default: this server's registry). */
  runners?: readonly RegisteredRunner[];
}

let defaultMethods: Promise<MethodRegistry> | null = null;
/**
 * `METHODS` of lib/services/experiments/methods (helper A's registry), loaded on first use.
 * @throws Error while that module is not part of this build
 */
export function loadDefaultMethods(): Promise<MethodRegistry> {
  defaultMethods ??= import("../experiment-methods").then((m) => m.loadMethodRegistry());
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

/**
 * The input of a claimed attempt: frozen settings, the case (bundle exported from the database,
 * runner resolved from `registry`, frozen reference) and the earlier attempts of its chain.
 * @param cache a worker's kept settings and source bundles (./attempt-context-cache.ts; the same
 *   context, fewer queries); without it everything is read from the database
 * @throws Error when the experiment or the source case is gone
 */
export async function buildAttemptContext(
  db: Db,
  row: Pick<ClaimedAttempt, "experimentId" | "experimentCaseId" | "method" | "attempt">,
  registry: readonly RegisteredRunner[],
  signal: AbortSignal,
  cache?: AttemptContextCache,
): Promise<Omit<AttemptContext, "onProgress">> {
  const settingsJson = cache ? await cache.settingsJson(db, row.experimentId) : (await db.experiment.findUnique({ where: { id: row.experimentId }, select: { settingsJson: true } }))?.settingsJson;
  if (settingsJson == null) throw new Error(`experiment ${row.experimentId} no longer exists`);
  const settings = JSON.parse(settingsJson) as ExperimentSettings;
  const ec = cache ? await cache.experimentCase(db, row.experimentCaseId) : await db.experimentCase.findUnique({ where: { id: row.experimentCaseId } });
  if (!ec) throw new Error(`experiment case ${row.experimentCaseId} no longer exists`);
  const bundle = cache
    ? await cache.sourceBundle(db, ec)
    : ((ec.caseId ? await exportBundle(db, { caseId: ec.caseId }) : null) ?? (await exportBundle(db, { bundleId: ec.bundleId })));
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
  // Attempt 1 has no earlier attempts (numbers start at 1): nothing to read.
  const earlier =
    row.attempt <= 1
      ? []
      : await db.experimentAttempt.findMany({
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


/** The experiment-attempt job kind with its method registry (and, for the CLI, one experiment). */
export function experimentAttemptKind(o: ExperimentKindOptions = {}): JobKind<ClaimedAttempt> {
  const methods = () => (o.methods ? Promise.resolve(o.methods) : loadDefaultMethods());
  const stamped = new Set<string>();
  // Settings, source bundles and "has a budget" kept between this worker's attempts.
  const cache = new AttemptContextCache();
  return {
    name: "experiment-attempt",
    label: "attempt",
    released: "released",
    queue: JOB_QUEUES["experiment-attempt"],
    leaseMs: DEFAULT_LEASE_MS,
    cancel: "abort",
    claim: (db, id, owner, leaseMs) => claimAttempt(db, id, owner, leaseMs, { runner: o.runner }),
    claimNext: (db, owner, leaseMs) => claimNextAttempt(db, owner, leaseMs, { experimentId: o.experimentId, runner: o.runner }),
    claimable: (db, c) => listClaimableAttemptIds(db, { experimentId: o.experimentId, olderThanMs: c.olderThanMs, runner: o.runner }),
    renew: async (db, id, owner, leaseMs, progress) => {
      const r = await renewAttemptLease(db, id, owner, leaseMs, progress as { phase: string; liveCalls: number } | null);
      return { owned: r.owned, cancel: !!r.stop };
    },
    release: (db, id, owner) => releaseAttempt(db, id, owner),
    sweep: (db) => sweepExperiments(db),
    held: (db, owner) => listHeld(db, ATTEMPT_LEASE, owner),
    prepare: async () => {
      await methods();
    },
    run: async (row, ctx) => {
      const t0 = Date.now();
      const { db, signal } = ctx;
      const label = `attempt ${row.id} (${row.method} #${row.attempt})`;
      let outcome: AttemptOutcome;
      let c: Omit<AttemptContext, "onProgress"> | null = null;
      let budgeted = true;
      try {
        const registry = await methods();
        c = await buildAttemptContext(db, row, o.runners ?? loadRunnerRegistry(), signal, cache);
        const method = registry[row.method];
        budgeted = await cache.mayHaveBudget(db, row.experimentId);
        if (budgeted && (await checkBudget(db, row.experimentId))) {
          outcome = outcomeOf("cancelled", { skipReason: "not run: budget exhausted" });
        } else if (!method) {
          outcome = outcomeOf("error", { error: `method "${row.method}" is not available on this worker` });
        } else {
          if (method.fake && !stamped.has(row.experimentId)) {
            // anything fake leaves its trace: the experiment's frozen settings say so (and so its report)
            await stampFakeExperiment(db, row.experimentId, method.fake);
            cache.forgetSettings(row.experimentId);
            stamped.add(row.experimentId);
          }
          const skip = method.skipReason(c.case, c.settings);
          if (skip) outcome = outcomeOf("skipped", { skipReason: skip });
          // Without a budget, the worker starts its next attempt while this one is evaluated and
          // recorded (with one, the budget check before a start must see every earlier attempt's calls).
          else outcome = await method.run({ ...c, onProgress: (p) => ctx.progress(p), ...(budgeted ? {} : { onMasDone: () => ctx.handOff() }) });
        }
      } catch (e) {
        outcome = outcomeOf("error", { error: errorText(e) });
      }
      await ctx.settle();

      if (ctx.lost() || signal.reason === "lost-lease") {
        ctx.log(`${label} lost its lease; its result is not recorded [${ctx.workerId}]`);
        return;
      }
      if (signal.reason === "shutdown") {
        await releaseAttempt(db, row.id, ctx.workerId).catch(() => false);
        ctx.log(`${label} released (worker shut down) [${ctx.workerId}]`);
        return;
      }
      if (signal.reason === "cancel" && outcome.status !== "cancelled") {
        outcome = { ...outcome, status: "cancelled", passed: null, skipReason: outcome.skipReason ?? "stopped while running: the experiment was cancelled or ran out of budget" };
      }

      let bundleId: string | null = null;
      if (outcome.bundle && c && (outcome.status === "passed" || outcome.status === "failed" || outcome.status === "error")) {
        try {
          bundleId = await storeBundle(db, row, c.case.bundle, outcome);
        } catch (e) {
          outcome = { ...outcome, status: "error", passed: false, error: `the attempt's bundle could not be stored: ${errorText(e)}` };
        }
      }
      try {
        const fin = await finishAttempt(db, row.id, ctx.workerId, outcome, { bundleId });
        if (fin.recorded) ctx.count("recorded");
        if (fin.nextAttemptId) await ctx.enqueue([fin.nextAttemptId]);
        ctx.log(
          `${label} ${fin.recorded ? outcome.status : `${outcome.status} (not recorded: lease lost)`} calls=${outcome.calls}+${outcome.auxCalls} tokens=${outcome.tokens.total} ${((Date.now() - t0) / 1000).toFixed(1)}s [${ctx.workerId}]`,
        );
        if (budgeted) await checkBudget(db, row.experimentId);
        await completeIfDone(db, row.experimentId);
      } catch (e) {
        ctx.log(`${label}: recording failed: ${errorText(e)} (the lease expires and the attempt is run again)`);
      }
    },
  };
}

/** Import the attempt's bundle as a case with a deterministic id (idempotent). @returns its bundle id */
async function storeBundle(db: Db, row: ClaimedAttempt, source: ReplayBundle, outcome: AttemptOutcome): Promise<string> {
  const b = outcome.bundle as ReplayBundle;
  const id = attemptBundleId(source.id, row.experimentId, row.method, row.attempt);
  const parent = b.parent ?? (outcome.anchorNodeId ? { bundleId: source.id, targetNodeId: outcome.anchorNodeId, guidance: outcome.guidance ?? "", mode: "selective" } : null);
  const bundle: ReplayBundle = { ...b, id, ...(parent ? { parent } : {}) };
  await importCase(db, { bundle, source: { dataset: "experiment" as never, file: row.experimentId, recordKey: `${row.method}#${row.attempt}` } });
  return id;
}

/** Enqueue every claimable attempt of an experiment (after create, or to resume one; enqueueJobs). @returns jobs sent (0 on SQLite) */
export async function enqueueExperiment(db: Db, experimentId: string, o: { url?: string } = {}): Promise<number> {
  return enqueueJobs(db, "experiment-attempt", await listClaimableAttemptIds(db, { experimentId }), o);
}
