/**
 * The attribution study as jobs: one job per (attributor, ground-truth setting, case), each
 * persisted as one file under the run directory, so a rerun resumes where the last one stopped
 * and never repeats a finished job (and, through the call cache of ./llm.ts, never re-asks a
 * finished call even of an unfinished job).
 *
 *   <runDir>/study.json                         the plan (model, seed, attributors, settings)
 *   <runDir>/jobs/<attributor>__<gt>__<case>.json  lib/attribution CaseResult (done | error)
 *   <runDir>/jobs/<…>.lock                      claim: created exclusively (O_EXCL) by the worker
 *                                               that runs the job; older than `staleMs` = taken over
 *
 * Guarantees (the ones lib/jobs gives replay runs, on files instead of rows): a job runs in at
 * most one worker at a time (exclusive create of the lock), a result is written atomically (temp
 * file + rename) so a crash never leaves half a result, "done" jobs are skipped on resume, "error"
 * jobs are retried. Budget: before each job, the HTTP calls and tokens spent by this run are
 * compared with the caps; once one is reached no further job starts (they are "not-run", not
 * persisted, so a rerun with a larger budget continues); running jobs finish, so a cap can be
 * exceeded by at most one job per worker.
 */
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ATTRIBUTORS, type AttributionCase, type AttributionLlm, type AttributorName, type CaseResult, type GroundTruthSetting } from "../../attribution";

export interface StudyPlanItem {
  attributor: AttributorName;
  groundTruth: GroundTruthSetting;
}

/** The plan for the given attributors: "with" and "without" for the paper's LLM methods, "n/a" otherwise. */
export function planFor(names: readonly AttributorName[], settings: readonly ("with" | "without")[] = ["with", "without"]): StudyPlanItem[] {
  return names.flatMap((a): StudyPlanItem[] => (ATTRIBUTORS[a].groundTruthVariants ? settings.map((g) => ({ attributor: a, groundTruth: g })) : [{ attributor: a, groundTruth: "n/a" }]));
}

export interface RunStudyOptions {
  cases: readonly AttributionCase[];
  plan: readonly StudyPlanItem[];
  llm: AttributionLlm | null;
  runDir: string;
  seed: number;
  budget?: { maxCalls?: number | null; maxTokens?: number | null };
  /** Jobs at once (default 4). */
  concurrency?: number;
  /** A lock older than this is a dead worker's (default 10 min). */
  staleMs?: number;
  /** Extra fields recorded in study.json (endpoint, model, …). */
  about?: Record<string, unknown>;
  log?: (line: string) => void;
}

export interface StudyRun {
  results: CaseResult[];
  jobs: { total: number; resumed: number; ran: number; errors: number; notRun: number };
  spent: { httpCalls: number; tokens: number };
  budgetStopped: boolean;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9._+-]+/g, "~");
/** File stem of one job. */
export const jobStem = (attributor: string, gt: string, caseId: string) => `${safe(attributor)}__${safe(gt)}__${safe(caseId)}`;

function writeAtomic(file: string, text: string) {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function readResult(file: string): CaseResult | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as CaseResult;
  } catch {
    return null;
  }
}

function claim(lock: string, staleMs: number): boolean {
  for (let i = 0; i < 2; i++) {
    try {
      closeSync(openSync(lock, "wx"));
      writeFileSync(lock, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
      return true;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs < staleMs) return false;
        rmSync(lock, { force: true });
      } catch {
        /* gone meanwhile: retry */
      }
    }
  }
  return false;
}

/**
 * Run (or resume) the study.
 * @returns every job's result in plan × case order ("not-run" for jobs the budget stopped or
 *   another worker holds)
 * @throws Error when an LLM attributor is planned and `llm` is null
 */
export async function runStudy(o: RunStudyOptions): Promise<StudyRun> {
  if (!o.llm && o.plan.some((p) => ATTRIBUTORS[p.attributor].usesLlm)) throw new Error(`no LLM endpoint configured for ${o.plan.filter((p) => ATTRIBUTORS[p.attributor].usesLlm).map((p) => p.attributor).join(", ")}: set SYMTRACE_ATTRIBUTION_UPSTREAM and SYMTRACE_ATTRIBUTION_MODEL`);
  const jobsDir = path.join(o.runDir, "jobs");
  mkdirSync(jobsDir, { recursive: true });
  writeAtomic(path.join(o.runDir, "study.json"), JSON.stringify({ format: "symtrace.attribution-study/v1", seed: o.seed, plan: o.plan, cases: o.cases.length, model: o.llm?.model ?? null, ...o.about, updatedAt: new Date().toISOString() }, null, 2) + "\n");
  const staleMs = o.staleMs ?? 10 * 60_000;
  const jobs = o.plan.flatMap((p) => o.cases.map((c) => ({ p, c })));
  const results: CaseResult[] = new Array(jobs.length);
  const run: StudyRun = { results, jobs: { total: jobs.length, resumed: 0, ran: 0, errors: 0, notRun: 0 }, spent: { httpCalls: 0, tokens: 0 }, budgetStopped: false };
  const over = () => (o.budget?.maxCalls != null && run.spent.httpCalls >= o.budget.maxCalls) || (o.budget?.maxTokens != null && run.spent.tokens >= o.budget.maxTokens);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= jobs.length) return;
      const { p, c } = jobs[i];
      const stem = jobStem(p.attributor, p.groundTruth, c.caseId);
      const file = path.join(jobsDir, `${stem}.json`);
      const base = { attributor: p.attributor, groundTruth: p.groundTruth, caseId: c.caseId, subset: c.subset, reference: c.reference };
      const prior = existsSync(file) ? readResult(file) : null;
      if (prior?.status === "done") {
        results[i] = prior;
        run.jobs.resumed++;
        continue;
      }
      if (over()) {
        run.budgetStopped = true;
        results[i] = { ...base, status: "not-run", attribution: null, error: "budget reached" };
        run.jobs.notRun++;
        continue;
      }
      const lock = path.join(jobsDir, `${stem}.lock`);
      if (!claim(lock, staleMs)) {
        results[i] = { ...base, status: "not-run", attribution: null, error: "claimed by another worker" };
        run.jobs.notRun++;
        continue;
      }
      try {
        const a = await ATTRIBUTORS[p.attributor].attribute(c, { llm: o.llm ?? undefined, withGroundTruth: p.groundTruth === "with", seed: o.seed });
        run.spent.httpCalls += a.httpCalls;
        if (a.httpCalls) run.spent.tokens += a.tokens.prompt + a.tokens.completion;
        results[i] = { ...base, status: "done", attribution: a, error: null };
        run.jobs.ran++;
      } catch (e) {
        results[i] = { ...base, status: "error", attribution: null, error: e instanceof Error ? e.message : String(e) };
        run.jobs.errors++;
        o.log?.(`${stem}: ${results[i].error}`);
      }
      writeAtomic(file, JSON.stringify(results[i]) + "\n");
      rmSync(lock, { force: true });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 4) }, worker));
  return run;
}

/** The persisted results of a run directory (done and error jobs), for the page; [] when none. */
export function readStudy(runDir: string): { about: Record<string, unknown> | null; results: CaseResult[] } {
  const dir = path.join(runDir, "jobs");
  if (!existsSync(dir)) return { about: null, results: [] };
  const results = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => readResult(path.join(dir, f)))
    .filter((r): r is CaseResult => r !== null);
  let about: Record<string, unknown> | null = null;
  try {
    about = JSON.parse(readFileSync(path.join(runDir, "study.json"), "utf8")) as Record<string, unknown>;
  } catch {
    /* none */
  }
  return { about, results };
}
