import Link from "next/link";
import { CATEGORIES, MIN_CASES_FOR_CI, bootstrapIntervalShown, landisKoch, variableRows, type AgreementReport, type AgreementTable, type SampleSizeWarning } from "@/lib/agreement";
import { caseHref } from "@/lib/case-links";
import { fixed } from "./fixed";

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : fixed(x));
const pct = (x: number, n: number) => (n ? `${((100 * x) / n).toFixed(1)}%` : "—");

/** A section's sample-size warnings (lib/agreement sampleSizeWarnings), shown above its table. */
export function SampleSizeNotes({ warnings }: { warnings: SampleSizeWarning[] }) {
  if (!warnings.length) return null;
  return (
    <ul className="mb-2 flex flex-col gap-1 rounded border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900" data-testid="sample-size-warning">
      {warnings.map((w) => (
        <li key={w.scope + w.message}>{w.message}</li>
      ))}
    </ul>
  );
}

/**
 * What each CSV download holds, as its link says it (issue 22 item 8: a section has two tables, so
 * a bare "CSV" does not tell them apart). One entry per `AGREEMENT_TABLES` name.
 */
export const TABLE_CSV_LABEL: Record<AgreementTable, string> = {
  reliability: "Fleiss' κ per variable",
  exact: "node id (exact) agreement",
  patterns: "initial pattern vs final",
  composition: "final composition",
  cohen: "Cohen's κ per pair",
  "vs-final": "annotator vs final",
  disagreement: "most disagreement",
  "mad-modes": "MAD failure modes",
};

/** "CSV: <table>" link of one dashboard table (`/api/agreement?format=csv&table=...` with the page's filter). */
export function TableCsvLink({ table, qs }: { table: AgreementTable; qs: string }) {
  return (
    <a className="text-xs font-normal text-blue-700 underline" data-testid={`csv-${table}`} href={`/api/agreement?format=csv&table=${table}${qs ? "&" + qs : ""}`}>
      CSV: {TABLE_CSV_LABEL[table]}
    </a>
  );
}

