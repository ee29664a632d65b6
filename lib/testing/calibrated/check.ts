/**
 * Compare a finished experiment on the calibrated world with the known truth (issue 13 "Done
 * when": the measured rates agree with the truth, the ranking comes out as designed).
 *
 * Two kinds of expectation:
 * - **per attempt, conditional on what was injected**: for each attempt that ran, its pass
 *   probability follows from the truth table and from observables only (the method, the anchor's
 *   LLM boundary relative to the repair boundary B, the class of the guidance text, the class of a
 *   task-level attempt's extra task text) — never from its outcome. The expected rate of a method
 *   is the mean of these; it is checked against the Wilson 95% interval of the measured rate.
 * - **a priori pass@k** (`expectedAttemptRates`, `passAtK`): checked against the interval the
 *   experiment report gives (`methods[m].pass.lo/hi`).
 */
import type { ReplayBundle } from "../../bundle";
import { wilsonInterval } from "../../agreement";
import { resolveTarget } from "../../replay";
import { parseTask } from "./catalogue.mjs";
import { classifyGuidance, classifyTaskExtra, DEFAULT_TRUTH, expectedNodeRate, type CalibratedTruth, type InjectionClass } from "./truth";

/** One attempt as the experiment stored it (the fields the check reads). */
export interface CheckedAttempt {
  caseKey: string;
  method: string;
  attempt: number;
  status: string;
  passed: boolean | null;
  reproduced: boolean | null;
  anchorNodeId: string | null;
  guidance: string | null;
  /** Task-level attempts: the task text the MAS was given (from the attempt's bundle); default: `guidance` (the methods store the changed task there). */
  taskText: string | null;
}

/** One source case: its bundle and the repair boundary B (the reference label's `boundaryNodeId`). */
export interface CheckedCase {
  caseKey: string;
  bundle: ReplayBundle;
  boundaryNodeId: string;
}

/** A method's per-attempt comparison. */
export interface AttemptRateCheck {
  method: string;
  n: number;
  passed: number;
  measured: number;
  lo: number;
  hi: number;
  /** mean of the attempts' truth probabilities */
  expected: number;
  ok: boolean;
  /** reproduced / judged attempts, and the expected reproduction rate (1 − expected pass) */
  reproduced: number;
  judged: number;
  expectedRep: number;
  repOk: boolean | null;
}

const NODE_LEVEL = new Set(["suspicious-node", "annotated-node", "random-node", "last-node", "node-resample", "nudge"]);

/** The observed-order position of the LLM boundary a node maps to (resolveTarget), or null. */
function boundaryPos(b: ReplayBundle, nodeId: string): number | null {
  try {
    return b.order.indexOf(resolveTarget(b, nodeId).boundaryNodeId);
  } catch {
    return null;
  }
}

/**
 * The truth probability that one attempt passes, from observables (see the module doc).
 * @returns null when the attempt cannot be judged (unknown method, unmappable anchor)
 */
export function attemptTruth(a: CheckedAttempt, c: CheckedCase, truth: CalibratedTruth = DEFAULT_TRUTH): { p: number; cls: InjectionClass } | null {
  const task = parseTask(c.bundle.task.prompt);
  if (!task) return null;
  const { category, sku } = task.item;
  if (NODE_LEVEL.has(a.method)) {
    if (!a.anchorNodeId) return null;
    const pos = boundaryPos(c.bundle, a.anchorNodeId);
    const bPos = c.bundle.order.indexOf(c.boundaryNodeId);
    if (pos === null || bPos < 0) return null;
    const cls = classifyGuidance(a.guidance ?? "", category, sku);
    return { p: expectedNodeRate(pos, bPos, cls, truth), cls };
  }
  if (a.method === "rerun") return { p: truth.recover.none, cls: "none" };
  if (a.method === "self-reflection" || a.method === "critic") {
    const t = parseTask(a.taskText ?? a.guidance ?? "");
    const cls = t ? classifyTaskExtra(t.extra, sku) : "none";
    return { p: truth.recover[cls], cls };
  }
  return null;
}

/**
 * Per-method per-attempt check: measured pass rate (attempts that ran; errors count as failures)
 * with its Wilson 95% interval vs the mean truth probability; reproduction likewise.
 * @param z Wilson z (default 1.959964, 95%)
 */
export function checkAttemptRates(attempts: readonly CheckedAttempt[], cases: readonly CheckedCase[], truth: CalibratedTruth = DEFAULT_TRUTH, z = 1.959964): AttemptRateCheck[] {
  const byCase = new Map(cases.map((c) => [c.caseKey, c]));
  const byMethod = new Map<string, { n: number; x: number; sp: number; rep: number; judged: number; spRep: number }>();
  for (const a of attempts) {
    if (a.status === "skipped" || a.status === "cancelled" || a.status === "queued" || a.status === "running") continue;
    const c = byCase.get(a.caseKey);
    const t = c ? attemptTruth(a, c, truth) : null;
    if (!t) continue;
    const m = byMethod.get(a.method) ?? { n: 0, x: 0, sp: 0, rep: 0, judged: 0, spRep: 0 };
    m.n++;
    m.sp += t.p;
    if (a.status === "passed") m.x++;
    if (a.reproduced !== null) {
      m.judged++;
      m.spRep += 1 - t.p;
      if (a.reproduced) m.rep++;
    }
    byMethod.set(a.method, m);
  }
  const out: AttemptRateCheck[] = [];
  for (const [method, m] of byMethod) {
    const [lo, hi] = wilsonInterval(m.x, m.n, z)!;
    const expected = m.sp / m.n;
    const rci = m.judged ? wilsonInterval(m.rep, m.judged, z)! : null;
    const expectedRep = m.judged ? m.spRep / m.judged : NaN;
    out.push({
      method,
      n: m.n,
      passed: m.x,
      measured: m.x / m.n,
      lo,
      hi,
      expected,
      ok: expected >= lo - 1e-12 && expected <= hi + 1e-12,
      reproduced: m.rep,
      judged: m.judged,
      expectedRep,
      repOk: rci ? expectedRep >= rci[0] - 1e-12 && expectedRep <= rci[1] + 1e-12 : null,
    });
  }
  return out.sort((a, b) => a.method.localeCompare(b.method));
}
