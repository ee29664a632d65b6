import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { getDb, pooledViewGate } from "@/lib/db";
import { attemptsBehind, methodLabel, EXPERIMENT_TABLES } from "@/lib/experiments";
import { getExperimentReport, toAttemptListItem } from "@/lib/services/experiments/run";
import { requireViewer } from "@/lib/session";
import { BlindnessNotice } from "@/components/ui/blindness-notice";
import { AttemptList } from "@/components/experiments/attempt-list";
import { forestRows, passRateSeries } from "@/components/experiments/chart-data";
import { ForestPlot } from "@/components/experiments/forest-plot";
import { FrozenSettings } from "@/components/experiments/frozen-settings";
import { LiveProgress } from "@/components/experiments/live-progress";
import { PassRateChart } from "@/components/experiments/pass-rate-chart";
import { ComparisonsTable, EfficiencyTable, MarsNote, RepairByMasTable, RepairGroupsTable, ReproductionTable } from "@/components/experiments/report-tables";
import { settingsEntries } from "./data";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Experiment" };

const cellQuery = z.object({ method: z.string().max(100).optional(), mas: z.string().max(200).optional(), category: z.string().max(20).optional() });

/**
 * One repair experiment: frozen settings, live progress while it runs, then the paper's tables
 * computed from its attempts (lib/experiments): reproduction (Table 2), repair by group and by MAS
 * (Tables 3–4) with Wilson intervals, pass-rate chart, forest plot of paired differences with
 * McNemar / Holm (Tables 7–8), efficiency (Table 9). A table cell links to `?method=&mas=&category=`,
 * which lists the attempts behind it; each attempt links to its bundle diffed against the source.
 */
export default async function ExperimentPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer("researcher", "admin");
  const gate = await pooledViewGate(getDb(), viewer, "experiments");
  if (!gate.open) return <BlindnessNotice reason={gate.refusal!} />;
  const { id } = await params;
  const db = getDb();
  const r = await getExperimentReport(db, id);
  if (!r) notFound();
  const { experiment: e, report } = r;
  const q = cellQuery.safeParse(await searchParams);
  const cell = q.success ? q.data : {};
  const attempts = r.attempts.map(toAttemptListItem);
  const basePath = `/experiments/${encodeURIComponent(id)}`;
  const download = `/api/experiments/${encodeURIComponent(id)}/report`;
  const drill = cell.method || cell.mas || cell.category ? attemptsBehind(attempts, cell) : null;
  const drillTitle = `Attempts of ${cell.method ? methodLabel(cell.method) : "every method"}${cell.mas ? ` on ${cell.mas}` : ""}${cell.category ? ` in ${cell.category}` : ""}`;
  const chart = passRateSeries(report);
  const forest = forestRows(report);
  const errors = attempts.filter((a) => a.status === "error");
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h1 className="text-xl font-semibold" data-testid="experiment-title">
          {e.name || "Experiment"} <span className="font-mono text-sm font-normal text-slate-500">{e.id}</span>
        </h1>
        <span className="flex flex-wrap gap-3 text-sm">
          <a className="text-blue-700 underline" href={`${download}?format=json`} data-testid="download-json">
            Download JSON
          </a>
          {EXPERIMENT_TABLES.map((t) => (
            <a key={t} className="text-blue-700 underline" href={`${download}?format=csv&table=${t}`} data-testid={`download-csv-${t}`}>
              CSV {t}
            </a>
          ))}
        </span>
      </div>
      <section className="rounded border border-slate-200 bg-white p-4">
        <LiveProgress experimentId={e.id} initial={{ status: e.status, done: e.progress.done, rows: e.progress.rows, byMethod: e.progress.byMethod, used: e.progress.used }} />
      </section>
      <details className="rounded border border-slate-200 bg-white p-4" open>
        <summary className="cursor-pointer font-semibold">Frozen settings (the same for every arm)</summary>
        <div className="mt-2">
          <FrozenSettings entries={settingsEntries(e)} />
        </div>
      </details>
      <p className="rounded border border-blue-200 bg-blue-50 p-2 text-sm text-blue-900" data-testid="denominator-note">
        Rates are over the {report.cases} failed source case(s) of this experiment, not over all tasks. Task-level methods report pass@{e.attempts} (up to {e.attempts} complete
        attempts, stop at the first pass), node-level methods pass@1; errors count as failures, skipped cases are left out and counted
        {report.meta.pending ? ` · ${report.meta.pending} (case, method) outcome(s) still pending` : ""}. Attempts without a verdict (no evaluator, or it could not judge) are neither passes nor failures: left out of the rates and counted beside them
        {report.meta.noVerdict ? <strong data-testid="no-verdict-count"> · {report.meta.noVerdict} (case, method) pair(s) without a verdict</strong> : null}. 95% Wilson intervals; click a cell for the attempts behind it.
      </p>
      {report.meta.fake ? (
        <p className="rounded border border-red-300 bg-red-50 p-2 text-sm font-semibold text-red-900" data-testid="fake-note">
          Not a measurement: {report.meta.fake}.
        </p>
      ) : null}
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 font-semibold">Failure reproduction (Table 2 layout)</h2>
        <ReproductionTable report={report} basePath={basePath} />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 font-semibold">Repair by method (Table 4 layout)</h2>
        <RepairByMasTable report={report} basePath={basePath} />
        <MarsNote report={report} />
        <PassRateChart methods={chart.methods} series={chart.series} />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 font-semibold">Repair by MAS and primary category (Table 3 layout)</h2>
        <RepairGroupsTable report={report} basePath={basePath} />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 font-semibold">Paired comparisons (Tables 7–8 layout)</h2>
        <p className="mb-2 text-xs text-slate-500">
          Δ = difference of pass rates in points over the cases both methods have an outcome for; 95% CI from {report.meta.resamples.toLocaleString("en")} paired case-level
          bootstrap resamples (seed {report.meta.seed}); exact two-sided McNemar on n10/n01; Holm within each family (MAS).
        </p>
        {forest.length ? <ForestPlot rows={forest} /> : null}
        <ComparisonsTable report={report} basePath={basePath} />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 font-semibold">API-call efficiency (Table 9 layout)</h2>
        <EfficiencyTable report={report} basePath={basePath} />
      </section>
      {errors.length ? (
        <section className="rounded border border-red-200 bg-white p-4" data-testid="error-list">
          <h2 className="mb-2 font-semibold">System and framework errors ({errors.length}, counted as failures)</h2>
          <ul className="list-inside list-disc text-xs">
            {errors.slice(0, 50).map((a) => (
              <li key={a.id} className="trace-text">
                {a.caseBundleId} · {methodLabel(a.method)} #{a.attempt}: {a.error ?? "error"}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {drill ? <AttemptList attempts={drill} experimentId={e.id} title={drillTitle} /> : null}
    </div>
  );
}
