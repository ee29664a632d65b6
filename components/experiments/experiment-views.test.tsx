import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { summarizeExperiment, type AttemptListItem } from "@/lib/experiments";
import { input, records } from "@/lib/experiments/test-fixture";
import { AttemptList } from "./attempt-list";
import { forestRows, passRateSeries } from "./chart-data";
import { ExperimentList } from "./experiment-list";
import { cellHref, ciPct, pct, points, pValue } from "./format";
import { forestAxis } from "./forest-plot";
import { FrozenSettings } from "./frozen-settings";
import { ComparisonsTable, EfficiencyTable, MarsNote, RepairByMasTable, RepairGroupsTable, ReproductionTable } from "./report-tables";

// The views are pure props → markup; rendered on the server renderer and checked for the
// hand-computed values of lib/experiments/test-fixture.ts (see report.test.ts for each number).
const report = summarizeExperiment(input);
const base = "/experiments/exp1";
const html = (el: React.ReactElement) => renderToStaticMarkup(el);
/** Text of the element carrying data-testid (first match), tags stripped. */
function cellText(markup: string, testId: string): string {
  const i = markup.indexOf(`data-testid="${testId}"`);
  if (i < 0) throw new Error(`no ${testId}`);
  const end = markup.indexOf("</a>", i);
  return markup.slice(markup.indexOf(">", i) + 1, end).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

describe("format", () => {
  test.each([
    [0.1637, "16.37"],
    [null, "—"],
    [1, "100.00"],
  ])("pct(%s)", (v, s) => expect(pct(v)).toBe(s));
  test.each([
    [0.21, "0.210"],
    [0.0243, "0.0243"],
    [0.000535, "5.35×10⁻⁴"],
    [1.49e-8, "1.49×10⁻⁸"],
    [null, "—"],
  ])("pValue(%s) = %s (Tables 7–8 style)", (p, s) => expect(pValue(p)).toBe(s));
  test("points, ci, hrefs", () => {
    expect(points(8.19)).toBe("+8.19");
    expect(points(-3.5088)).toBe("-3.51");
    expect(ciPct({ lo: 0.1158, hi: 0.2265 })).toBe("[11.58, 22.65]");
    expect(cellHref(base, { method: "rerun", mas: "all" })).toBe("/experiments/exp1?method=rerun#attempts");
    expect(cellHref(base, { method: "critic", category: "C1" })).toBe("/experiments/exp1?method=critic&category=C1#attempts");
  });
});

describe("report tables", () => {
  test("Table 2 layout: rep1/rep3 per method and MAS with the drill-down link", () => {
    const m = html(<ReproductionTable report={report} basePath={base} />);
    // rep_1 = mean over cases of each case's pass share (eq. 2): (1/2 + 1 + 1) / 3 = 2.5/3; no Wilson interval for shares
    expect(cellText(m, "cell-rep1-rerun-all")).toBe("83.33 2.50/3");
    expect(cellText(m, "cell-rep3-rerun-all")).toMatch(/^50\.00 1\/2 /);
    expect(cellText(m, "cell-rep1-suspicious-node-AG2")).toBe("66.67 1.33/2");
    expect(m).toContain('href="/experiments/exp1?method=rerun&amp;mas=AG2#attempts"');
    expect(m).not.toContain("rep-not-measured");
  });
  test("Table 2 without a reproduction judge: every cell '—' and the page says rep_k is not measured", () => {
    const unjudged = summarizeExperiment({ ...input, attemptsRecords: input.attemptsRecords.map((r) => ({ ...r, reproduced: null })), judged: false });
    const m = html(<ReproductionTable report={unjudged} basePath={base} />);
    expect(m).toContain('data-testid="rep-not-measured"');
    expect(m).toContain("No reproduction judge ran: rep_1 and rep_3 are not measured");
    expect(cellText(m, "cell-rep1-rerun-all")).toBe("—");
  });
  test("Table 3 layout: MAS rows, category rows, total; notes for errors/skips/pending", () => {
    const m = html(<RepairGroupsTable report={report} basePath={base} />);
    expect(cellText(m, "cell-pass-suspicious-node-category-C1")).toMatch(/^100\.00 2\/2 /);
    expect(cellText(m, "cell-pass-rerun-total-all")).toMatch(/^33\.33 1\/3 \[6\.15, 79\.23\]/);
    expect(m).toContain('data-group="category:none"');
    expect(m).toContain("1 pending");
    expect(m).toContain("3 error · 1 skipped");
  });
  test("Table 4 layout: attempt budget per method", () => {
    const m = html(<RepairByMasTable report={report} basePath={base} />);
    expect(m).toMatch(/data-method="suspicious-node"><td[^>]*>Suspicious-Node<\/td><td[^>]*>1<\/td>/);
    expect(m).toMatch(/data-method="rerun"><td[^>]*>Unguided Full Rerun<\/td><td[^>]*>3<\/td>/);
    expect(cellText(m, "cell-mas-suspicious-node-CrewAI")).toMatch(/^100\.00 1\/1/);
  });
  test("comparisons and efficiency", () => {
    const c = html(<ComparisonsTable report={report} basePath={base} />);
    expect(c).toContain('href="/experiments/exp1?method=rerun&amp;mas=CrewAI#attempts"');
    expect(c).toContain('data-comparison="CrewAI:suspicious-node:rerun"');
    expect(c).toContain("+100.00 [100.00, 100.00]");
    const e = html(<EfficiencyTable report={report} basePath={base} />);
    expect(e).toContain('href="/experiments/exp1?method=critic&amp;mas=AG2#attempts"');
    // The efficiency row counts the attempts the repair table counts (k = 1: attempt 1 of each case):
    // 7 calls, 2 repairs → 285.7 per 1k calls, 3.5 calls and 70 / 2 = 35 tokens per repair; the
    // 6 later node-level attempts (13 calls) are shown apart (report.test.ts "efficiency").
    expect(e).toMatch(/data-efficiency="all:suspicious-node">.*?>7<.*?>70<.*?>2<.*?285\.7.*?3\.5.*?>35<.*?>3</);
    expect(e).toContain("+6 for rep_k (13 calls)");
  });
  test("the MARS note appears only with a mars arm (issue 15 item 5)", () => {
    expect(html(<MarsNote report={report} />)).toBe("");
    const withMars = summarizeExperiment({ ...input, methods: [...input.methods, "mars"], attemptsRecords: [...records, { caseId: "c1", mas: "AG2", primaryCategory: "C1", method: "mars", attempt: 1, status: "passed", passed: true, reproduced: false, calls: 12, auxCalls: 8, tokens: 900, auxTokens: 300 }] });
    const note = html(<MarsNote report={withMars} />);
    expect(note).toContain("MARS reports pass rates over all tasks; we report over failures, as SymTrace does.");
    expect(html(<EfficiencyTable report={withMars} basePath={base} />)).toMatch(/data-efficiency="all:mars">.*?<td[^>]*>20<\/td><td[^>]*>8<\/td><td[^>]*>900<\/td><td[^>]*>300<\/td><td[^>]*>1<\/td>/);
  });
});

describe("charts' data", () => {
  test("pass-rate series: one per MAS with Wilson whiskers in percent", () => {
    const d = passRateSeries(report);
    expect(d.methods).toEqual(["Unguided Full Rerun", "Suspicious-Node", "Critic-Agent"]);
    expect(d.series.map((s) => s.key)).toEqual(["AG2", "CrewAI"]);
    const v = d.series[0].values["Unguided Full Rerun"]!;
    expect(v[0]).toBeCloseTo(50, 9);
    expect(d.series[1].values["Critic-Agent"]![0]).toBe(0);
  });
  test("forest rows: comparisons with a Δ, labelled with family and p", () => {
    const f = forestRows(report);
    expect(f.map((r) => r.label)).toEqual(["AG2 · Suspicious-Node vs Unguided Full Rerun", "AG2 · Critic-Agent vs Unguided Full Rerun", "CrewAI · Suspicious-Node vs Unguided Full Rerun"]);
    expect(f[2]).toMatchObject({ diff: 100, lo: 100, hi: 100, p: "1.000", significant: false });
  });
});

test.each([
  [[{ lo: 1.75, hi: 14.62 }], [0, 20], [0, 10, 20]],
  [[{ lo: -8.19, hi: 1.17 }], [-10, 10], [-10, 0, 10]],
  [[{ lo: 0, hi: 100 }, { lo: 100, hi: 100 }], [0, 100], [0, 20, 40, 60, 80, 100]],
  [[{ lo: 0, hi: 0 }], [-10, 10], [-10, 0, 10]],
])("forestAxis(%j) → domain %j, ticks %j", (rows, domain, ticks) => {
  expect(forestAxis(rows)).toEqual({ domain, ticks });
});

describe("lists and settings", () => {
  const attempts: AttemptListItem[] = records.slice(0, 3).map((r, i) => ({ id: `a${i}`, caseBundleId: r.caseId, mas: r.mas, primaryCategory: r.primaryCategory, method: r.method, attempt: r.attempt, status: r.status, passed: r.passed, reproduced: r.reproduced, calls: r.calls, auxCalls: 0, tokens: r.tokens, bundleId: i === 2 ? null : `b/${i}`, anchorNodeId: null, error: i === 2 ? "<b>boom</b>" : null, skipReason: null }));
  test("attempt list links the bundle and its diff, error text stays text", () => {
    const m = html(<AttemptList attempts={attempts} experimentId="exp1" title="Attempts" />);
    expect(m).toContain('href="/experiments/exp1/attempts/a0"');
    expect(m).toContain('href="/cases/b%2F0"');
    expect(m).toContain("&lt;b&gt;boom&lt;/b&gt;");
    expect(m).not.toContain("<b>boom</b>");
    expect((m.match(/data-testid="attempt-diff-link"/g) ?? []).length).toBe(2);
  });
  test("experiment list and frozen settings", () => {
    const m = html(<ExperimentList rows={[{ id: "e1", name: "pilot", status: "running", methods: ["rerun"], caseCount: 4, attempts: 3, done: 5, rows: 12, createdAt: "2026-12-01T09:00:00.000Z", createdBy: "Ada" }]} />);
    expect(m).toContain("pilot");
    expect(m).toContain("5/12");
    expect(m).toContain("2026-12-01 09:00 UTC · Ada");
    const s = html(<FrozenSettings entries={[["upstream", "http://127.0.0.1:1"], ["budget", { maxCalls: 10 }], ["model", null]]} />);
    expect(s).toContain("{&quot;maxCalls&quot;:10}");
    expect(s).toContain('data-setting="model">—');
  });
});
