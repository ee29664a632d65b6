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
import { CALIBRATED_METHODS, methodLevel, reportOfDocument, toCliObject, type ExperimentDocumentInput } from "../../experiments";
import { resolveTarget } from "../../replay";
import { parseTask } from "./catalogue.mjs";
import { classifyGuidance, classifyTaskExtra, DEFAULT_TRUTH, expectedAttemptRates, expectedNodeRate, passAtK, type CalibratedTruth, type InjectionClass } from "./truth";

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

/** Node-level methods with a calibrated truth (the method registry, lib/experiments/methods.ts). */
const NODE_LEVEL = new Set<string>(CALIBRATED_METHODS.filter((m) => methodLevel(m) === "node"));

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
    const cls = t ? classifyTaskExtra(t.extra, sku, category) : "none";
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

/** A world decision as ./policy.ts reports it (the fields the linkage check reads). */
export interface WorldDecision {
  agent: string;
  position: string;
  p: number;
  hit: boolean;
  user: string | null;
}

/** One attempt whose a-priori truth and the world's own draws disagree. */
export interface LinkageMismatch {
  caseKey: string;
  method: string;
  attempt: number;
  problem: string;
}

/**
 * Tie every attempt that ran to the world's decisions taken for it (the MAS sends
 * SYMTRACE_ATTEMPT_SEED as `user`, `userOf(attempt)` gives that value) and compare, per attempt:
 * - the probability the world drew its first MAS decision with vs `attemptTruth` (derived from
 *   observables only: anchor, injected text, task text) — they must be EQUAL: the truth the rates
 *   are checked against is then exactly the world's model, per attempt, not a fitted number;
 * - the evaluator's verdict vs the draws: passed ⇔ some decision of the attempt recovered.
 * Critic / reflection calls (made by the runner, no `user`) are not attempt decisions.
 * @returns the mismatches (empty when every attempt agrees)
 */
export function checkAgainstWorld(
  attempts: readonly CheckedAttempt[],
  cases: readonly CheckedCase[],
  decisions: readonly WorldDecision[],
  userOf: (a: CheckedAttempt) => string,
  truth: CalibratedTruth = DEFAULT_TRUTH,
): LinkageMismatch[] {
  const byCase = new Map(cases.map((c) => [c.caseKey, c]));
  const byUser = new Map<string, WorldDecision[]>();
  for (const d of decisions) {
    if (!d.user || d.position === "aux") continue;
    const xs = byUser.get(d.user) ?? [];
    xs.push(d);
    byUser.set(d.user, xs);
  }
  const out: LinkageMismatch[] = [];
  for (const a of attempts) {
    if (a.status !== "passed" && a.status !== "failed") continue;
    const miss = (problem: string) => out.push({ caseKey: a.caseKey, method: a.method, attempt: a.attempt, problem });
    const c = byCase.get(a.caseKey);
    const t = c ? attemptTruth(a, c, truth) : null;
    if (!t) {
      miss("no a-priori truth (unknown case, method or anchor)");
      continue;
    }
    const ds = byUser.get(userOf(a)) ?? [];
    const first = ds[0]?.p ?? 0;
    if (first !== t.p) miss(`truth ${t.p} (${t.cls}) but the world drew its first decision with p = ${ds.length ? first : "none (no decision)"}`);
    if (ds.some((d) => d.hit) !== (a.status === "passed")) miss(`evaluator says ${a.status} but the world's draws ${ds.some((d) => d.hit) ? "recovered" : "did not recover"} (${ds.map((d) => `${d.agent}/${d.position} p=${d.p} ${d.hit ? "hit" : "miss"}`).join(", ")})`);
  }
  return out;
}

/** The methods of a full calibrated experiment, task level first. */
export const ALL_METHODS = CALIBRATED_METHODS;
const TASK_LEVEL = new Set<string>(CALIBRATED_METHODS.filter((m) => methodLevel(m) === "task"));

/**
 * The checks of one experiment form one family: 9 methods × (pass, reproduction, pass@k) = 27
 * interval checks plus the pooled test over all attempts = 28. At 95% each, some check misses a
 * correct truth with probability 1 − 0.95^28 ≈ 76% (and a seeded run repeats its miss on every
 * run). Bonferroni keeps the family-wise false-alarm rate ≤ 5%: each at 1 − 0.05/28,
 * z = Φ⁻¹(1 − 0.05/56) = 3.125. README "Checking".
 */
export const FAMILY_CHECKS = 28;
export const Z_FAMILY = 3.125;

