/**
 * The attribution benchmark end to end (issue 24 item 2): load Who&When records from files, create
 * or resume the run in the database (lib/db/attribution-runs.ts: one job per attributor × setting ×
 * case), run its jobs with an in-process worker of the job layer (lib/jobs kind "attribution") on
 * the configured endpoint (./llm.ts, every call cached) — or only hand them to the workers
 * (background) — and build the lib/attribution table (per subset, with and without ground truth,
 * published figures beside).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ATTRIBUTORS, attributionCaseFromBundle, buildTable, formatTable, LATER_BEST, type AttributionCase, type AttributionLlm, type AttributorName, type TableRow } from "../../attribution";
import { attributionRunResults, attributionRunState, getAttributionRunById, listClaimableAttributionJobIds, startAttributionRun, type AttributionPlanItem, type AttributionRunView, type Db } from "../../db";
import { importText } from "../../importers";
import { createWorker, enqueueJobs, newWorkerId } from "../../jobs";

function walk(p: string): string[] {
  const s = statSync(p);
  if (s.isDirectory()) return readdirSync(p).sort((a, b) => a.localeCompare(b, "en", { numeric: true })).flatMap((f) => walk(path.join(p, f)));
  return p.endsWith(".json") ? [p] : [];
}

/**
 * Attribution cases from Who&When files or folders (recursively `*.json`; the subset comes from
 * the record, a `Hand-Crafted`/`Algorithm-Generated` folder name confirms it).
 * @returns cases in file order and `skipped` (files that did not import or are not Who&When), each with its reason
 */
export function loadAttributionCases(paths: readonly string[]): { cases: AttributionCase[]; skipped: Array<{ file: string; message: string }>; warnings: Array<{ file: string; message: string }> } {
  const cases: AttributionCase[] = [];
  const skipped: Array<{ file: string; message: string }> = [];
  const warnings: Array<{ file: string; message: string }> = [];
  for (const f of paths.flatMap(walk)) {
    if (/(^|[\\/])(LICENSE|SOURCE)/.test(path.basename(f))) continue;
    const r = importText(readFileSync(f, "utf8"), f);
    for (const x of r.failures) skipped.push({ file: f, message: `${x.errors[0]?.path ?? "$"} ${x.errors[0]?.message ?? ""}` });
    for (const c of r.cases) {
      if (c.source.dataset !== "who_and_when") {
        skipped.push({ file: f, message: `not a Who&When record (dataset ${c.source.dataset})` });
        continue;
      }
      for (const n of c.source.notes ?? []) if (n.startsWith("annotation inconsistency")) warnings.push({ file: f, message: n });
      cases.push(attributionCaseFromBundle(c.bundle));
    }
  }
  return { cases, skipped, warnings };
}

/** The seed of a run when none is given (the CLI's --seed, the New run form). */
export const DEFAULT_ATTRIBUTION_SEED = 20260512;

/** The plan for the given attributors: "with" and "without" for the paper's LLM methods, "n/a" otherwise. */
export function planFor(names: readonly AttributorName[], settings: readonly ("with" | "without")[] = ["with", "without"]): AttributionPlanItem[] {
  return names.flatMap((a): AttributionPlanItem[] => (ATTRIBUTORS[a].groundTruthVariants ? settings.map((g) => ({ attributor: a, groundTruth: g })) : [{ attributor: a, groundTruth: "n/a" }]));
}

export interface RunStudyOptions {
  db: Db;
  /** The run's name: created, or resumed when it exists. */
  name: string;
  cases: readonly AttributionCase[];
  plan: readonly AttributionPlanItem[];
  /** The model client (null: baselines only); its endpoint is recorded with the run. */
  llm: AttributionLlm | null;
  endpoint: { upstream: string; model: string; protocol: string } | null;
  seed: number;
  /** Caps of the whole run (HTTP calls, tokens); null = none. */
  budget?: { maxCalls?: number | null; maxTokens?: number | null };
  /** Jobs at once of the in-process worker (default 4). */
  concurrency?: number;
  /** Where the cases came from (recorded). */
  dirs?: readonly string[];
  /** "new" / "existing": refuse a start when the run exists / does not (the app's New run and Resume); absent: create or resume. */
  expect?: "new" | "existing";
  /** Who started it (audited; the app's viewer, null for the CLI). */
  actorId?: string | null;
  /** Lease of the in-process worker's jobs (default the kind's 30 s). */
  leaseMs?: number;
  log?: (line: string) => void;
}

export interface StudyReport {
  run: AttributionRunView;
  rows: TableRow[];
  text: string[];
  /**
   * Over the whole run: `total` jobs; `resumed` = done before this start; `ran` = done by this
   * process; `errors` = in error at the end (retried by the next start); `notRun` = still queued
   * or running at the end (budget).
   */
  jobs: { total: number; resumed: number; ran: number; errors: number; notRun: number };
  /** The run's HTTP calls and tokens so far (what the budget counts). */
  spent: { httpCalls: number; tokens: number };
  budgetStopped: boolean;
  /** A user cancelled the run while it ran here (the page's Cancel, `--cancel`): queued jobs were left. */
  cancelled: boolean;
  note: string;
}

