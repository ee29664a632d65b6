/**
 * Shapes shared by lib/experiments (statistics of controlled repair experiments, issue 13;
 * seeds/000 §5.1, Appendix C–E; the statistics spec §Replay and repair metrics).
 *
 * Rates are fractions in [0, 1]; paired differences are in percentage points (Δ = 100 (p̂_a − p̂_b)).
 * A value that cannot be computed (no cases, no judged attempts) is `null`, never NaN.
 */

/** Outcome status of one attempt (the runner's `AttemptOutcome.status`). "no_verdict": it ran, but no evaluator judged it (none configured, or it could not judge) — neither a pass nor a failure. */
export type AttemptStatus = "passed" | "failed" | "error" | "no_verdict" | "skipped" | "cancelled";

/** Task-level methods restart the MAS (chains of up to k attempts, stop at the first pass); node-level methods replay once per attempt. */
export type MethodLevel = "task" | "node";

/** One attempt of one method on one case, as stored by the runner (design-13 "Attempt record"). */
export interface AttemptRecord {
  caseId: string;
  mas: string;
  primaryCategory: string | null;
  method: string;
  /** 1..k */
  attempt: number;
  /** "queued" / "running" (not final yet) are accepted and count as no outcome (pending), nothing else */
  status: AttemptStatus | "queued" | "running";
  /** evaluator verdict; error ⇒ false; skipped ⇒ null */
  passed: boolean | null;
  /** reproduction judge: the attempt shows the source failure (z_{i,a}); null when not judged */
  reproduced: boolean | null;
  /** captured live API calls of the MAS (LLM + tool) */
  calls: number;
  /** extra LLM calls of the method itself (critic, reflection), not the judge */
  auxCalls: number;
  /** total tokens from `usage` */
  tokens: number;
  /** of `tokens`: the method's own LLM calls (critic; MARS selector + judge); absent = 0 */
  auxTokens?: number;
}

export interface ExperimentCaseRef {
  caseId: string;
  mas: string;
  /** primary category (C1..C4) of the final annotation / reference label, or null */
  primaryCategory: string | null;
}

export interface ExperimentReportInput {
  /** experiment id, copied to the report when given */
  experiment?: string;
  /** the frozen case set (every case, also those with no attempt yet) */
  cases: ExperimentCaseRef[];
  /** the arms, in display order */
  methods: string[];
  /** k: attempts per (case, method) */
  attempts: number;
  attemptsRecords: AttemptRecord[];
  /** bootstrap seed (any safe integer; reduced to 32 bits) */
  seed: number;
  /** paired comparisons; default: every method vs "rerun" (else the first task-level method, else the first method) */
  comparisons?: { a: string; b: string }[];
  /** method levels; default {@link TASK_LEVEL_METHODS} are "task", everything else "node" */
  levels?: Record<string, MethodLevel>;
  /** bootstrap resamples, default 10,000 (seeds/000 Appendix C.3) */
  resamples?: number;
  /** the frozen settings' `fake` stamp: fake (test-harness) methods produced the attempts; copied to meta and the notes */
  fake?: string | null;
  /**
   * Whether the experiment ran a reproduction judge (its frozen `reproductionJudge` setting). Without
   * one no execution's z is known: a passed attempt is not inferred "not reproduced" (that would
   * leave only passes judged and rep_k always 0), so rep_k is not measured. Default: true when
   * any attempt carries a judge verdict (`reproduced` not null).
   */
  judged?: boolean;
}

/** A proportion x/n with its 95% Wilson interval (all null when n = 0). */
export interface RateCI {
  x: number;
  n: number;
  rate: number | null;
  lo: number | null;
  hi: number | null;
}

/** Per-method summary: exactly the CLI object of issue 13 item 7. */
export interface MethodSummary {
  /** attempt records that ran (not skipped, not cancelled) */
  attempts: number;
  /** pass@k over the cases whose outcome is known; k = attempts for task level, 1 for node level */
  pass: { rate: number | null; lo: number | null; hi: number | null; k: number };
  rep1: number | null;
  rep3: number | null;
  /** captured API calls (MAS calls + aux calls) of every attempt that ran, cancelled ones included */
  calls: number;
  repairsPer1k: number | null;
  skipped: number;
  errors: number;
  /** attempts of the pass@k window without a verdict (counted, not in the rate); absent in reports made before it existed */
  noVerdict?: number;
  /** cases left out of pass@k because of them */
  noVerdictCases?: number;
  /** Calls, tokens and their per-repaired-case values (Table 9; MARS is compared on these). Extra to the issue-13 object. */
  cost?: CostSummary;
}

