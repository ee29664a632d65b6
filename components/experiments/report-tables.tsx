import Link from "next/link";
import { MARS_REPORT_NOTE, methodLabel, NO_JUDGE_NOTE, type ExperimentReport, type GroupRow, type MethodCell, type RateCI } from "@/lib/experiments";
import { cellHref, ciPct, pct, points, pValue } from "./format";

const TH = "px-2 py-1.5 font-medium";
const TD = "px-2 py-1 font-mono";

function RateLink({ href, r, testId, title }: { href: string; r: RateCI | null; testId: string; title: string }) {
  return (
    <Link href={href} className="block text-blue-700 hover:underline" data-testid={testId} title={title}>
      <span data-testid="rate">{pct(r?.rate)}</span>
      {r && r.n ? <span className="block text-[10px] text-slate-500">{Number.isInteger(r.x) ? r.x : r.x.toFixed(2)}/{r.n} {ciPct(r)}</span> : null}
    </Link>
  );
}

const groupLabel = (g: GroupRow) => (g.kind === "total" ? "Total" : g.kind === "category" && g.key === "none" ? "no category" : g.key);

/** Table 2 layout: rep_1 and rep_3 (%) per method (rows) by MAS and total (columns). */
export function ReproductionTable({ report, basePath }: { report: ExperimentReport; basePath: string }) {
  const groups = report.byMas;
  const methods = Object.keys(report.methods);
  const unjudged = report.meta.notes.includes(NO_JUDGE_NOTE);
  return (
    <>
    {unjudged ? (
      <p className="mb-2 text-xs text-amber-800" data-testid="rep-not-measured">
        Not measured: {NO_JUDGE_NOTE}
      </p>
    ) : null}
    <table className="w-full text-left text-sm" data-testid="reproduction-table">
      <thead className="border-b border-slate-200 text-xs text-slate-500">
        <tr>
          <th className={TH} rowSpan={2}>Method</th>
          <th className={TH} colSpan={groups.length}>rep₁ (%)</th>
          <th className={TH} colSpan={groups.length}>rep₃ (%)</th>
        </tr>
        <tr>
          {[...groups, ...groups].map((g, i) => (
            <th key={i} className={TH}>{groupLabel(g)}</th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {methods.map((m) => (
          <tr key={m} data-method={m}>
            <td className="px-2 py-1">{methodLabel(m)}</td>
            {(["rep1", "rep3"] as const).flatMap((which) =>
              groups.map((g) => (
                <td key={which + g.key} className={TD} data-col={`${which}:${g.key}`}>
                  <RateLink href={cellHref(basePath, { method: m, mas: g.key })} r={g.cells[m][which]} testId={`cell-${which}-${m}-${g.key}`} title={`${which} of ${methodLabel(m)} on ${groupLabel(g)}: attempts`} />
                </td>
              )),
            )}
          </tr>
        ))}
      </tbody>
    </table>
    </>
  );
}

/** Table 3 layout: groups (MAS rows, then primary-category rows, then the total) × methods, pass@k (%) with Wilson 95%. */
export function RepairGroupsTable({ report, basePath }: { report: ExperimentReport; basePath: string }) {
  const methods = Object.keys(report.methods);
  const rows: Array<{ g: GroupRow; section: string }> = [
    ...report.byMas.filter((g) => g.kind === "mas").map((g) => ({ g, section: "MAS" })),
    ...report.byCategory.filter((g) => g.kind === "category").map((g) => ({ g, section: "Category" })),
    ...report.byMas.filter((g) => g.kind === "total").map((g) => ({ g, section: "" })),
  ];
  return (
    <table className="w-full text-left text-sm" data-testid="repair-groups-table">
      <thead className="border-b border-slate-200 text-xs text-slate-500">
        <tr>
          <th className={TH}>Group</th>
          <th className={TH}>Cases</th>
          {methods.map((m) => (
            <th key={m} className={TH}>
              {methodLabel(m)} <span className="font-normal">pass@{report.methods[m].pass.k}</span>
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map(({ g, section }) => (
          <tr key={g.kind + g.key} data-group={`${g.kind}:${g.key}`}>
            <td className="px-2 py-1">
              {section ? <span className="mr-1 text-xs text-slate-500">{section}</span> : null}
              {groupLabel(g)}
            </td>
            <td className={TD}>{g.cases}</td>
            {methods.map((m) => (
              <td key={m} className={TD}>
                <RateLink
                  href={cellHref(basePath, { method: m, ...(g.kind === "category" ? { category: g.key } : { mas: g.key }) })}
                  r={g.cells[m].pass}
                  testId={`cell-pass-${m}-${g.kind}-${g.key}`}
                  title={`pass of ${methodLabel(m)} on ${groupLabel(g)}: attempts`}
                />
                <CellNotes c={g.cells[m]} />
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CellNotes({ c }: { c: MethodCell }) {
  const parts = [c.errors ? `${c.errors} error` : "", c.skippedCases ? `${c.skippedCases} skipped` : "", c.pendingCases ? `${c.pendingCases} pending` : "", c.noVerdictCases ? `${c.noVerdictCases} no verdict` : ""].filter(Boolean);
  return parts.length ? <span className="block text-[10px] text-amber-700">{parts.join(" · ")}</span> : null;
}

/** Table 4 layout: methods (rows) with their attempt budget × MAS and total (columns), pass rate (%). */
export function RepairByMasTable({ report, basePath }: { report: ExperimentReport; basePath: string }) {
  const groups = report.byMas;
  return (
    <table className="w-full text-left text-sm" data-testid="repair-by-mas-table">
      <thead className="border-b border-slate-200 text-xs text-slate-500">
        <tr>
          <th className={TH}>Method</th>
          <th className={TH}>Att.</th>
          {groups.map((g) => (
            <th key={g.key} className={TH}>{groupLabel(g)}</th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {Object.entries(report.methods).map(([m, s]) => (
          <tr key={m} data-method={m}>
            <td className="px-2 py-1">{methodLabel(m)}</td>
            <td className={TD}>{s.pass.k}</td>
            {groups.map((g) => (
              <td key={g.key} className={TD}>
                <RateLink href={cellHref(basePath, { method: m, mas: g.key })} r={g.cells[m].pass} testId={`cell-mas-${m}-${g.key}`} title={`pass of ${methodLabel(m)} on ${groupLabel(g)}: attempts`} />
                <CellNotes c={g.cells[m]} />
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Tables 7–8 layout: paired comparisons per family with Δ, bootstrap CI, n10/n01, McNemar and Holm p. */
export function ComparisonsTable({ report, basePath }: { report: ExperimentReport; basePath: string }) {
  return (
    <table className="w-full text-left text-sm" data-testid="comparisons-table">
      <thead className="border-b border-slate-200 text-xs text-slate-500">
        <tr>
          <th className={TH}>Family</th>
          <th className={TH}>Method</th>
          <th className={TH}>Comparator</th>
          <th className={TH}>Method pass</th>
          <th className={TH}>Comparator pass</th>
          <th className={TH}>Δ points [95% CI]</th>
          <th className={TH}>n10/n01</th>
          <th className={TH}>Raw p</th>
          <th className={TH}>p_H (Holm)</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {report.comparisons.map((c) => (
          <tr key={`${c.family}:${c.a}:${c.b}`} data-comparison={`${c.family}:${c.a}:${c.b}`}>
            <td className="px-2 py-1">{c.family}</td>
            {[c.a, c.b].map((m) => (
              <td key={m} className="px-2 py-1">
                <Link className="text-blue-700 hover:underline" href={cellHref(basePath, { method: m, mas: c.family })}>
                  {methodLabel(m)}
                </Link>
              </td>
            ))}
            <td className={TD}>{c.n ? `${c.aPassed}/${c.n} (${pct(c.aPassed / c.n)}%)` : "—"}</td>
            <td className={TD}>{c.n ? `${c.bPassed}/${c.n} (${pct(c.bPassed / c.n)}%)` : "—"}</td>
            <td className={TD} data-testid="diff">
              {points(c.diffPoints)} {c.lo !== null && c.hi !== null ? `[${c.lo.toFixed(2)}, ${c.hi.toFixed(2)}]` : ""}
            </td>
            <td className={TD}>
              {c.n10}/{c.n01}
            </td>
            <td className={TD} data-testid="mcnemar-p">{pValue(c.mcnemarP)}</td>
            <td className={`${TD} ${c.holmP !== null && c.holmP < 0.05 ? "font-semibold text-emerald-700" : ""}`} data-testid="holm-p">
              {pValue(c.holmP)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Table 9 layout: API calls, repairs, repairs per 1,000 calls and calls per repair, per MAS and overall. */
export function EfficiencyTable({ report, basePath }: { report: ExperimentReport; basePath: string }) {
  return (
    <table className="w-full text-left text-sm" data-testid="efficiency-table">
      <thead className="border-b border-slate-200 text-xs text-slate-500">
        <tr>
          <th className={TH}>MAS</th>
          <th className={TH}>Method</th>
          <th className={TH}>API calls</th>
          <th className={TH}>of which method&apos;s own</th>
          <th className={TH}>Tokens</th>
          <th className={TH}>of which method&apos;s own</th>
          <th className={TH}>Repairs</th>
          <th className={TH}>Repairs / 1K calls</th>
          <th className={TH}>Calls / repair</th>
          <th className={TH}>Tokens / repair</th>
          <th className={TH} title="the attempts the repair table's pass@k counts (node level: attempt 1); later node-level attempts, run for rep_k only, are shown apart">Attempts</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {report.efficiency.map((e) => (
          <tr key={`${e.mas}:${e.method}`} data-efficiency={`${e.mas}:${e.method}`}>
            <td className="px-2 py-1">{e.mas === "all" ? "Total" : e.mas}</td>
            <td className="px-2 py-1">
              <Link className="text-blue-700 hover:underline" href={cellHref(basePath, { method: e.method, mas: e.mas })}>
                {methodLabel(e.method)}
              </Link>
            </td>
            <td className={TD}>{e.apiCalls}</td>
            <td className={TD}>{e.auxCalls}</td>
            <td className={TD}>{e.tokens}</td>
            <td className={TD} data-testid="aux-tokens">
              {e.auxCalls > 0 && !e.auxTokens ? <span className="text-slate-500" title="the method made its own LLM calls but their tokens were not recorded apart (the endpoint gave no usage, or the attempts predate the split)">not recorded</span> : (e.auxTokens ?? 0)}
            </td>
            <td className={TD}>{e.repairs}</td>
            <td className={TD} data-testid="per1k">{e.repairsPer1k === null ? "—" : e.repairsPer1k.toFixed(1)}</td>
            <td className={TD}>{e.callsPerRepair === null ? "—" : e.callsPerRepair.toFixed(1)}</td>
            <td className={TD} data-testid="tokens-per-repair">{e.tokensPerRepair == null ? "—" : e.tokensPerRepair.toFixed(0)}</td>
            <td className={TD} data-testid="eff-attempts">
              {e.attempts ?? "—"}
              {e.noVerdict ? <span className="block text-[10px] text-amber-700">{e.noVerdict} no verdict</span> : null}
              {e.beyondK?.attempts ? <span className="block text-[10px] text-slate-500">+{e.beyondK.attempts} for rep_k ({e.beyondK.calls} calls)</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The note an experiment with a `mars` arm carries (issue 15 item 5): MARS (seeds/002) reports pass
 * rates over all tasks, we over failed source cases; its method's own calls are the selector and
 * judge. Renders nothing without a mars arm.
 */
export function MarsNote({ report }: { report: ExperimentReport }) {
  if (!report.methods.mars) return null;
  return (
    <p className="mt-2 text-xs text-slate-600" data-testid="mars-note">
      {MARS_REPORT_NOTE} Its calls and tokens split into the MAS&apos;s (rollouts) and the method&apos;s own (action selector + judge); the
      evaluator runs once, on the search&apos;s best trajectory.
    </p>
  );
}
