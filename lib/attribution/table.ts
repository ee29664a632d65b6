/**
 * The benchmark table (issue 24 item 2): per attributor × ground-truth setting × subset (never
 * pooled), agent accuracy, step accuracy exact and within ±1, ±2, ±3, ±5 steps, each a rate with
 * a 95% Wilson interval (lib/agreement), tokens and calls per case; the published figure beside.
 *
 * Denominator of every rate: the cases the attributor finished ("done"); a case whose endpoint
 * call failed ("error") or that the budget stopped ("not-run") is counted apart, never as a hit or
 * a miss. A finished case without an answer (no step, unreadable reply) is a miss.
 */
import { wilsonInterval, type Interval } from "../agreement";
import { agentMatches } from "./case";
import { PUBLISHED, type PublishedFigure } from "./published";
import { SUBSETS, type Attribution, type AttributorName, type Subset } from "./types";

/** Step tolerances of the table: exact, ±1, ±2, ±3, ±5. */
export const TOLERANCES = [0, 1, 2, 3, 5] as const;

/** "with" / "without" the task's ground truth in the prompt; "n/a" for attributors that never read it. */
export type GroundTruthSetting = "with" | "without" | "n/a";

/** One job's record: one attributor on one case in one setting. */
export interface CaseResult {
  attributor: AttributorName;
  groundTruth: GroundTruthSetting;
  caseId: string;
  subset: Subset;
  reference: { agent: string | null; step: number | null };
  status: "done" | "error" | "not-run";
  attribution: Attribution | null;
  error: string | null;
}

export interface Rate {
  x: number;
  n: number;
  rate: number | null;
  ci95: Interval | null;
}

export const rateOf = (x: number, n: number): Rate => ({ x, n, rate: n ? x / n : null, ci95: wilsonInterval(x, n) });

export interface TableRow {
  attributor: AttributorName;
  groundTruth: GroundTruthSetting;
  subset: Subset;
  /** Cases in the plan, finished, failed, not run. */
  cases: number;
  done: number;
  errors: number;
  notRun: number;
  agent: Rate;
  /** step[k] for k in TOLERANCES: |predicted − labelled| ≤ k. */
  step: Record<(typeof TOLERANCES)[number], Rate>;
  /** Mean over finished cases; null when none finished. */
  tokensPerCase: number | null;
  callsPerCase: number | null;
  calls: number;
  httpCalls: number;
  tokens: number;
  published: PublishedFigure | null;
}

/** Is the predicted step within k of the labelled one? */
export function stepWithin(predicted: number | null, reference: number | null, k: number): boolean {
  return predicted !== null && reference !== null && Math.abs(predicted - reference) <= k;
}

/**
 * Rows of the table, in the order attributors × settings first appear in `results`, then subset
 * (Hand-Crafted, Algorithm-Generated). A case without a labelled step counts as a step miss (all
 * 184 Who&When records have one).
 */
