/**
 * The attribution benchmark end to end (issue 24 item 2): load Who&When records from files,
 * run the planned attributors as jobs (./jobs.ts) on the configured endpoint (./llm.ts), and build
 * the lib/attribution table (per subset, with and without ground truth, published figures beside).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { attributionCaseFromBundle, buildTable, formatTable, LATER_BEST, type AttributionCase, type CaseResult, type TableRow } from "../../attribution";
import { importText } from "../../importers";
import { planFor, readStudy, runStudy, type RunStudyOptions, type StudyPlanItem, type StudyRun } from "./jobs";

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

/** Results in plan order (the table's row order). */
export function orderByPlan(results: readonly CaseResult[], plan: readonly StudyPlanItem[]): CaseResult[] {
  const idx = (r: CaseResult) => plan.findIndex((p) => p.attributor === r.attributor && p.groundTruth === r.groundTruth);
  return results.slice().sort((a, b) => idx(a) - idx(b));
}

export interface StudyReport {
  rows: TableRow[];
  text: string[];
  jobs: StudyRun["jobs"];
  spent: StudyRun["spent"];
  budgetStopped: boolean;
  note: string;
}

/** Run or resume the study and tabulate it. */
export async function runAttributionStudy(o: RunStudyOptions): Promise<StudyReport> {
  const run = await runStudy(o);
  const rows = buildTable(run.results);
  return { rows, text: formatTable(rows), jobs: run.jobs, spent: run.spent, budgetStopped: run.budgetStopped, note: `Published: Zhang et al. 2025 Table 1 (GPT-4o, with ground truth); ${LATER_BEST}.` };
}

/** The table of a run directory as persisted (the page), rows in the study's plan order. */
export function studyTable(runDir: string): { about: Record<string, unknown> | null; rows: TableRow[]; progress: { finished: number; failed: number; total: number | null } } {
  const { about, results } = readStudy(runDir);
  const plan = Array.isArray(about?.plan) ? (about.plan as StudyPlanItem[]) : [];
  const total = typeof about?.cases === "number" ? plan.length * about.cases : null;
  return { about, rows: buildTable(orderByPlan(results, plan)), progress: { finished: results.filter((r) => r.status === "done").length, failed: results.filter((r) => r.status === "error").length, total } };
}

export { planFor };