/** Table 6: Fleiss' κ with its bootstrap CI and Landis–Koch reading, pairwise and 3/3 agreement. */
export function ReliabilityTable({ r }: { r: AgreementReport }) {
  return (
    <table className="w-full text-left text-sm" data-testid="reliability-table">
      <thead className="border-b border-slate-200 text-xs uppercase text-slate-500">
        <tr>
          <th className="py-1.5">Variable</th>
          <th>Fleiss&apos; κ</th>
          <th>95% CI</th>
          <th>Reading</th>
          <th>Pairwise agreement</th>
          <th>3/3</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {variableRows(r).map(([name, v]) => (
          <tr key={name} data-variable={name}>
            <td className="py-1.5">{name}</td>
            <td className="font-mono" data-testid="kappa">
              {v.kappa === null ? <span title={v.kappaReason ?? undefined}>undefined{v.kappaReason ? <span className="block font-sans text-xs text-slate-500" data-testid="kappa-reason">{v.kappaReason}</span> : null}</span> : f3(v.kappa)}
            </td>
            <td className="font-mono text-xs" data-testid="kappa-ci">{!bootstrapIntervalShown(r.cases) ? `— (n < ${MIN_CASES_FOR_CI})` : v.ci95 ? `${f3(v.ci95[0])} – ${f3(v.ci95[1])}` : `— (${v.ciReason ?? v.kappaReason ?? "no interval"})`}</td>
            <td>{landisKoch(v.kappa)}</td>
            <td className="font-mono">{(100 * v.pairwiseAgreement).toFixed(1)}%</td>
            <td className="font-mono">
              {v.unanimous}/{r.cases}
            </td>
          </tr>
        ))}
        <tr data-variable="Node id">
          <td className="py-1.5">Node id (exact)</td>
          <td colSpan={2} className="font-mono text-xs">
            all three {r.node.allThree}/{r.cases} ({pct(r.node.allThree, r.cases)}
            {r.node.allThreeWilson95 ? `, Wilson ${(100 * r.node.allThreeWilson95[0]).toFixed(2)}–${(100 * r.node.allThreeWilson95[1]).toFixed(2)}%` : ""})
          </td>
          <td colSpan={3} className="font-mono text-xs">
            at least two {r.node.atLeastTwo}/{r.cases} ({pct(r.node.atLeastTwo, r.cases)})
          </td>
        </tr>
        <tr data-variable="Strict tuple">
          <td className="py-1.5">Strict tuple</td>
          <td colSpan={2} className="font-mono text-xs">
            all three {r.tuple.allThree}/{r.cases}
          </td>
          <td colSpan={3} className="font-mono text-xs">
            at least two {r.tuple.atLeastTwo}/{r.cases}
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** Table 5: initial pattern vs the final, support, set vs union, composition. */
export function PatternTable({ r }: { r: AgreementReport }) {
  const f = r.final;
  if (!f) return <p className="text-sm text-slate-500">No finalized case yet.</p>;
  const rows: Array<[string, keyof typeof f.patterns]> = [
    ["Unanimous", "unanimous"],
    ["2–1 split", "split"],
    ["All distinct", "allDistinct"],
  ];
  return (
    <div className="flex flex-col gap-3 text-sm" data-testid="pattern-table">
      <table className="w-full text-left">
        <thead className="border-b border-slate-200 text-xs uppercase text-slate-500">
          <tr>
            <th className="py-1.5">Initial pattern</th>
            <th>Cases</th>
            <th>Kept unanimous</th>
            <th>Kept majority</th>
            <th>Kept minority</th>
            <th>Kept one proposed</th>
            <th>New tuple</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 font-mono">
          {rows.map(([label, k]) => (
            <tr key={k}>
              <td className="py-1.5 font-sans">{label}</td>
              <td>{f.patterns[k].cases}</td>
              <td>{f.patterns[k].keptUnanimous}</td>
              <td>{f.patterns[k].keptMajority}</td>
              <td>{f.patterns[k].keptMinority}</td>
              <td>{f.patterns[k].keptProposed}</td>
              <td>{f.patterns[k].newTuple}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Final supported by 3 / 2 / 1 / 0 initial annotators:{" "}
        <span className="font-mono">
          {f.supportedBy["3"]} / {f.supportedBy["2"]} / {f.supportedBy["1"]} / {f.supportedBy["0"]}
        </span>
        . Final set equals the union in <span className="font-mono">{f.setEqualsUnion}</span> case(s), differs in{" "}
        <span className="font-mono">{f.setDiffersFromUnion}</span>.
      </p>
      <table className="w-auto text-left text-xs">
        <thead className="text-slate-500">
          <tr>
            <th className="pr-4">Category</th>
            <th className="pr-4">Added by adjudicator</th>
            <th className="pr-4">Removed</th>
            <th className="pr-4">Final primary</th>
            <th>Final marginal</th>
          </tr>
        </thead>
        <tbody className="font-mono">
          {CATEGORIES.map((c) => (
            <tr key={c}>
              <td className="pr-4 font-sans">{c}</td>
              <td>{f.added[c]}</td>
              <td>{f.removed[c]}</td>
              <td>{f.primary[c]}</td>
              <td>{f.marginal[c]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>Mean category cardinality of finals: {f.meanCardinality === null ? "—" : fixed(f.meanCardinality)}</p>
    </div>
  );
}

/** Cohen's κ per annotator pair and each annotator's agreement with the final. */
export function PerAnnotator({ r, vsFinal }: { r: AgreementReport; vsFinal: Array<{ annotator: string; cases: number; primary: number; node: number; tuple: number }> }) {
  return (
    <div className="grid gap-4 text-sm md:grid-cols-2">
      <table className="text-left text-xs" data-testid="cohen-table">
        <thead className="text-slate-500">
          <tr>
            <th className="pr-3">Pair</th>
            <th className="pr-3">Cases</th>
            <th>Cohen&apos;s κ (primary)</th>
          </tr>
        </thead>
        <tbody className="font-mono">
          {r.cohen.primaryCategory.map((p) => (
            <tr key={p.a + p.b}>
              <td className="pr-3 font-sans">
                {p.a} · {p.b}
              </td>
              <td className="pr-3">{p.items}</td>
              <td>{f3(p.kappa)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table className="text-left text-xs" data-testid="vs-final-table">
        <thead className="text-slate-500">
          <tr>
            <th className="pr-3">Annotator</th>
            <th className="pr-3">Finalized cases</th>
            <th className="pr-3">Primary = final</th>
            <th className="pr-3">Node = final</th>
            <th>Tuple = final</th>
          </tr>
        </thead>
        <tbody className="font-mono">
          {vsFinal.map((a) => (
            <tr key={a.annotator}>
              <td className="pr-3 font-sans">{a.annotator}</td>
              <td className="pr-3">{a.cases}</td>
              <td className="pr-3">{pct(a.primary, a.cases)}</td>
              <td className="pr-3">{pct(a.node, a.cases)}</td>
              <td>{pct(a.tuple, a.cases)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The cases with the most disagreement, linking to their adjudication view. */
export function DisagreementList({ cases }: { cases: Array<{ caseId: string; tuples: number; sets: number; nodes: number; finalized: boolean }> }) {
  if (!cases.length) return <p className="text-sm text-slate-500">No case with three submitted annotations.</p>;
  return (
    <ol className="flex flex-col gap-1 text-sm" data-testid="disagreement-list">
      {cases.slice(0, 15).map((c) => (
        <li key={c.caseId} className="flex flex-wrap items-center gap-2">
          <Link href={caseHref(c.caseId)} className="font-mono text-xs text-blue-700 underline">
            {c.caseId}
          </Link>
          <span className="text-xs text-slate-600">
            {c.tuples} distinct tuple(s), {c.sets} category set(s), {c.nodes} node(s){c.finalized ? " · finalized" : ""}
          </span>
        </li>
      ))}
    </ol>
  );
}

/** MAST/MAD reference labels: pooled binary Fleiss' κ and a per-failure-mode table. */
export function MadTable({
  mad,
}: {
  mad: {
    pooled: { items: number; kappa: number | null; reason: string | null; unanimous: number; excluded: { count: number; items: Array<{ trace: string; mode: string }> } };
    modes: Array<{ mode: string; traces: number; yes: number[]; unanimous: number; excluded: number }>;
    annotators: string[];
  };
}) {
  return (
    <div className="flex flex-col gap-2 text-sm" data-testid="mad-agreement">
      <p>
        Pooled binary Fleiss&apos; κ over (trace, failure mode) items:{" "}
        <span className="font-mono font-semibold" data-testid="mad-kappa">
          {mad.pooled.kappa === null ? "undefined" : mad.pooled.kappa.toFixed(4)}
        </span>{" "}
        on <span data-testid="mad-items">{mad.pooled.items}</span> items ({landisKoch(mad.pooled.kappa)}); {mad.pooled.unanimous} unanimous.
      </p>
      <p className="text-xs text-slate-500">
        Modes are listed by their full text: MAD&apos;s rounds use three taxonomy versions whose codes mean different things (e.g. 1.1 is &ldquo;Poor task
        constraint compliance&rdquo; in round 1 and &ldquo;Disobey Task Specification&rdquo; in the final MAST), so the same code can appear twice.
      </p>
      <p className="text-xs text-amber-800" data-testid="mad-excluded">
        {mad.pooled.excluded.count} item(s) excluded because a rating is missing (NaN in the data):{" "}
        {mad.pooled.excluded.items.map((i) => `${i.trace} · ${i.mode.split("\n")[0].trim()}`).join("; ") || "none"}
      </p>
      <div className="max-h-96 overflow-auto">
        <table className="w-full text-left text-xs">
          <thead className="sticky top-0 bg-white text-slate-500">
            <tr>
              <th className="py-1">Failure mode</th>
              <th>Traces</th>
              {mad.annotators.map((a) => (
                <th key={a}>{a} yes</th>
              ))}
              <th>All agree</th>
              <th>Excluded</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 font-mono">
            {mad.modes.map((m) => (
              <tr key={m.mode}>
                <td className="py-1 font-sans" title={m.mode}>
                  {m.mode.split("\n")[0].trim()}
                </td>
                <td>{m.traces}</td>
                {mad.annotators.map((a, i) => (
                  <td key={a}>{m.yes[i] ?? 0}</td>
                ))}
                <td>{m.unanimous}</td>
                <td>{m.excluded}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