/** The parts of a `symtrace experiment run` document (experiment.json) the verification reads; its figures are recomputed from `attempts` (never read from its stored report). */
export interface ExperimentDocument extends ExperimentDocumentInput {
  attempts: Array<ExperimentDocumentInput["attempts"][number] & { anchorNodeId: string | null; guidance: string | null; error: string | null }>;
}

/**
 * Pooled calibration test over every attempt that ran (all methods × cases): observed passes
 * O = Σ y against E = Σ p (each attempt's truth probability, `attemptTruth`, = the world's own draw
 * probability), Var = Σ p(1 − p) (independent Bernoulli draws), z = (O − E)/√Var. With 270
 * attempts its standard error is ≈ 7 passes (2.6 points), where one method's interval over 30
 * attempts spans ± 13–18 points: a world or a runner off by a few points overall shows here first.
 * @returns O, E, sd, z and ok = |z| ≤ zCrit
 */
export function pooledPassTest(attempts: readonly CheckedAttempt[], cases: readonly CheckedCase[], truth: CalibratedTruth = DEFAULT_TRUTH, zCrit = Z_FAMILY): { n: number; observed: number; expected: number; sd: number; z: number; ok: boolean } {
  const byCase = new Map(cases.map((c) => [c.caseKey, c]));
  let n = 0;
  let o = 0;
  let e = 0;
  let v = 0;
  for (const a of attempts) {
    if (a.status !== "passed" && a.status !== "failed" && a.status !== "error") continue;
    const c = byCase.get(a.caseKey);
    const t = c ? attemptTruth(a, c, truth) : null;
    if (!t) continue;
    n++;
    if (a.status === "passed") o++;
    e += t.p;
    v += t.p * (1 - t.p);
  }
  const sd = Math.sqrt(v);
  const z = sd > 0 ? (o - e) / sd : o === e ? 0 : Infinity;
  return { n, observed: o, expected: e, sd, z, ok: Math.abs(z) <= zCrit };
}

