/**
 * Repair experiments as a service (issue 13 items 1, 4, 6, 7): what the API routes, the CLI and
 * the experiment page call. Thin over lib/db/experiments.ts (rows, claims, budget), lib/jobs
 * (workers, enqueue) and lib/experiments (the statistics, `summarizeExperiment`).
 *
 *   startExperiment(db, input)            create (freeze settings + case set) and enqueue
 *   cancelExperimentRun(db, id, actor)    stop: queued attempts not run, running ones aborted
 *   resumeExperiment(db, id)              re-send every claimable attempt (after a restart)
 *   getExperiment / listExperiments / listExperimentAttempts (lib/db)   status, live progress
 *   getExperimentReport(db, id)           { experiment, report (Tables 2–4, 7–9), cli (item 7 object) }
 *   experimentCsv(db, id, table)          one page table (or the attempts) as CSV
 *
 * A finished experiment never changes: its report is computed once and stored with it
 * (Experiment.reportJson); re-running means creating a new experiment.
 */
import { attemptRecordOf, EXPERIMENT_TABLES, marsSettingsLine, summarizeExperiment, tableToCsv, toCliObject, experimentTable, type AttemptListItem, type AttemptRecord, type ExperimentReport, type ExperimentTable } from "../../experiments";
import {
  createExperiment,
  ExperimentError,
  FINAL_EXPERIMENT_STATUSES,
  findExperimentCases,
  getExperiment,
  getStoredReport,
  listExperimentAttempts,
  listExperimentCases,
  stopExperiment,
  storeReport,
  type ExperimentAttemptView,
  type ExperimentCaseFilter,
  type ExperimentView,
} from "../../db/experiments";
import type { Db } from "../../db/client";
import { enqueueExperiment } from "../../jobs/kinds/experiment-attempt";
import type { ExperimentSettings } from "./methods/types";

/** Which cases: database ids or bundle ids (a list), or a `--from-db` filter — frozen at creation. */
export type CaseSelection = { kind: "list"; caseIds?: string[]; bundleIds?: string[] } | { kind: "filter"; filter: ExperimentCaseFilter };

export interface StartExperimentInput {
  name?: string;
  settings: ExperimentSettings;
  methods: string[];
  cases: CaseSelection;
  createdById?: string | null;
}

/**
 * Resolve a case selection to database ids (in the order given; a filter: by bundle id).
 * @throws ExperimentError "not-found" naming the missing bundle id (`$.cases.bundleIds[i]`), "invalid" when empty
 */
export async function resolveCaseSelection(db: Db, sel: CaseSelection): Promise<string[]> {
  if (sel.kind === "filter") {
    const found = await findExperimentCases(db, sel.filter);
    if (found.length === 0) throw new ExperimentError("invalid", `no case matches the filter ${JSON.stringify(sel.filter)} (only failed cases unless includePassed)`, "$.cases.filter");
    return found.map((c) => c.id);
  }
  const ids = [...(sel.caseIds ?? [])];
  if (sel.bundleIds?.length) {
    const rows = await db.case.findMany({ where: { bundleId: { in: sel.bundleIds } }, select: { id: true, bundleId: true } });
    const byBundle = new Map(rows.map((r) => [r.bundleId, r.id]));
    sel.bundleIds.forEach((b, i) => {
      const id = byBundle.get(b);
      if (!id) throw new ExperimentError("not-found", `$.cases.bundleIds[${i}]: no case with bundle id "${b}"`, `$.cases.bundleIds[${i}]`);
      ids.push(id);
    });
  }
  return ids;
}

/**
 * Create an experiment (settings, methods and the case set frozen; lib/db createExperiment) and
 * hand its attempts to the workers (enqueueExperiment: SQLite wakes local pollers, PostgreSQL sends
 * pg-boss jobs; a failed send is repaired by the workers' periodic re-send).
 * @param o.url connection string of `db` (PostgreSQL; default DATABASE_URL)
 * @returns the experiment view (status queued, progress)
 * @throws ExperimentError for bad input (with the JSON path in `at`)
 */
export async function startExperiment(db: Db, input: StartExperimentInput, o: { url?: string } = {}): Promise<ExperimentView> {
  const caseIds = await resolveCaseSelection(db, input.cases);
  const e = await createExperiment(db, {
    name: input.name,
    settings: input.settings,
    methods: input.methods,
    caseIds,
    caseSet: input.cases.kind === "filter" ? { kind: "filter", filter: input.cases.filter } : { kind: "list" },
    createdById: input.createdById ?? null,
  });
  await enqueueExperiment(db, e.id, o).catch((err) => process.stderr.write(`experiment ${e.id}: enqueue failed (attempts stay queued; workers re-send): ${(err as Error).message}\n`));
  return e;
}

