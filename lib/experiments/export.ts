/**
 * Every table of the experiment page as rows, for one CSV per table (the page's downloads), and
 * the attempts behind a table cell (the page's drill-down). Pure.
 */
import type { TableRows } from "../stats";
import { methodLabel } from "./methods";
import { ALL } from "./report";
import type { AttemptRecord, ExperimentReport, RateCI } from "./types";

/** Table names, in page order; each is one CSV (`/experiments/<id>/export?format=csv&table=<name>`). */
export const EXPERIMENT_TABLES = ["settings", "reproduction", "repair", "comparisons", "efficiency", "attempts"] as const;
export type ExperimentTable = (typeof EXPERIMENT_TABLES)[number];

/** One attempt as the page lists it (lib/db's attempt view maps onto this). */
export interface AttemptListItem extends Omit<AttemptRecord, "caseId" | "auxTokens"> {
  id: string;
  caseBundleId: string;
  /** bundle id of the attempt's recording, when stored */
  bundleId: string | null;
  anchorNodeId: string | null;
  error: string | null;
  skipReason: string | null;
}

/** Which attempts a table cell stands for: a method (or all) on a MAS, a primary category, or all cases. */
export interface CellFilter {
  method?: string | null;
  mas?: string | null;
  category?: string | null;
}

/**
 * The attempts behind a cell: every attempt of `method` on the cases of the group (skipped and
 * error attempts included, so the denominator can be checked). `category: "none"` selects cases
 * without a primary category; null/undefined/"all" fields do not filter.
 */
export function attemptsBehind<T extends Pick<AttemptListItem, "method" | "mas" | "primaryCategory">>(attempts: readonly T[], f: CellFilter): T[] {
  const on = (v: string | null | undefined) => v !== null && v !== undefined && v !== "" && v !== ALL;
  return attempts.filter(
    (a) => (!on(f.method) || a.method === f.method) && (!on(f.mas) || a.mas === f.mas) && (!on(f.category) || (a.primaryCategory ?? "none") === f.category),
  );
}

const rateCols = (p: string) => [`${p}`, `${p}_lo`, `${p}_hi`, `${p}_x`, `${p}_n`];
const rateVals = (r: RateCI | null) => (r ? [r.rate, r.lo, r.hi, r.x, r.n] : [null, null, null, null, null]);

/**
 * One table's rows (rates as fractions, Δ in points).
 * @param settings the frozen settings (flattened into key/value rows for "settings")
 * @param attempts the attempt list (for "attempts")
 * @throws Error for a name not in {@link EXPERIMENT_TABLES}
 */
export function experimentTable(name: ExperimentTable, report: ExperimentReport, settings: Record<string, unknown> = {}, attempts: readonly AttemptListItem[] = []): TableRows {
  switch (name) {
    case "settings": {
      const rows: TableRows["rows"] = [
        ["experiment", report.experiment ?? null],
        ["cases", report.cases],
        ["attempts_k", report.meta.attempts],
        ["seed", report.meta.seed],
        ["bootstrap_resamples", report.meta.resamples],
        ["methods", Object.keys(report.methods).join(" ")],
      ];
      for (const [k, v] of Object.entries(settings)) rows.push([k, v === null || v === undefined ? null : typeof v === "object" ? JSON.stringify(v) : (v as string | number | boolean)]);
      return { header: ["key", "value"], rows };
    }
    case "reproduction":
      return {
        header: ["method", "label", "mas", "cases", ...rateCols("rep1"), ...rateCols("rep3")],
        rows: report.byMas.flatMap((g) => Object.values(g.cells).map((c) => [c.method, methodLabel(c.method), g.key, g.cases, ...rateVals(c.rep1), ...rateVals(c.rep3)])),
      };
    case "repair":
      return {
        header: ["group_kind", "group", "cases", "method", "label", "level", "k", ...rateCols("pass"), "attempts", "errors", "skipped_attempts", "skipped_cases", "pending_cases", "cancelled", "no_verdict_attempts", "no_verdict_cases"],
        rows: [...report.byMas.filter((g) => g.kind === "mas"), ...report.byCategory].flatMap((g) =>
          Object.values(g.cells).map((c) => [g.kind, g.key, g.cases, c.method, methodLabel(c.method), c.level, c.k, ...rateVals(c.pass), c.attempts, c.errors, c.skipped, c.skippedCases, c.pendingCases, c.cancelled, c.noVerdict ?? 0, c.noVerdictCases ?? 0]),
        ),
      };
    case "comparisons":
      return {
        header: ["family", "a", "b", "n", "a_passed", "b_passed", "diff_points", "lo", "hi", "n10", "n01", "mcnemar_p", "holm_p"],
        rows: report.comparisons.map((c) => [c.family, c.a, c.b, c.n, c.aPassed, c.bPassed, c.diffPoints, c.lo, c.hi, c.n10, c.n01, c.mcnemarP, c.holmP]),
      };
    case "efficiency":
      return {
        header: ["mas", "method", "label", "api_calls", "mas_calls", "aux_calls", "tokens", "aux_tokens", "repairs", "repairs_per_1k_calls", "calls_per_repair", "tokens_per_repair", "attempts", "no_verdict_attempts", "beyond_k_attempts", "beyond_k_calls"],
        rows: report.efficiency.map((e) => [e.mas, e.method, methodLabel(e.method), e.apiCalls, e.masCalls, e.auxCalls, e.tokens, e.auxCalls > 0 && !e.auxTokens ? null : (e.auxTokens ?? 0), e.repairs, e.repairsPer1k, e.callsPerRepair, e.tokensPerRepair ?? null, e.attempts ?? null, e.noVerdict ?? 0, e.beyondK?.attempts ?? 0, e.beyondK?.calls ?? 0]),
      };
    case "attempts":
      return {
        header: ["attempt_id", "case_bundle_id", "mas", "primary_category", "method", "attempt", "status", "passed", "reproduced", "calls", "aux_calls", "tokens", "bundle_id", "anchor_node_id", "error", "skip_reason"],
        rows: attempts.map((a) => [a.id, a.caseBundleId, a.mas, a.primaryCategory, a.method, a.attempt, a.status, a.passed, a.reproduced, a.calls, a.auxCalls, a.tokens, a.bundleId, a.anchorNodeId, a.error, a.skipReason]),
      };
    default:
      throw new Error(`unknown experiment table "${String(name)}"; one of ${EXPERIMENT_TABLES.join(", ")}`);
  }
}
