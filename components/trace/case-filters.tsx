import { SelectField } from "@/components/ui/select-field";

export interface CaseFilterValues {
  q?: string;
  benchmark?: string;
  mas?: string;
  dataset?: string;
}

const DATASET_NAMES: Record<string, string> = {
  bundle: "SymTrace bundle",
  who_and_when: "Who&When",
  mad: "MAST / MAD",
  langfuse: "Langfuse (OTel)",
  otlp: "OTLP",
  replay: "Replay",
  experiment: "Experiment attempt",
};

export function datasetName(d: string): string {
  return DATASET_NAMES[d] ?? d;
}

/** GET form for the case list: works without client JavaScript; values live in the URL. */
export function CaseFilters({
  values,
  facets,
  action = "/cases",
  hideSearch = false,
  dates,
  generated,
  hidden,
}: {
  values: CaseFilterValues;
  facets: { benchmarks: string[]; mas: string[]; datasets: string[] };
  action?: string;
  hideSearch?: boolean;
  /** Show a submitted-date range (agreement dashboard). */
  dates?: { from?: string; to?: string };
  /** Case list: show the "include generated cases" box, checked when true. */
  generated?: boolean;
  /** Values kept as they are when the form is submitted (e.g. `parent`). */
  hidden?: Record<string, string | undefined>;
}) {
  const select = (name: keyof CaseFilterValues, label: string, options: string[], render?: (v: string) => string) => (
    <SelectField name={name} label={label} options={options} defaultValue={values[name]} render={render} />
  );
  return (
    <form method="get" action={action} role="search" className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-3">
      <label className={`${hideSearch ? "hidden" : "flex"} min-w-64 flex-1 flex-col gap-1 text-xs font-medium text-slate-600`}>
        Search task text or bundle id
        <input
          type="search"
          name="q"
          defaultValue={values.q ?? ""}
          placeholder="e.g. relation ID, Stephen King"
          className="rounded border border-slate-300 px-2 py-1.5 text-sm text-slate-900"
        />
      </label>
      {select("benchmark", "Benchmark", facets.benchmarks)}
      {select("mas", "MAS", facets.mas)}
      {select("dataset", "Source dataset", facets.datasets, datasetName)}
      {dates ? (
        <>
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            Submitted from
            <input type="date" name="from" defaultValue={dates.from ?? ""} className="rounded border border-slate-300 px-2 py-1 text-sm text-slate-900" />
          </label>
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            to
            <input type="date" name="to" defaultValue={dates.to ?? ""} className="rounded border border-slate-300 px-2 py-1 text-sm text-slate-900" />
          </label>
        </>
      ) : null}
      {generated !== undefined ? (
        <label className="flex items-center gap-1 self-center text-xs text-slate-600">
          <input type="checkbox" name="generated" value="1" defaultChecked={generated} /> include generated cases (replays, experiment attempts, search nodes)
        </label>
      ) : null}
      {Object.entries(hidden ?? {}).map(([k, v]) => (v ? <input key={k} type="hidden" name={k} value={v} /> : null))}
      <button type="submit" className="rounded bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700">
        Filter
      </button>
    </form>
  );
}