/** Re-send every claimable attempt of an experiment (e.g. after all workers were restarted). @returns jobs sent (0 on SQLite) */
export function resumeExperiment(db: Db, experimentId: string, o: { url?: string } = {}): Promise<number> {
  return enqueueExperiment(db, experimentId, o);
}

/**
 * Cancel: queued attempts become cancelled (not run), running ones are aborted by their workers
 * within a lease renewal (≤ leaseMs / 3) and recorded cancelled; then the experiment is `cancelled`.
 * A final experiment is left as it is.
 * @returns the experiment after the request, or null when it does not exist
 */
export async function cancelExperimentRun(db: Db, experimentId: string, actor?: string | null): Promise<ExperimentView | null> {
  const e = await getExperiment(db, experimentId);
  if (!e) return null;
  await stopExperiment(db, experimentId, "cancelled", { actor: actor ?? null });
  return getExperiment(db, experimentId);
}

/** An attempt row as the statistics take it (lib/experiments AttemptRecord). Queued/running rows are left out. */
export function toAttemptRecord(a: ExperimentAttemptView): AttemptRecord | null {
  return attemptRecordOf(a);
}

/** An attempt row as the page lists it (lib/experiments AttemptListItem). */
export function toAttemptListItem(a: ExperimentAttemptView): AttemptListItem {
  const { id, caseBundleId, mas, primaryCategory, method, attempt, status, passed, reproduced, calls, auxCalls } = a;
  return {
    id, caseBundleId, mas, primaryCategory, method, attempt, status, passed, reproduced, calls, auxCalls,
    tokens: a.tokens.total,
    bundleId: a.bundleId,
    anchorNodeId: a.anchorNodeId,
    error: a.error,
    skipReason: a.skipReason,
  };
}

/** The one place the runner calls the statistics (lib/experiments summarizeExperiment, seeded bootstrap). */
function summarize(e: ExperimentView, cases: Awaited<ReturnType<typeof listExperimentCases>>, attempts: ExperimentAttemptView[]): ExperimentReport {
  return summarizeExperiment({
    experiment: e.id,
    cases: cases.map((c) => ({ caseId: c.bundleId, mas: c.mas, primaryCategory: c.primaryCategory })),
    methods: e.methods,
    attempts: e.attempts,
    attemptsRecords: attempts.map(toAttemptRecord).filter((r): r is AttemptRecord => r !== null),
    seed: e.seed,
    ...(e.settings.fake ? { fake: e.settings.fake } : {}),
    ...(e.settings.reproductionJudge !== undefined ? { judged: e.settings.reproductionJudge !== null } : {}),
  });
}

export interface ExperimentReportView {
  experiment: ExperimentView;
  /** Tables 2–4, 7–9 (lib/experiments ExperimentReport); partial while the experiment runs. */
  report: ExperimentReport;
  /** The object of issue 13 item 7 (`experiment run|report` prints it). */
  cli: ReturnType<typeof toCliObject>;
  /** Every attempt (case order, method, attempt). */
  attempts: ExperimentAttemptView[];
  /** True when the experiment is final and the report is the stored one. */
  final: boolean;
}

/**
 * The report of an experiment. While it runs, computed from the attempts recorded so far; once
 * final, computed once and stored (later calls return the stored report unchanged).
 * @returns null when there is no such experiment
 */
export async function getExperimentReport(db: Db, experimentId: string): Promise<ExperimentReportView | null> {
  const e = await getExperiment(db, experimentId);
  if (!e) return null;
  const attempts = await listExperimentAttempts(db, experimentId);
  const final = FINAL_EXPERIMENT_STATUSES.includes(e.status);
  let report = final ? ((await getStoredReport(db, experimentId)) as ExperimentReport | null) : null;
  if (!report) {
    report = summarize(e, await listExperimentCases(db, experimentId), attempts);
    if (final) await storeReport(db, experimentId, report);
  }
  return { experiment: e, report, cli: toCliObject(report), attempts, final };
}