/** One check of {@link verifyExperiment}. */
export interface VerifiedCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** The source cases of an experiment document: each case's bundle and the world's B (its reference label's `extra.boundaryNodeId`). */
export function casesOf(doc: ExperimentDocument, bundles: readonly ReplayBundle[]): CheckedCase[] {
  const byId = new Map(bundles.map((b) => [b.id, b]));
  return doc.cases.map((c) => {
    const bundle = byId.get(c.bundleId);
    if (!bundle) throw new Error(`experiment document: source bundle ${c.bundleId} is missing`);
    const label = (bundle as ReplayBundle & { referenceLabels?: Array<{ extra?: { boundaryNodeId?: unknown } }> }).referenceLabels?.[0];
    const b = label?.extra?.boundaryNodeId;
    if (typeof b !== "string") throw new Error(`experiment document: source bundle ${c.bundleId} has no calibrated reference label (referenceLabels[0].extra.boundaryNodeId)`);
    return { caseKey: c.bundleId, bundle, boundaryNodeId: b };
  });
}

/** The attempts of an experiment document as the checks read them. */
export function attemptsOf(doc: ExperimentDocument): CheckedAttempt[] {
  return doc.attempts.map((a) => ({ caseKey: a.caseBundleId, method: a.method, attempt: a.attempt, status: a.status, passed: a.passed, reproduced: a.reproduced, anchorNodeId: a.anchorNodeId, guidance: a.guidance, taskText: null }));
}

/**
 * The issue's "Done when" on a finished calibrated experiment (all nine methods): every method ran
 * on every case (no error, no skip); per attempt, every method's pass and reproduction rates
 * contain the truth (Wilson, Bonferroni over FAMILY_CHECKS); each pass@k of the report contains
 * the a-priori pass@k; Suspicious-Node beats Unguided Full Rerun with Holm-adjusted p < 0.05; the
 * ranking per attempt is as designed (specific > {critic, nudge, self-reflection} > {rerun,
 * node-resample, last-node}).
 * @returns every check with its figures (ok false = the experiment disagrees with the truth)
 */
export function verifyExperiment(doc: ExperimentDocument, bundles: readonly ReplayBundle[], truth: CalibratedTruth = DEFAULT_TRUTH): VerifiedCheck[] {
  const out: VerifiedCheck[] = [];
  const add = (name: string, ok: boolean, detail: string) => out.push({ name, ok, detail });
  const cases = casesOf(doc, bundles);
  const attempts = attemptsOf(doc);
  const n = cases.length;
  const k = doc.settings.attempts;
  // Every figure below is recomputed from the attempts (lib/experiments summarizeExperiment), never read from the stored report.
  const cli = toCliObject(reportOfDocument(doc));
  for (const m of ALL_METHODS) {
    const c = cli.methods[m];
    add(`${m}: ran on every case`, !!c && c.skipped === 0 && c.errors === 0 && c.attempts >= n, c ? `attempts ${c.attempts}, skipped ${c.skipped}, errors ${c.errors}` : "method missing");
  }
  const errs = doc.attempts.filter((a) => a.status === "error");
  add("no attempt ended in an error", errs.length === 0, errs.slice(0, 3).map((a) => `${a.method}: ${a.error}`).join("; "));
  const rows = checkAttemptRates(attempts, cases, truth, Z_FAMILY);
  for (const m of ALL_METHODS) {
    const r = rows.find((x) => x.method === m);
    if (!r) {
      add(`${m}: per-attempt rates`, false, "no judged attempt");
      continue;
    }
    add(`${m}: pass rate per attempt contains the truth`, r.ok, `${r.passed}/${r.n} [${r.lo.toFixed(3)}, ${r.hi.toFixed(3)}], truth ${r.expected.toFixed(3)}`);
    add(`${m}: reproduction rate per attempt contains the truth`, r.repOk === true, `${r.reproduced}/${r.judged}, truth ${r.expectedRep.toFixed(3)}`);
  }
  const pooled = pooledPassTest(attempts, cases, truth);
  add("pooled over every method × case: observed passes = expected passes", pooled.ok, `${pooled.observed} observed vs ${pooled.expected.toFixed(1)} expected over ${pooled.n} attempts (sd ${pooled.sd.toFixed(2)}, z ${pooled.z.toFixed(2)})`);
  const e = expectedAttemptRates(truth);
  const byCase = new Map(cases.map((c) => [c.caseKey, c]));
  const firsts = attempts.filter((a) => a.method === "random-node" && a.attempt === 1);
  const randomNode = firsts.reduce((s, a) => s + (attemptTruth(a, byCase.get(a.caseKey)!, truth)?.p ?? 0), 0) / Math.max(1, firsts.length);
  const apriori: Record<string, number> = {
    rerun: passAtK(e.rerun, k),
    "self-reflection": passAtK(e["self-reflection"], k),
    critic: passAtK(e.critic, k),
    "suspicious-node": e["suspicious-node"],
    "annotated-node": e["annotated-node"],
    "random-node": randomNode,
    "last-node": e["last-node"],
    "node-resample": e["node-resample"],
    nudge: e.nudge,
  };
  for (const m of ALL_METHODS) {
    const p = cli.methods[m]?.pass;
    if (!p || p.rate === null) {
      add(`${m}: pass@k contains the a-priori truth`, false, "no pass rate");
      continue;
    }
    const [lo, hi] = wilsonInterval(Math.round(p.rate * n), n, Z_FAMILY)!;
    const t = apriori[m];
    add(`${m}: pass@k contains the a-priori truth`, p.k === (TASK_LEVEL.has(m) ? k : 1) && t >= lo - 1e-12 && t <= hi + 1e-12, `pass@${p.k} ${p.rate.toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}] (95%: [${p.lo?.toFixed(3)}, ${p.hi?.toFixed(3)}]), truth ${t.toFixed(3)}`);
  }
  const cmp = cli.comparisons.find((x) => x.a === "suspicious-node" && x.b === "rerun");
  add("Suspicious-Node beats Unguided Full Rerun with Holm-adjusted p < 0.05", !!cmp && (cmp.diffPoints ?? 0) > 0 && cmp.n10 > cmp.n01 && cmp.holmP !== null && cmp.holmP < 0.05, cmp ? `Δ ${cmp.diffPoints?.toFixed(2)} points, n10/n01 ${cmp.n10}/${cmp.n01}, McNemar p ${cmp.mcnemarP}, Holm p ${cmp.holmP}` : "comparison missing");
  const rate = new Map(checkAttemptRates(attempts, cases, truth).map((r) => [r.method, r.measured]));
  const tiers = [["suspicious-node", "annotated-node"], ["critic", "nudge", "self-reflection"], ["rerun", "node-resample", "last-node"]];
  for (let i = 0; i + 1 < tiers.length; i++) {
    const low = Math.min(...tiers[i].map((m) => rate.get(m) ?? NaN));
    const high = Math.max(...tiers[i + 1].map((m) => rate.get(m) ?? NaN));
    add(`ranking: ${tiers[i].join("/")} > ${tiers[i + 1].join("/")}`, low > high, tiers.flat().map((m) => `${m} ${(rate.get(m) ?? NaN).toFixed(3)}`).join(", "));
  }
  return out;
}
