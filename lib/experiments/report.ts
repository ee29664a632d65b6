/**
 * summarizeExperiment: the statistics of one repair experiment (issue 13 item 5; seeds/000 §5.1,
 * Tables 2–4 and 7–9, Appendix C–E). Pure and deterministic: same input ⇒ identical report.
 *
 * Outcome rules (README.md §Rules):
 * - an attempt's y: status "passed" ⇒ 1; "failed" or "error" ⇒ 0 (errors stay in the denominator
 *   as failures, Appendix C.4); "cancelled", "queued", "running" or missing ⇒ not known (queued and
 *   running rows count for nothing, not even calls); "skipped" ⇒ the method does
 *   not apply to the case: the case leaves that method's denominators and is counted.
 * - pass@k per case: task level k = K attempts (eq. 3/16: any pass among them; known once a pass
 *   or K known failures is seen); node level k = 1 (attempt 1; Table 4 compares node-level pass@1
 *   with task-level pass@3).
 * - z (reproduced): the judge's verdict; a passed attempt without a verdict counts as not
 *   reproduced (the failure did not happen) when the experiment has a judge; failed/error attempts
 *   without a verdict are not judged; without a judge no z is known and rep_k is not measured.
 */
import { MATCHED_CONTROLS, methodLevel } from "./methods";
import { MARS_REPORT_NOTE } from "./mars";
import { caseRepK, casePassAtK, DIFF_RESAMPLES, efficiency, holmAdjust, mcnemarExact, pairedBootstrapDiff, rateWithWilson, seed32 } from "./stats";
import type {
  AttemptRecord,
  Comparison,
  EfficiencyRow,
  ExperimentReport,
  ExperimentReportInput,
  GroupRow,
  MethodCell,
  MethodLevel,
  MethodSummary,
} from "./types";

const STATUSES = new Set(["passed", "failed", "error", "no_verdict", "skipped", "cancelled", "queued", "running"]);
/** The row key of the total row and the family of a one-MAS experiment. */
export const ALL = "all";
/** The category key of cases without a primary category. */
export const NO_CATEGORY = "none";

/** What one method did on one case. */
interface CaseMethod {
  skipped: boolean;
  /** pass@k outcome: true/false, null when not known (or skipped, or no verdict) */
  pass: boolean | null;
  /** every attempt of the pass@k window ran and none passed, but some had no verdict: excluded from the rate, counted */
  noVerdict: boolean;
  /** judged z values (all K executions: rep_k is over the K executions) */
  z: boolean[];
  /** The fields below count the attempts of the pass@k window (task level: 1..K; node level: attempt 1) — the attempts the repair table's rate is over. */
  ran: number;
  errors: number;
  /** attempts that ran but got no evaluator verdict */
  noVerdictAttempts: number;
  cancelled: number;
  skippedAttempts: number;
  masCalls: number;
  auxCalls: number;
  tokens: number;
  auxTokens: number;
  repairs: number;
  /** attempts after the pass@k window (node level, attempts 2..K: run for rep_k only) and their calls: spent, not in the repair or efficiency figures */
  beyondK: { attempts: number; calls: number; tokens: number };
}

function fail(msg: string): never {
  throw new RangeError(`summarizeExperiment: ${msg}`);
}