/** The frozen settings as a flat record (the settings table of every export). */
export function frozenSettingsRecord(e: ExperimentView): Record<string, unknown> {
  const s = e.settings;
  return {
    name: e.name,
    status: e.status,
    case_set: e.caseSet.kind === "filter" ? `filter ${JSON.stringify(e.caseSet.filter)}` : "list",
    case_bundle_ids: e.caseSet.bundleIds.join(" "),
    upstream: s.upstream,
    tool_upstream: s.toolUpstream,
    model: s.model,
    evaluator: s.evaluator,
    reproduction_judge: s.reproductionJudge ? (s.reproductionJudge.kind === "command" ? `command: ${s.reproductionJudge.command}` : `llm: ${s.reproductionJudge.upstream} ${s.reproductionJudge.model ?? ""}`.trim()) : null,
    command: s.command ? s.command.join(" ") : null,
    max_calls: s.budget.maxCalls,
    max_tokens: s.budget.maxTokens,
    timeout_ms: s.timeoutMs,
    ...(s.mars ? { mars: marsSettingsLine(s.mars) } : {}),
    ...(s.fake ? { fake: s.fake } : {}),
    created_at: e.createdAt.toISOString(),
    finished_at: e.finishedAt?.toISOString() ?? null,
  };
}

/**
 * One table of the experiment as CSV (settings, reproduction, repair, comparisons, efficiency,
 * attempts — lib/experiments EXPERIMENT_TABLES).
 * @returns null when there is no such experiment
 * @throws ExperimentError "invalid" for an unknown table
 */
export async function experimentCsv(db: Db, experimentId: string, table: string): Promise<string | null> {
  if (!(EXPERIMENT_TABLES as readonly string[]).includes(table)) throw new ExperimentError("invalid", `table must be one of ${EXPERIMENT_TABLES.join(", ")}; got "${table}"`, "table");
  const r = await getExperimentReport(db, experimentId);
  if (!r) return null;
  return tableToCsv(experimentTable(table as ExperimentTable, r.report, frozenSettingsRecord(r.experiment), r.attempts.map(toAttemptListItem)));
}

/**
 * The frozen settings of an experiment started from the app: endpoint and model of "Replay from
 * here" (SYMTRACE_REPLAY_UPSTREAM, SYMTRACE_REPLAY_MODEL, SYMTRACE_REPLAY_TOOL_UPSTREAM), the
 * evaluator SYMTRACE_REPLAY_EVALUATOR, the reproduction judge SYMTRACE_EXPERIMENT_JUDGE (a command,
 * exit 0 = reproduced) or else an LLM judge at SYMTRACE_JUDGE_UPSTREAM (SYMTRACE_JUDGE_MODEL), and
 * SYMTRACE_EXPERIMENT_TIMEOUT_MS (per attempt, default 600000); the mars arm: SYMTRACE_MARS_ITERATIONS
 * (N_iter, default 75) and SYMTRACE_MARS_JUDGE (a judge command printing {score, failureMode, feedback}). The MAS is always each case's
 * registered runner (a request never names a command).
 * @returns the settings, or an error message naming the missing variable
 */
export function experimentSettingsFromEnv(
  o: { attempts: number; seed?: number; maxCalls?: number | null; maxTokens?: number | null },
  env: NodeJS.ProcessEnv = process.env,
): ExperimentSettings | { error: string } {
  const upstream = env.SYMTRACE_REPLAY_UPSTREAM;
  if (!upstream) return { error: "experiments need a live endpoint: set SYMTRACE_REPLAY_UPSTREAM (the same for every arm)" };
  const judgeCommand = env.SYMTRACE_EXPERIMENT_JUDGE?.trim();
  const judgeUpstream = env.SYMTRACE_JUDGE_UPSTREAM?.trim();
  const timeout = Number(env.SYMTRACE_EXPERIMENT_TIMEOUT_MS ?? 600_000);
  const marsIterations = Number(env.SYMTRACE_MARS_ITERATIONS ?? "") || 0;
  const marsJudge = env.SYMTRACE_MARS_JUDGE?.trim() || null;
  return {
    upstream,
    toolUpstream: env.SYMTRACE_REPLAY_TOOL_UPSTREAM || null,
    model: env.SYMTRACE_REPLAY_MODEL || null,
    evaluator: env.SYMTRACE_REPLAY_EVALUATOR?.trim() || null,
    reproductionJudge: judgeCommand ? { kind: "command", command: judgeCommand } : judgeUpstream ? { kind: "llm", upstream: judgeUpstream, model: env.SYMTRACE_JUDGE_MODEL || null } : null,
    command: null,
    seed: o.seed ?? Math.floor(Math.random() * 2 ** 31),
    attempts: o.attempts,
    budget: { maxCalls: o.maxCalls ?? null, maxTokens: o.maxTokens ?? null },
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 600_000,
    // The mars arm (frozen with its defaults when the experiment runs it): SYMTRACE_MARS_ITERATIONS, SYMTRACE_MARS_JUDGE (judge command).
    mars: marsIterations || marsJudge ? { ...(marsIterations ? { iterations: marsIterations } : {}), ...(marsJudge ? { judge: { kind: "command" as const, command: marsJudge } } : {}) } as ExperimentSettings["mars"] : null,
  };
}