const NOTE = `Published: Zhang et al. 2025 Table 1 (GPT-4o, with ground truth); ${LATER_BEST}.`;

function startInput(o: RunStudyOptions, runner: string | null) {
  return {
    name: o.name,
    model: o.endpoint?.model ?? null,
    upstream: o.endpoint?.upstream ?? null,
    protocol: o.endpoint?.protocol ?? "chat",
    seed: o.seed,
    plan: o.plan,
    dirs: o.dirs ?? [],
    cases: o.cases,
    budget: { maxCalls: o.budget?.maxCalls ?? null, maxTokens: o.budget?.maxTokens ?? null },
    runner,
    expect: o.expect,
    actorId: o.actorId ?? null,
  };
}

function refuseWithoutLlm(o: Pick<RunStudyOptions, "plan" | "endpoint">): void {
  const needs = [...new Set(o.plan.filter((p) => ATTRIBUTORS[p.attributor].usesLlm).map((p) => p.attributor))];
  if (needs.length && !o.endpoint) throw new Error(`no LLM endpoint configured for ${needs.join(", ")}: set SYMTRACE_ATTRIBUTION_UPSTREAM and SYMTRACE_ATTRIBUTION_MODEL`);
}

/**
 * Create or resume the run and run its jobs here, in the foreground: the run is reserved for this
 * process (no other worker claims its jobs meanwhile), an in-process worker of kind "attribution"
 * runs them (`concurrency` at once; a job left running by a dead process is taken over once its
 * lease expires) until none is queued or running, or the budget or a user's cancel
 * (lib/db cancelAttributionRun) stopped the run and its running jobs have finished.
 * @throws Error when an LLM attributor is planned without an endpoint; AttributionRunError (lib/db) for a conflicting run
 */
export async function runAttributionStudy(o: RunStudyOptions): Promise<StudyReport> {
  refuseWithoutLlm(o);
  const runner = newWorkerId("attribution-cli:");
  const started = await startAttributionRun(o.db, startInput(o, runner));
  const runId = started.run.id;
  const resumed = started.run.progress.done;
  const worker = createWorker("attribution", { db: o.db, llm: o.llm, runId, runner, concurrency: Math.max(1, o.concurrency ?? 4), idlePollMs: 200, leaseMs: o.leaseMs, log: o.log });
  worker.start();
  try {
    // Until nothing is left to run here: finished, or stopped (budget, a user's cancel) with no job running.
    for (;;) {
      const r = await attributionRunState(o.db, runId);
      if (!r || r.status === "finished" || ((r.status === "budget-exhausted" || r.status === "cancelled") && r.running === 0)) break;
      await new Promise((ok) => setTimeout(ok, 250));
    }
  } finally {
    await worker.stop({ graceMs: 2000 });
  }
  const run = (await getAttributionRunById(o.db, runId))!;
  const rows = buildTable(await attributionRunResults(o.db, runId));
  return {
    run,
    rows,
    text: formatTable(rows),
    jobs: { total: run.progress.total, resumed, ran: worker.counts.done ?? 0, errors: run.progress.error, notRun: run.progress.queued + run.progress.running },
    spent: run.spent,
    budgetStopped: run.status === "budget-exhausted",
    cancelled: run.status === "cancelled",
    note: NOTE,
  };
}

/**
 * Create or resume the run for the workers (the app's embedded ones, `npm run worker`) — what
 * `symtrace detect --eval --attribution --background` and the attribution page's New run and
 * Resume (./app-start.ts) do: not reserved, its queued jobs enqueued (PostgreSQL: one pg-boss job each; SQLite: the pollers find
 * them). The workers use the run's endpoint with their own API key and call cache.
 * @throws as runAttributionStudy
 */
export async function enqueueAttributionStudy(o: Omit<RunStudyOptions, "llm" | "concurrency" | "leaseMs" | "log">): Promise<{ run: AttributionRunView; enqueued: number }> {
  refuseWithoutLlm(o);
  const started = await startAttributionRun(o.db, startInput({ ...o, llm: null }, null));
  const ids = await listClaimableAttributionJobIds(o.db, { runId: started.run.id, take: 1_000_000 });
  await enqueueJobs(o.db, "attribution", ids).catch((e) => process.stderr.write(`enqueue failed (the jobs stay queued; a worker's maintenance re-sends them): ${(e as Error).message}\n`));
  return { run: started.run, enqueued: ids.length };
}

/** The table of a stored run (the page, the CSV route): rows in plan order, progress. */
export async function attributionRunReport(db: Db, run: AttributionRunView): Promise<{ rows: TableRow[]; progress: { finished: number; failed: number; total: number } }> {
  return { rows: buildTable(await attributionRunResults(db, run.id)), progress: { finished: run.progress.done, failed: run.progress.error, total: run.progress.total } };
}
