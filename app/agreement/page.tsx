import type { Metadata } from "next";
import { blindnessGate, getDb, listCaseFacets } from "@/lib/db";
import { agreementFromDb, disagreementFromDb, madAgreementFromDb } from "@/lib/services/agreement";
import { caseListQuerySchema } from "@/lib/schemas/cases";
import { requireViewer } from "@/lib/session";
import { CaseFilters } from "@/components/trace/case-filters";
import { KappaChart } from "@/components/agreement/category-chart";
import { bootstrapIntervalShown, sampleSizeWarnings, variableRows } from "@/lib/agreement";
import { MachineAgreement } from "@/components/agreement/machine-agreement";
import { humanMachineFromDb } from "@/lib/services/agreement-machine";
import { DisagreementList, MadTable, PatternTable, PerAnnotator, ReliabilityTable, SampleSizeNotes, TableCsvLink } from "@/components/agreement/tables";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Agreement" };

/**
 * The κ dashboard (Tables 5 and 6 of seeds/000) over the app's submitted annotations, plus the
 * MAST/MAD reference labels' failure-mode agreement. Researchers, adjudicators and admins; an
 * annotator with unsubmitted work sees nothing of others' work here either.
 */
export default async function AgreementPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const viewer = await requireViewer("researcher", "adjudicator", "admin");
  const db = getDb();
  const gate = await blindnessGate(db, viewer, { allCases: true });
  if (!gate.references) {
    return <p className="rounded border border-amber-300 bg-amber-50 p-4 text-sm">Agreement figures are hidden while you have unsubmitted annotations of your own ({gate.openOwn}).</p>;
  }
  const sp = await searchParams;
  const q = caseListQuerySchema.parse(sp);
  const date = (v: unknown) => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);
  const filter = { dataset: q.dataset, mas: q.mas, benchmark: q.benchmark, from: date(sp.from), to: date(sp.to) };
  const [report, mad, dis, facets] = await Promise.all([agreementFromDb(db, filter), madAgreementFromDb(db), disagreementFromDb(db, filter), listCaseFacets(db)]);
  const machine = await humanMachineFromDb(db, filter);
  const qs = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as Array<[string, string]>).toString();
  const warnings = report.ok ? sampleSizeWarnings({ cases: report.cases, pairs: report.cohen.primaryCategory, vsFinal: dis.perAnnotator }) : [];
  const warn = (scope: string) => warnings.filter((w) => w.scope === scope);
  const ciShown = report.ok && bootstrapIntervalShown(report.cases);
  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h1 className="text-xl font-semibold">Agreement</h1>
        <span className="flex gap-3 text-sm">
          <a className="text-blue-700 underline" href={`/api/agreement?format=csv${qs ? "&" + qs : ""}`}>
            Download CSV (reliability)
          </a>
          <a className="text-blue-700 underline" href={`/api/agreement?format=json${qs ? "&" + qs : ""}`}>
            Download JSON
          </a>
        </span>
      </div>
      <CaseFilters values={{ ...q, q: undefined }} facets={facets} action="/agreement" hideSearch dates={{ from: filter.from, to: filter.to }} />
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 flex items-baseline gap-3 font-semibold">
          Reliability of the initial annotations (Fleiss&apos; κ, three annotators) <TableCsvLink table="reliability" qs={qs} /> <TableCsvLink table="exact" qs={qs} />
        </h2>
        {report.ok ? (
          <>
            <p className="mb-2 text-xs text-slate-500" data-testid="agreement-cases">
              {report.cases} case(s) with three submitted initial annotations · 95% percentile bootstrap, {report.bootstrap.resamples.toLocaleString("en")} case-level resamples, seed{" "}
              {report.bootstrap.seed}
              {report.excluded.length ? ` · ${report.excluded.length} case(s) left out (not exactly three annotations)` : ""}
            </p>
            <SampleSizeNotes warnings={warn("reliability")} />
            <ReliabilityTable r={report} />
            <KappaChart data={variableRows(report).map(([name, v]) => ({ name: name.replace(" present", "").replace("Exact category set", "Set").replace("Primary category", "Primary").replace("Failure-node type", "Node type"), kappa: v.kappa, lo: ciShown ? (v.ci95?.[0] ?? null) : null, hi: ciShown ? (v.ci95?.[1] ?? null) : null }))} />
          </>
        ) : (
          <p className="text-sm text-slate-600">{report.errors.map((e) => e.message).join("; ")}</p>
        )}
      </section>
      {report.ok ? (
        <>
          <section className="rounded border border-slate-200 bg-white p-4">
            <h2 className="mb-2 flex items-baseline gap-3 font-semibold">
              Initial pattern vs final (adjudication) <TableCsvLink table="patterns" qs={qs} /> <TableCsvLink table="composition" qs={qs} />
            </h2>
            <PatternTable r={report} />
          </section>
          <section className="rounded border border-slate-200 bg-white p-4">
            <h2 className="mb-2 flex items-baseline gap-3 font-semibold">
              Annotators <TableCsvLink table="cohen" qs={qs} /> <TableCsvLink table="vs-final" qs={qs} />
            </h2>
            <SampleSizeNotes warnings={[...warn("cohen"), ...warn("vs-final")]} />
            <PerAnnotator r={report} vsFinal={dis.perAnnotator} />
          </section>
        </>
      ) : null}
      <section className="rounded border border-slate-200 bg-white p-4" data-testid="human-machine">
        <h2 className="mb-2 font-semibold">Humans vs the LLM annotator (machine rater, never one of the three)</h2>
        <MachineAgreement raters={machine} />
      </section>
      <section className="rounded border border-slate-200 bg-white p-4">
        <h2 className="mb-2 flex items-baseline gap-3 font-semibold">
          Most disagreement <TableCsvLink table="disagreement" qs={qs} />
        </h2>
        <DisagreementList cases={dis.cases} />
      </section>
      {mad ? (
        <section className="rounded border border-slate-200 bg-white p-4">
          <h2 className="mb-2 flex items-baseline gap-3 font-semibold">
            MAST / MAD reference labels: failure-mode agreement <TableCsvLink table="mad-modes" qs={qs} />
          </h2>
          <MadTable mad={mad} />
        </section>
      ) : null}
    </div>
  );
}