function validate(input: ExperimentReportInput): void {
  const K = input.attempts;
  if (!Number.isInteger(K) || K < 1) fail(`attempts must be an integer >= 1, got ${K}`);
  if (!Number.isSafeInteger(input.seed)) fail(`seed must be a safe integer, got ${input.seed}`);
  if (input.methods.length === 0) fail("methods is empty");
  const ms = new Set<string>();
  input.methods.forEach((m, i) => {
    if (typeof m !== "string" || m === "") fail(`methods[${i}] must be a non-empty string`);
    if (ms.has(m)) fail(`methods[${i}] "${m}" is listed twice`);
    ms.add(m);
  });
  const cs = new Set<string>();
  input.cases.forEach((c, i) => {
    if (typeof c.caseId !== "string" || c.caseId === "") fail(`cases[${i}].caseId must be a non-empty string`);
    if (cs.has(c.caseId)) fail(`cases[${i}].caseId "${c.caseId}" is listed twice`);
    if (typeof c.mas !== "string" || c.mas === "") fail(`cases[${i}].mas must be a non-empty string`);
    cs.add(c.caseId);
  });
  const seen = new Set<string>();
  input.attemptsRecords.forEach((r, i) => {
    const at = `attemptsRecords[${i}]`;
    if (!cs.has(r.caseId)) fail(`${at}.caseId "${r.caseId}" is not in cases`);
    if (!ms.has(r.method)) fail(`${at}.method "${r.method}" is not in methods`);
    if (!Number.isInteger(r.attempt) || r.attempt < 1 || r.attempt > K) fail(`${at}.attempt must be an integer in 1..${K}, got ${r.attempt}`);
    if (!STATUSES.has(r.status)) fail(`${at}.status "${r.status}" is not one of ${[...STATUSES].join(", ")}`);
    for (const f of ["calls", "auxCalls", "tokens"] as const) {
      if (!Number.isInteger(r[f]) || r[f] < 0) fail(`${at}.${f} must be an integer >= 0, got ${r[f]}`);
    }
    if (r.auxTokens !== undefined && (!Number.isInteger(r.auxTokens) || r.auxTokens < 0 || r.auxTokens > r.tokens)) fail(`${at}.auxTokens must be an integer in 0..tokens, got ${r.auxTokens}`);
    const key = `${r.caseId}\u0000${r.method}\u0000${r.attempt}`;
    if (seen.has(key)) fail(`${at}: attempt ${r.attempt} of method "${r.method}" on case "${r.caseId}" is recorded twice`);
    seen.add(key);
  });
  for (const [i, c] of (input.comparisons ?? []).entries()) {
    if (!ms.has(c.a)) fail(`comparisons[${i}].a "${c.a}" is not in methods`);
    if (!ms.has(c.b)) fail(`comparisons[${i}].b "${c.b}" is not in methods`);
    if (c.a === c.b) fail(`comparisons[${i}] compares "${c.a}" with itself`);
  }
}

function outcomeOf(r: AttemptRecord): boolean | null {
  if (r.status === "passed") return true;
  // no_verdict is treated as "not a pass" for the window, then told apart below (never a failure)
  if (r.status === "failed" || r.status === "error" || r.status === "no_verdict") return false;
  return null;
}

function caseMethod(records: ReadonlyArray<AttemptRecord | undefined>, K: number, level: MethodLevel, judged: boolean): CaseMethod {
  const cm: CaseMethod = { skipped: false, pass: null, noVerdict: false, z: [], ran: 0, errors: 0, noVerdictAttempts: 0, cancelled: 0, skippedAttempts: 0, masCalls: 0, auxCalls: 0, tokens: 0, auxTokens: 0, repairs: 0, beyondK: { attempts: 0, calls: 0, tokens: 0 } };
  const window = level === "task" ? K : 1;
  const outcomes: Array<boolean | null> = [];
  let windowNoVerdict = false;
  for (let a = 0; a < K; a++) {
    const r = records[a];
    outcomes.push(r ? outcomeOf(r) : null);
    if (!r || r.status === "queued" || r.status === "running") continue;
    if (r.status === "skipped") {
      cm.skipped = true;
      cm.skippedAttempts++;
      continue;
    }
    if (r.status !== "cancelled") {
      const z = r.reproduced ?? (judged && r.status === "passed" ? false : null);
      if (z !== null) cm.z.push(z);
    }
    if (a >= window) {
      // run for rep_k only (node level): spent, shown apart, not counted by the repair or efficiency tables
      if (r.status !== "cancelled") cm.beyondK.attempts++;
      cm.beyondK.calls += r.calls + r.auxCalls;
      cm.beyondK.tokens += r.tokens;
      continue;
    }
    if (r.status === "no_verdict") windowNoVerdict = true;
    cm.masCalls += r.calls;
    cm.auxCalls += r.auxCalls;
    cm.tokens += r.tokens;
    cm.auxTokens += r.auxTokens ?? 0;
    if (r.status === "cancelled") {
      cm.cancelled++;
      continue;
    }
    cm.ran++;
    if (r.status === "error") cm.errors++;
    if (r.status === "no_verdict") cm.noVerdictAttempts++;
    if (r.status === "passed") cm.repairs++;
  }
  if (!cm.skipped) {
    cm.pass = casePassAtK(outcomes, window);
    // no pass in the window and an attempt without a verdict there: not a failure, not a rate member
    if (cm.pass === false && windowNoVerdict) {
      cm.pass = null;
      cm.noVerdict = true;
    }
  }
  return cm;
}