/** What a method spent, split into the MAS and the method's own (aux) LLM calls, and per repaired case. */
export interface CostSummary {
  masCalls: number;
  auxCalls: number;
  tokens: number;
  auxTokens: number;
  repairs: number;
  /** (MAS + aux calls) / repairs; null when nothing was repaired */
  callsPerRepair: number | null;
  /** tokens / repairs; null when nothing was repaired */
  tokensPerRepair: number | null;
}

/** One paired comparison a vs b (Tables 7–8). n10 = a-only passes, n01 = b-only passes. */
export interface Comparison {
  a: string;
  b: string;
  /** Holm family: the MAS, or "all" when the experiment has one MAS */
  family: string;
  /** Δ = 100 (p̂_a − p̂_b) in points; null when no case is matched */
  diffPoints: number | null;
  /** paired case-level bootstrap percentile interval of Δ (points) */
  lo: number | null;
  hi: number | null;
  n10: number;
  n01: number;
  /** exact two-sided McNemar p; null when no case is matched */
  mcnemarP: number | null;
  /** Holm-adjusted p within `family` */
  holmP: number | null;
  /** matched denominator: cases where both methods have a known outcome */
  n: number;
  aPassed: number;
  bPassed: number;
}

/** One cell of Tables 2–4: a method on a group of cases (a MAS, a primary category, or all). */
export interface MethodCell {
  method: string;
  level: MethodLevel;
  /** k of pass@k */
  k: number;
  /** cases in the group */
  cases: number;
  /** pass@k over cases with a known outcome */
  pass: RateCI;
  /** rep_1 (eq. 2 with k = 1, eq. 14): mean over cases of the share of reproducing judged executions; x = the sum of those shares, n = cases with a judged execution; Wilson interval only when every share is 0 or 1 */
  rep1: RateCI;
  /** rep_3 (eq. 15): cases whose three executions all reproduce / cases where that is determined; null when k < 3 */
  rep3: RateCI | null;
  /** attempt records that ran, of the pass@k window (task level 1..k, node level attempt 1) */
  attempts: number;
  skipped: number;
  errors: number;
  /** attempts of the window that ran without a verdict */
  noVerdict: number;
  cancelled: number;
  /** cases the method was skipped on (excluded from its denominators) */
  skippedCases: number;
  /** cases whose pass@k outcome is not yet known (running or cancelled before an outcome) */
  pendingCases: number;
  /** cases with no pass and an attempt without a verdict in the window: excluded from pass@k, counted */
  noVerdictCases: number;
  /** captured API calls (calls + auxCalls) of the window's attempts */
  calls: number;
  /** passed attempts of the window (evaluator-accepted executions, Appendix C.5) = pass.x */
  repairs: number;
}

/** A row of Tables 2–4: a group and its cells. */
export interface GroupRow {
  /** MAS name, category (C1..C4 or "none"), or "all" */
  key: string;
  kind: "mas" | "category" | "total";
  cases: number;
  cells: Record<string, MethodCell>;
}

/** Table 9 row (Appendix C.5 eq. 7–8). */
export interface EfficiencyRow {
  /** MAS or "all" */
  mas: string;
  method: string;
  /** attempts counted (the repair table's: the pass@k window) */
  attempts: number;
  /** of them, without a verdict */
  noVerdict: number;
  /** node-level attempts after the first (run for rep_k only): those that ran, and the calls and tokens of all (cancelled ones included); spent, not in the figures of this row */
  beyondK: { attempts: number; calls: number; tokens: number };
  /** MAS calls + aux calls */
  apiCalls: number;
  masCalls: number;
  auxCalls: number;
  tokens: number;
  /** of tokens: the aux calls' (critic; MARS selector + judge) */
  auxTokens: number;
  repairs: number;
  repairsPer1k: number | null;
  callsPerRepair: number | null;
  /** tokens per repaired case; null when nothing was repaired */
  tokensPerRepair: number | null;
}

export interface ExperimentReport {
  experiment?: string;
  /** number of cases in the frozen case set */
  cases: number;
  methods: Record<string, MethodSummary>;
  comparisons: Comparison[];
  /** Tables 2 and 3 (MAS rows) and 4: one row per MAS, then the total row */
  byMas: GroupRow[];
  /** Table 3 (category rows): one row per primary category, then the total row */
  byCategory: GroupRow[];
  /** Table 9: one row per (MAS, method), then one per method over all MAS ("all") */
  efficiency: EfficiencyRow[];
  meta: {
    /** k */
    attempts: number;
    seed: number;
    resamples: number;
    levels: Record<string, MethodLevel>;
    /** (case, method) pairs whose outcome is not known yet */
    pending: number;
    /** (case, method) pairs without a verdict (excluded from pass@k, counted) */
    noVerdict: number;
    /** present when fake (test-harness) methods produced the attempts: what they were */
    fake?: string;
    /** every method, pass rates are over failed source cases, errors count as failures ... */
    notes: string[];
  };
}
