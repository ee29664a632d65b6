/**
 * Every table of the agreement dashboard as rows, for one CSV per table (the dashboard's downloads).
 * Pure: the report comes from {@link analyzeAnnotations}; the per-annotator-vs-final shares, the
 * disagreement list and the MAD failure-mode table are passed in as the dashboard receives them.
 */
import type { AgreementReport, VariableAgreement } from "./analyze";
import { CATEGORIES } from "../annotation/protocol";
import { landisKoch } from "./landis-koch";
import { bootstrapIntervalShown, sampleSizeWarnings } from "./sample-size";

/** Table names, in dashboard order; each is one CSV (`/api/agreement?format=csv&table=<name>`). */
export const AGREEMENT_TABLES = ["reliability", "exact", "patterns", "composition", "cohen", "vs-final", "disagreement", "mad-modes"] as const;
export type AgreementTable = (typeof AGREEMENT_TABLES)[number];

import type { TableRows } from "../stats/table";

export { csvCell, tableToCsv, type TableRows } from "../stats/table";

/** What the dashboard shows besides the report (lib/services/agreement shapes). */
export interface AgreementTableInputs {
  report: AgreementReport | null;
  vsFinal?: Array<{ annotator: string; cases: number; primary: number; node: number; tuple: number }>;
  disagreement?: Array<{ caseId: string; tuples: number; sets: number; nodes: number; finalized: boolean }>;
  mad?: {
    pooled: { items: number; kappa: number | null; unanimous: number };
    modes: Array<{ mode: string; traces: number; yes: number[]; unanimous: number; excluded: number }>;
    annotators: string[];
  } | null;
}

/** The seven κ variables of Table 6 with their display names (the dashboard's row labels). */
export function variableRows(r: AgreementReport): Array<[string, VariableAgreement]> {
  return [
    ["Primary category", r.primaryCategory],
    ["Exact category set", r.categorySet],
    ["C1 present", r.presence.C1],
    ["C2 present", r.presence.C2],
    ["C3 present", r.presence.C3],
    ["C4 present", r.presence.C4],
    ["Failure-node type", r.nodeType],
  ];
}

const share = (x: number, n: number) => (n ? x / n : null);

/**
 * One table's rows. A table whose data is absent (no report, no finals, no MAD labels) has a header
 * and no rows. The reliability table leaves its interval empty below MIN_CASES_FOR_CI (10)
 * cases and carries the sample-size warning in a `warning` column, as the page does.
 * @throws Error for a name not in {@link AGREEMENT_TABLES}
 */
export function agreementTable(name: AgreementTable, x: AgreementTableInputs): TableRows {
  const r = x.report;
  switch (name) {
    case "reliability": {
      const warning = r ? sampleSizeWarnings({ cases: r.cases }).find((w) => w.scope === "reliability")?.message ?? null : null;
      const ci = r ? bootstrapIntervalShown(r.cases) : false;
      const rows: TableRows["rows"] = r
        ? variableRows(r).map(([n, v]) => [n, v.kappa, ci ? (v.ci95?.[0] ?? null) : null, ci ? (v.ci95?.[1] ?? null) : null, landisKoch(v.kappa), v.pairwiseAgreement, v.unanimous, r.cases, warning, v.kappaReason, v.ci95 && ci ? null : (v.ciReason ?? v.kappaReason), ci ? v.undefinedResamples : null])
        : [];
      if (x.mad) rows.push(["MAD pooled binary (failure modes)", x.mad.pooled.kappa, null, null, landisKoch(x.mad.pooled.kappa), null, x.mad.pooled.unanimous, x.mad.pooled.items, null, x.mad.pooled.kappa === null ? "undefined (P_e = 1: every rating in one category)" : null, "no bootstrap for the pooled binary κ", null]);
      return { header: ["variable", "fleiss_kappa", "ci95_low", "ci95_high", "landis_koch", "pairwise_agreement", "unanimous", "cases", "warning", "kappa_undefined_reason", "ci95_missing_reason", "undefined_resamples"], rows };
    }
    case "exact":
      return {
        header: ["variable", "agreement", "count", "cases", "share", "wilson95_low", "wilson95_high"],
        rows: r
          ? [
              ["Node id", "all three", r.node.allThree, r.cases, share(r.node.allThree, r.cases), r.node.allThreeWilson95?.[0] ?? null, r.node.allThreeWilson95?.[1] ?? null],
              ["Node id", "at least two", r.node.atLeastTwo, r.cases, share(r.node.atLeastTwo, r.cases), r.node.atLeastTwoWilson95?.[0] ?? null, r.node.atLeastTwoWilson95?.[1] ?? null],
              ["Strict tuple", "all three", r.tuple.allThree, r.cases, share(r.tuple.allThree, r.cases), r.tuple.allThreeWilson95?.[0] ?? null, r.tuple.allThreeWilson95?.[1] ?? null],
              ["Strict tuple", "at least two", r.tuple.atLeastTwo, r.cases, share(r.tuple.atLeastTwo, r.cases), r.tuple.atLeastTwoWilson95?.[0] ?? null, r.tuple.atLeastTwoWilson95?.[1] ?? null],
            ]
          : [],
      };
    case "patterns": {
      const f = r?.final;
      const labels = { unanimous: "Unanimous", split: "2–1 split", allDistinct: "All distinct" } as const;
      return {
        header: ["initial_pattern", "cases", "kept_unanimous", "kept_majority", "kept_minority", "kept_one_proposed", "new_tuple"],
        rows: f
          ? (Object.keys(labels) as Array<keyof typeof labels>).map((k) => [labels[k], f.patterns[k].cases, f.patterns[k].keptUnanimous, f.patterns[k].keptMajority, f.patterns[k].keptMinority, f.patterns[k].keptProposed, f.patterns[k].newTuple])
          : [],
      };
    }
    case "composition": {
      const f = r?.final;
      return {
        header: ["category", "added_by_adjudicator", "removed", "final_primary", "final_marginal"],
        rows: f ? CATEGORIES.map((c) => [c, f.added[c], f.removed[c], f.primary[c], f.marginal[c]]) : [],
      };
    }
    case "cohen":
      return {
        header: ["variable", "annotator_a", "annotator_b", "cases", "cohen_kappa", "reason"],
        rows: r ? (Object.keys(r.cohen) as Array<keyof AgreementReport["cohen"]>).flatMap((k) => r.cohen[k].map((p) => [k, p.a, p.b, p.items, p.kappa, p.reason])) : [],
      };
    case "vs-final":
      return {
        header: ["annotator", "finalized_cases", "primary_eq_final", "node_eq_final", "tuple_eq_final"],
        rows: (x.vsFinal ?? []).map((a) => [a.annotator, a.cases, share(a.primary, a.cases), share(a.node, a.cases), share(a.tuple, a.cases)]),
      };
    case "disagreement":
      return {
        header: ["case_id", "distinct_tuples", "category_sets", "nodes", "finalized"],
        rows: (x.disagreement ?? []).map((c) => [c.caseId, c.tuples, c.sets, c.nodes, c.finalized]),
      };
    case "mad-modes":
      return {
        header: ["failure_mode", "traces", ...(x.mad?.annotators ?? []).map((a) => `${a}_yes`), "all_agree", "excluded"],
        rows: (x.mad?.modes ?? []).map((m) => [m.mode.split("\n")[0].trim(), m.traces, ...(x.mad?.annotators ?? []).map((_, i) => m.yes[i] ?? 0), m.unanimous, m.excluded]),
      };
    default:
      throw new Error(`unknown agreement table "${String(name)}"; one of ${AGREEMENT_TABLES.join(", ")}`);
  }
}