function cellOf(method: string, level: MethodLevel, K: number, rows: CaseMethod[]): MethodCell {
  let passX = 0;
  let passN = 0;
  let repX = 0;
  let repN = 0;
  let repBinary = true;
  let rep3X = 0;
  let rep3N = 0;
  const cell: MethodCell = {
    method,
    level,
    k: level === "task" ? K : 1,
    cases: rows.length,
    pass: rateWithWilson(0, 0),
    rep1: rateWithWilson(0, 0),
    rep3: null,
    attempts: 0,
    skipped: 0,
    errors: 0,
    noVerdict: 0,
    cancelled: 0,
    skippedCases: 0,
    pendingCases: 0,
    noVerdictCases: 0,
    calls: 0,
    repairs: 0,
  };
  for (const cm of rows) {
    cell.attempts += cm.ran;
    cell.skipped += cm.skippedAttempts;
    cell.errors += cm.errors;
    cell.noVerdict += cm.noVerdictAttempts;
    cell.cancelled += cm.cancelled;
    cell.calls += cm.masCalls + cm.auxCalls;
    cell.repairs += cm.repairs;
    if (cm.skipped) {
      cell.skippedCases++;
      continue;
    }
    if (cm.noVerdict) cell.noVerdictCases++;
    else if (cm.pass === null) cell.pendingCases++;
    else {
      passN++;
      if (cm.pass) passX++;
    }
    // rep_1 per case (eq. 2 with k = 1): the case's share of reproducing judged executions, then the mean over cases
    if (cm.z.length > 0) {
      const share = cm.z.filter(Boolean).length / cm.z.length;
      if (share !== 0 && share !== 1) repBinary = false;
      repN++;
      repX += share;
    }
    if (K >= 3) {
      const v = caseRepK(cm.z, K, 3);
      if (v !== null) {
        rep3N++;
        rep3X += v;
      }
    }
  }
  cell.pass = rateWithWilson(passX, passN);
  // Wilson only for a binary per-case value (one judged execution per case, or all alike); else the mean without an interval
  cell.rep1 = repBinary ? rateWithWilson(repX, repN) : { x: repX, n: repN, rate: repN ? repX / repN : null, lo: null, hi: null };
  if (K === 3) cell.rep3 = rateWithWilson(rep3X, rep3N);
  else if (K > 3) cell.rep3 = { x: rep3X, n: rep3N, rate: rep3N ? rep3X / rep3N : null, lo: null, hi: null };
  return cell;
}

/**
 * Each method vs the baseline (rerun, else the first task-level method, else the first method);
 * a matched control that runs with its treatment ({@link MATCHED_CONTROLS}) is compared with that
 * treatment instead (treatment − control).
 */
function defaultComparisons(methods: string[], levels: Record<string, MethodLevel>): { a: string; b: string }[] {
  const base = methods.includes("rerun") ? "rerun" : (methods.find((m) => levels[m] === "task") ?? methods[0]);
  const paired = new Map(Object.entries(MATCHED_CONTROLS).filter(([t, c]) => methods.includes(t) && methods.includes(c)).map(([t, c]) => [c, t]));
  const out: { a: string; b: string }[] = [];
  for (const m of methods) {
    if (paired.has(m)) continue;
    if (m !== base) out.push({ a: m, b: base });
  }
  for (const [c, t] of paired) out.push({ a: t, b: c });
  // A control listed first is the baseline: its treatment's comparison is already the pair.
  return out.filter((x, i) => out.findIndex((y) => y.a === x.a && y.b === x.b) === i);
}

const NOTES = [
  "Rates are over the experiment's failed source cases (not over all tasks).",
  "pass@k: task-level methods k = attempts (stop at the first pass); node-level methods k = 1 (attempt 1).",
  "System and framework errors count as failures and stay in the denominators; skipped (case, method) pairs are excluded and counted.",
  "Intervals: 95% Wilson for rates; Δ in points with a 10,000-resample paired case-level bootstrap (seeded); exact two-sided McNemar; Holm within each family (MAS).",
  "No verdict (no evaluator, or the evaluator could not judge): such an attempt is neither a pass nor a failure; a case whose pass@k window has no pass and an attempt without a verdict leaves the rate and is counted beside it.",
  "rep_1 = mean over cases of the case's share of reproducing judged executions (eq. 2 with k = 1, eq. 14); rep_3 = cases whose three executions all reproduce (eq. 15), where determined.",
  "Efficiency counts the attempts the repair table counts (the pass@k window: task level 1..k, node level attempt 1): API calls = their captured MAS calls + the method's own LLM calls (not the reproduction judge); repairs = their evaluator-accepted attempts. Node-level attempts after the first (run for rep_k) are shown apart.",
];