export function buildTable(results: readonly CaseResult[]): TableRow[] {
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    const k = `${r.attributor}\u0000${r.groundTruth}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  const rows: TableRow[] = [];
  for (const [k, rs] of groups) {
    const [attributor, groundTruth] = k.split("\u0000") as [AttributorName, GroundTruthSetting];
    for (const subset of SUBSETS) {
      const sub = rs.filter((r) => r.subset === subset);
      if (!sub.length) continue;
      const done = sub.filter((r) => r.status === "done" && r.attribution);
      const n = done.length;
      const count = (f: (r: CaseResult) => boolean) => done.filter(f).length;
      const calls = done.reduce((s, r) => s + r.attribution!.calls, 0);
      const httpCalls = done.reduce((s, r) => s + r.attribution!.httpCalls, 0);
      const tokens = done.reduce((s, r) => s + r.attribution!.tokens.prompt + r.attribution!.tokens.completion, 0);
      rows.push({
        attributor,
        groundTruth,
        subset,
        cases: sub.length,
        done: n,
        errors: sub.filter((r) => r.status === "error").length,
        notRun: sub.filter((r) => r.status === "not-run").length,
        agent: rateOf(count((r) => agentMatches(r.attribution!.agent, r.reference.agent)), n),
        step: Object.fromEntries(TOLERANCES.map((t) => [t, rateOf(count((r) => stepWithin(r.attribution!.step, r.reference.step, t)), n)])) as TableRow["step"],
        tokensPerCase: n ? tokens / n : null,
        callsPerCase: n ? calls / n : null,
        calls,
        httpCalls,
        tokens,
        published: PUBLISHED[attributor]?.[subset] ?? null,
      });
    }
  }
  return rows;
}

const pct = (r: Rate) => (r.rate === null ? "—" : `${(100 * r.rate).toFixed(1)}% [${(100 * r.ci95![0]).toFixed(1)}–${(100 * r.ci95![1]).toFixed(1)}]`);
const num = (v: number | null, d = 1) => (v === null ? "—" : v.toFixed(d));

/** Column names of {@link tableCsv}. */
export const CSV_COLUMNS = [
  "attributor", "ground_truth", "subset", "cases", "done", "errors", "not_run",
  "agent_hits", "agent_rate", "agent_lo", "agent_hi",
  ...TOLERANCES.flatMap((t) => [`step${t === 0 ? "_exact" : `_pm${t}`}_hits`, `step${t === 0 ? "_exact" : `_pm${t}`}_rate`, `step${t === 0 ? "_exact" : `_pm${t}`}_lo`, `step${t === 0 ? "_exact" : `_pm${t}`}_hi`]),
  "tokens_per_case", "calls_per_case", "calls", "http_calls", "tokens", "published_agent_pct", "published_step_pct",
];

const cell = (v: string | number | null) => {
  const s = v === null ? "" : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** RFC 4180 CSV of the rows (header + one line per row; rates as fractions, empty when undefined). */
export function tableCsv(rows: readonly TableRow[]): string {
  const rate = (r: Rate) => [r.x, r.rate, r.ci95?.[0] ?? null, r.ci95?.[1] ?? null];
  const lines = rows.map((r) =>
    [r.attributor, r.groundTruth, r.subset, r.cases, r.done, r.errors, r.notRun, ...rate(r.agent), ...TOLERANCES.flatMap((t) => rate(r.step[t])), r.tokensPerCase, r.callsPerCase, r.calls, r.httpCalls, r.tokens, r.published?.agent ?? null, r.published?.step ?? null]
      .map(cell)
      .join(","),
  );
  return [CSV_COLUMNS.join(","), ...lines].join("\r\n") + "\r\n";
}

/** The table as fixed-width text lines (what `symtrace detect --eval --attribution` prints under `text`). */
export function formatTable(rows: readonly TableRow[]): string[] {
  const head = ["attributor", "GT", "subset", "done/cases", "agent", "step exact", "±1", "±2", "±3", "±5", "tokens/case", "calls/case", "published agent/step"];
  const body = rows.map((r) => [
    r.attributor,
    r.groundTruth,
    r.subset,
    `${r.done}/${r.cases}${r.errors ? ` (${r.errors} errors)` : ""}${r.notRun ? ` (${r.notRun} not run)` : ""}`,
    `${r.agent.x}/${r.agent.n} ${pct(r.agent)}`,
    ...TOLERANCES.map((t) => `${r.step[t].x}/${r.step[t].n} ${pct(r.step[t])}`),
    num(r.tokensPerCase, 0),
    num(r.callsPerCase, 2),
    r.published ? `${r.published.agent.toFixed(2)} / ${r.published.step.toFixed(2)}` : "—",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ").trimEnd();
  return [line(head), widths.map((w) => "-".repeat(w)).join("-|-"), ...body.map(line)];
}
