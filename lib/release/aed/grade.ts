/**
 * The replay evidence grade of a diagnosis: the evidence ladder of seeds/004 (§3.1 "Evidence
 * grades", App. C.1 and D.2; seeds-002-004.md §2.1). Pure: it reads only the grounding result and
 * the outcomes of the two arms, so it is fed the same way from replay runs today and from
 * experiments (issue 13: ExperimentAttempt rows of the treatment and control arms) later.
 *
 * | grade            | rule (checked in this order)                                                     |
 * |------------------|----------------------------------------------------------------------------------|
 * | ungrounded       | the diagnosis's citations do not resolve, or it cites nothing                     |
 * | E0               | grounded; no treatment trial was executed (or none returned a verdict: `replayStatus: "no_verdict"`) |
 * | no_recovery      | executed treatment trials never pass (also a named but unexecuted checkpoint, the paper's legacy label: `replayStatus: "checkpoint_named"`) |
 * | partial_recovery | executed treatment trials have mixed outcomes (some pass, some fail)              |
 * | E1               | every treatment trial with a verdict passes, but the E2 contrast is not met: the control is untested, also passes, has fewer than 2 trials, or an arm has trials without a verdict |
 * | E2               | ≥ 2 trials per arm, both arms complete (every trial has a verdict, and the planned counts when given are reached), every treatment passes and every control fails |
 *
 * A trial with `passed: null` (no verifier verdict, infrastructure fault) counts toward neither
 * s nor n: p̂ = s / n over trials with a verdict, and an arm with none has p̂ = null (an
 * unexecuted control stays null, seeds/004 D.2). Δ̂ = p̂_T − p̂_C when both are known.
 */

export const EVIDENCE_GRADES = ["ungrounded", "E0", "no_recovery", "partial_recovery", "E1", "E2"] as const;
export type EvidenceGrade = (typeof EVIDENCE_GRADES)[number];

/** One trial of an arm: did the continuation pass the verifier (null: no verdict). */
export interface Trial {
  passed: boolean | null;
}

export interface GradeInput {
  /** Every quote resolves and there is at least one (quotes.ts). */
  grounded: boolean;
  /** Treatment arm: continuations with the correction (or guidance) applied at the blamed node. */
  treatment: Trial[];
  /** Control arm: continuations that re-execute the original action from the same state. */
  control: Trial[];
  /** Planned trial counts per arm (experiments); an arm short of its plan is incomplete. */
  planned?: { treatment?: number; control?: number };
  /** A checkpoint was named but nothing was executed (legacy no-recovery label). */
  checkpointNamed?: boolean;
}

export interface ArmSummary {
  /** Trials recorded (with or without a verdict). */
  trials: number;
  /** Trials with a verdict (n) and of them passing (s). */
  n: number;
  s: number;
  /** Trials without a verdict. */
  noVerdict: number;
  /** s / n, or null when n = 0. */
  pHat: number | null;
}

export interface GradeResult {
  grade: EvidenceGrade;
  replayStatus: "none" | "checkpoint_named" | "executed" | "no_verdict";
  treatment: ArmSummary;
  control: ArmSummary;
  /** p̂_T − p̂_C, or null when either is null. */
  delta: number | null;
  /** One sentence: why this grade. */
  reason: string;
}

/** Counts of one arm. */
export function summarizeArm(trials: Trial[]): ArmSummary {
  const n = trials.filter((t) => t.passed !== null).length;
  const s = trials.filter((t) => t.passed === true).length;
  return { trials: trials.length, n, s, noVerdict: trials.length - n, pHat: n ? s / n : null };
}

/**
 * Grade one diagnosis (table above).
 * @param x grounding and the two arms' trials
 * @returns the grade, the typed replay status, both arms' counts, Δ̂ and the reason
 */
export function evidenceGrade(x: GradeInput): GradeResult {
  const T = summarizeArm(x.treatment);
  const C = summarizeArm(x.control);
  const delta = T.pHat !== null && C.pHat !== null ? T.pHat - C.pHat : null;
  const status: GradeResult["replayStatus"] = T.trials === 0 ? (x.checkpointNamed ? "checkpoint_named" : "none") : T.n === 0 ? "no_verdict" : "executed";
  const out = (grade: EvidenceGrade, reason: string): GradeResult => ({ grade, replayStatus: status, treatment: T, control: C, delta, reason });
  if (!x.grounded) return out("ungrounded", "the diagnosis's citations do not resolve (or it cites nothing)");
  if (T.trials === 0) return x.checkpointNamed ? out("no_recovery", "a checkpoint was named but no treatment was executed (legacy no-recovery label)") : out("E0", "grounded; no replay of the correction was executed");
  if (T.n === 0) return out("E0", `grounded; ${T.trials} treatment trial(s) ran but none returned a verdict`);
  if (T.s === 0) return out("no_recovery", `the treatment never passed (0/${T.n})`);
  if (T.s < T.n) return out("partial_recovery", `the treatment passed ${T.s}/${T.n}`);
  const complete = (a: ArmSummary, planned?: number) => a.noVerdict === 0 && (planned === undefined || a.trials >= planned);
  const why: string[] = [];
  if (C.trials === 0) why.push("the control was not tested");
  else {
    if (C.s > 0) why.push(`the control also passed ${C.s}/${C.n}`);
    if (C.n === 0) why.push("no control trial returned a verdict");
  }
  if (T.trials < 2 || C.trials < 2) why.push(`fewer than 2 trials per arm (treatment ${T.trials}, control ${C.trials})`);
  if (!complete(T, x.planned?.treatment) || !complete(C, x.planned?.control)) why.push("an arm did not complete its planned trials with verdicts");
  if (why.length) return out("E1", `recovery observed (treatment ${T.s}/${T.n}), but ${why.join("; ")}`);
  return out("E2", `every treatment passed (${T.s}/${T.n}) and every control failed (0/${C.n})`);
}
