/** Serializable props of the two charts, built from the report on the server. */
import { methodLabel, type ExperimentReport } from "@/lib/experiments";
import type { ForestRow } from "./forest-plot";
import type { PassRateSeries } from "./pass-rate-chart";
import { pValue } from "./format";

/**
 * Pass-rate series: one per MAS when the experiment has several, else only the total; values in
 * percent keyed by method label.
 */
export function passRateSeries(report: ExperimentReport): { methods: string[]; series: PassRateSeries[] } {
  const mas = report.byMas.filter((g) => g.kind === "mas");
  const groups = mas.length > 1 ? mas : report.byMas.filter((g) => g.kind === "total");
  const methods = Object.keys(report.methods);
  return {
    methods: methods.map(methodLabel),
    series: groups.map((g) => ({
      key: g.key,
      label: g.kind === "total" ? "All cases" : g.key,
      values: Object.fromEntries(
        methods.map((m) => {
          const p = g.cells[m].pass;
          return [methodLabel(m), p.rate !== null && p.lo !== null && p.hi !== null ? ([100 * p.rate, 100 * p.lo, 100 * p.hi] as [number, number, number]) : null];
        }),
      ),
    })),
  };
}

/** Forest rows: comparisons with a defined Δ and CI. */
export function forestRows(report: ExperimentReport): ForestRow[] {
  return report.comparisons
    .filter((c) => c.diffPoints !== null && c.lo !== null && c.hi !== null)
    .map((c) => ({
      label: `${c.family === "all" ? "" : c.family + " · "}${methodLabel(c.a)} vs ${methodLabel(c.b)}`,
      diff: c.diffPoints!,
      lo: c.lo!,
      hi: c.hi!,
      p: pValue(c.mcnemarP),
      holm: pValue(c.holmP),
      significant: c.holmP !== null && c.holmP < 0.05,
    }));
}