/** The report's note when no reproduction judge ran. */
export const NO_JUDGE_NOTE = "No reproduction judge ran: rep_1 and rep_3 are not measured (no failed execution was judged, and passes alone would read as 'not reproduced').";

/**
 * Summarize an experiment into the paper's tables.
 *
 * @param input frozen cases, methods, k, attempt records, seed (see {@link ExperimentReportInput})
 * @returns {@link ExperimentReport}: `methods` and `comparisons` are the CLI object of issue 13
 *   item 7 (plus matched n and pass counts per comparison); `byMas` (Tables 2, 3 MAS rows, 4),
 *   `byCategory` (Table 3 category rows), `efficiency` (Table 9). Comparisons are paired per case,
 *   family = MAS ("all" when one MAS), Holm within a family, Δ CI from `resamples` (default
 *   10,000) bootstrap resamples seeded with `seed`.
 * @throws RangeError naming the offending field (`attemptsRecords[3].attempt …`) on bad input
 */
export function summarizeExperiment(input: ExperimentReportInput): ExperimentReport {
  validate(input);
  const K = input.attempts;
  const resamples = input.resamples ?? DIFF_RESAMPLES;
  const levels: Record<string, MethodLevel> = {};
  for (const m of input.methods) levels[m] = methodLevel(m, input.levels);

  // (case, method) → records by attempt
  const caseIndex = new Map(input.cases.map((c, i) => [c.caseId, i]));
  const byCaseMethod = new Map<string, Array<AttemptRecord | undefined>>();
  for (const r of input.attemptsRecords) {
    const key = `${caseIndex.get(r.caseId)}\u0000${r.method}`;
    let arr = byCaseMethod.get(key);
    if (!arr) byCaseMethod.set(key, (arr = new Array(K).fill(undefined)));
    arr[r.attempt - 1] = r;
  }
  const judged = input.judged ?? input.attemptsRecords.some((r) => r.reproduced !== null && r.reproduced !== undefined);
  const states: Record<string, CaseMethod[]> = {};
  for (const m of input.methods) {
    states[m] = input.cases.map((_, i) => caseMethod(byCaseMethod.get(`${i}\u0000${m}`) ?? [], K, levels[m], judged));
  }

  const groupRow = (key: string, kind: GroupRow["kind"], idxs: number[]): GroupRow => {
    const cells: Record<string, MethodCell> = {};
    for (const m of input.methods) cells[m] = cellOf(m, levels[m], K, idxs.map((i) => states[m][i]));
    return { key, kind, cases: idxs.length, cells };
  };
  const allIdx = input.cases.map((_, i) => i);
  const groupBy = (f: (i: number) => string) => {
    const g = new Map<string, number[]>();
    for (const i of allIdx) {
      const k = f(i);
      const arr = g.get(k);
      if (arr) arr.push(i);
      else g.set(k, [i]);
    }
    return [...g.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  };
  const masGroups = groupBy((i) => input.cases[i].mas);
  const catGroups = groupBy((i) => input.cases[i].primaryCategory ?? NO_CATEGORY);
  const total = groupRow(ALL, "total", allIdx);
  const byMas = [...masGroups.map(([k, idxs]) => groupRow(k, "mas", idxs)), total];
  const byCategory = [...catGroups.map(([k, idxs]) => groupRow(k, "category", idxs)), total];

  // efficiency (Table 9)
  const effRow = (mas: string, m: string, idxs: number[]): EfficiencyRow => {
    let masCalls = 0;
    let auxCalls = 0;
    let tokens = 0;
    let auxTokens = 0;
    let repairs = 0;
    let attempts = 0;
    let noVerdict = 0;
    const beyondK = { attempts: 0, calls: 0, tokens: 0 };
    for (const i of idxs) {
      const s = states[m][i];
      attempts += s.ran;
      noVerdict += s.noVerdictAttempts;
      beyondK.attempts += s.beyondK.attempts;
      beyondK.calls += s.beyondK.calls;
      beyondK.tokens += s.beyondK.tokens;
      masCalls += s.masCalls;
      auxCalls += s.auxCalls;
      tokens += s.tokens;
      auxTokens += s.auxTokens;
      repairs += s.repairs;
    }
    const apiCalls = masCalls + auxCalls;
    return { mas, method: m, attempts, noVerdict, beyondK, apiCalls, masCalls, auxCalls, tokens, auxTokens, repairs, ...efficiency(apiCalls, repairs), tokensPerRepair: repairs > 0 ? tokens / repairs : null };
  };
  const efficiencyRows: EfficiencyRow[] = [];
  for (const [mas, idxs] of masGroups) for (const m of input.methods) efficiencyRows.push(effRow(mas, m, idxs));
  for (const m of input.methods) efficiencyRows.push(effRow(ALL, m, allIdx));

  // per-method summary (CLI object)
  const methods: Record<string, MethodSummary> = {};
  for (const m of input.methods) {
    const c = total.cells[m];
    const eff = efficiencyRows.find((e) => e.mas === ALL && e.method === m)!;
    methods[m] = {
      attempts: c.attempts,
      pass: { rate: c.pass.rate, lo: c.pass.lo, hi: c.pass.hi, k: c.k },
      rep1: c.rep1.rate,
      rep3: c.rep3?.rate ?? null,
      calls: eff.apiCalls,
      repairsPer1k: eff.repairsPer1k,
      skipped: c.skipped,
      errors: c.errors,
      noVerdict: c.noVerdict,
      noVerdictCases: c.noVerdictCases,
      cost: { masCalls: eff.masCalls, auxCalls: eff.auxCalls, tokens: eff.tokens, auxTokens: eff.auxTokens, repairs: eff.repairs, callsPerRepair: eff.callsPerRepair, tokensPerRepair: eff.tokensPerRepair },
    };
  }

  // paired comparisons, Holm within each family (MAS)
  const pairsWanted = input.comparisons ?? defaultComparisons(input.methods, levels);
  const families: Array<[string, number[]]> = masGroups.length <= 1 ? [[ALL, allIdx]] : masGroups;
  const comparisons: Comparison[] = [];
  const seed = seed32(input.seed);
  for (const [family, idxs] of families) {
    const fam: Comparison[] = [];
    for (const { a, b } of pairsWanted) {
      const pairs: Array<[boolean, boolean]> = [];
      for (const i of idxs) {
        const pa = states[a][i].pass;
        const pb = states[b][i].pass;
        if (pa !== null && pb !== null) pairs.push([pa, pb]);
      }
      const d = pairedBootstrapDiff(pairs, { resamples, seed });
      fam.push({ a, b, family, diffPoints: d.diffPoints, lo: d.lo, hi: d.hi, n10: d.n10, n01: d.n01, mcnemarP: d.n > 0 ? mcnemarExact(d.n10, d.n01) : null, holmP: null, n: d.n, aPassed: d.aPassed, bPassed: d.bPassed });
    }
    const adj = holmAdjust(fam.map((c) => c.mcnemarP));
    fam.forEach((c, j) => (c.holmP = adj[j]));
    comparisons.push(...fam);
  }

  let pending = 0;
  let noVerdict = 0;
  for (const m of input.methods) {
    for (const s of states[m]) {
      if (s.skipped || s.pass !== null) continue;
      if (s.noVerdict) noVerdict++;
      else pending++;
    }
  }

  return {
    ...(input.experiment !== undefined ? { experiment: input.experiment } : {}),
    cases: input.cases.length,
    methods,
    comparisons,
    byMas,
    byCategory,
    efficiency: efficiencyRows,
    meta: {
      attempts: K,
      seed: input.seed,
      resamples,
      levels,
      pending,
      noVerdict,
      ...(input.fake ? { fake: input.fake } : {}),
      notes: [...(input.fake ? [`NOT A MEASUREMENT: ${input.fake}.`] : []), ...NOTES, ...(judged ? [] : [NO_JUDGE_NOTE]), ...(input.methods.includes("mars") ? [MARS_REPORT_NOTE] : [])],
    },
  };
}

/**
 * The CLI object of issue 13 item 7 (`experiment run|report` prints it): `experiment`, `cases`,
 * `methods`, and `comparisons` with exactly {a, b, family, diffPoints, lo, hi, n10, n01, mcnemarP, holmP}.
 */
export function toCliObject(report: ExperimentReport): {
  experiment?: string;
  cases: number;
  methods: Record<string, MethodSummary>;
  comparisons: Array<Pick<Comparison, "a" | "b" | "family" | "diffPoints" | "lo" | "hi" | "n10" | "n01" | "mcnemarP" | "holmP">>;
} {
  return {
    ...(report.experiment !== undefined ? { experiment: report.experiment } : {}),
    cases: report.cases,
    methods: report.methods,
    comparisons: report.comparisons.map(({ a, b, family, diffPoints, lo, hi, n10, n01, mcnemarP, holmP }) => ({ a, b, family, diffPoints, lo, hi, n10, n01, mcnemarP, holmP })),
  };
}

