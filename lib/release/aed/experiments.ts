/**
 * Replay evidence of a diagnosis from experiment attempts (issue 13, lib/experiments
 * AttemptRecord): the matched control of seeds/004 §3.2 step 4 — a treatment arm from the blamed
 * node and a control arm that re-executes the original request from the same state. Pure.
 *
 * Only attempts anchored at the diagnosis's node count (a control replayed elsewhere is not a
 * matched control). Arms are PAIRS of methods ({@link MATCHED_PAIRS}, in order of preference; the
 * first treatment with attempts on the case wins):
 *   - `correction` (protocol "substitution": a* replaces the node's output) with its control
 *     `correction-control` (the same prefix and boundary, the original request re-executed live;
 *     issue 14 item 4, lib/services/experiments/methods/correction.ts);
 *   - `annotated-node` (protocol "guidance": Δ at the annotated node) with `node-resample` (Δ = ""
 *     at the same anchor).
 * A control of another pair never counts (e.g. `node-resample` maps the node to a different
 * boundary than `correction`). When the attempts carry `experimentId`, both arms come from ONE
 * experiment (frozen settings: the same endpoint, model and evaluator for both arms): the one
 * with both arms, then the most trials, then the greatest id.
 * Attempt status → trial: passed/failed → its verdict; `error` → no verdict (an infrastructure or
 * framework fault is not a failed repair; seeds/004 keeps such outcomes apart); `skipped` and
 * `cancelled` → not a trial; `queued`/`running` → planned but not yet a trial (the arm is incomplete).
 */
import type { MethodName } from "../../experiments/methods";
import type { ReplayEvidenceInput, ReplayTrial } from "./record";

/** A treatment method, its protocol and its matched control method(s). */
export interface MatchedPair {
  /** Names of the method registry (lib/experiments/methods.ts): a renamed method does not compile here. */
  treatment: MethodName;
  protocol: string;
  control: readonly MethodName[];
}

/** The matched pairs, in order of preference. */
export const MATCHED_PAIRS: readonly MatchedPair[] = [
  { treatment: "correction", protocol: "substitution", control: ["correction-control"] },
  { treatment: "annotated-node", protocol: "guidance", control: ["node-resample"] },
];

/** One experiment attempt as stored (lib/db ExperimentAttempt; lib/experiments AttemptRecord has the same fields). */
export interface ExperimentAttemptInput {
  /** The attempt row's id (else `<method>#<attempt>`). */
  id?: string;
  /** The experiment the attempt belongs to (both arms are taken from one experiment when given). */
  experimentId?: string;
  caseId: string;
  method: string;
  attempt: number;
  /** queued | running | passed | failed | error | skipped | cancelled */
  status: string;
  passed: boolean | null;
  /** The node the attempt replayed from (node-level methods). */
  anchorNodeId?: string | null;
}

/**
 * @param attempts attempt records (any cases; only `caseId`'s are used)
 * @param caseId the case (as the experiment stores it)
 * @param o.nodeId only attempts anchored at this node (the diagnosis's t*: a control elsewhere is
 *   not a matched control); o.pairs the matched pairs (default {@link MATCHED_PAIRS}); o.planned
 *   attempts per arm (k), else the arm's attempts that are not skipped or cancelled (queued and
 *   running ones count as planned, so an arm still running is incomplete)
 * @returns the two arms' trials (attempt order), the protocol, the planned counts; empty arms and
 *   protocol null when no treatment attempt exists
 */
export function replayEvidenceFromAttempts(attempts: ExperimentAttemptInput[], caseId: string, o: { nodeId?: string; pairs?: readonly MatchedPair[]; planned?: number } = {}): ReplayEvidenceInput {
  const mine = attempts.filter((a) => a.caseId === caseId && a.status !== "skipped" && a.status !== "cancelled" && (o.nodeId === undefined || a.anchorNodeId === o.nodeId));
  const done = (a: ExperimentAttemptInput) => a.status === "passed" || a.status === "failed" || a.status === "error";
  const trial = (a: ExperimentAttemptInput): ReplayTrial => ({ id: a.id ?? `${a.method}#${a.attempt}`, passed: a.status === "error" ? null : a.status === "passed" });
  const byAttempt = (x: ExperimentAttemptInput, y: ExperimentAttemptInput) => x.attempt - y.attempt || (x.id ?? "").localeCompare(y.id ?? "");
  const pair = (o.pairs ?? MATCHED_PAIRS).find((p) => mine.some((a) => a.method === p.treatment)) ?? null;
  let tRows: ExperimentAttemptInput[] = [];
  let cRows: ExperimentAttemptInput[] = [];
  if (pair) {
    // Group by experiment (attempts without an id form one group) and take one group's arms.
    const groups = new Map<string, { t: ExperimentAttemptInput[]; c: ExperimentAttemptInput[] }>();
    for (const a of mine) {
      const g = groups.get(a.experimentId ?? "") ?? groups.set(a.experimentId ?? "", { t: [], c: [] }).get(a.experimentId ?? "")!;
      if (a.method === pair.treatment) g.t.push(a);
      else if ((pair.control as readonly string[]).includes(a.method)) g.c.push(a);
    }
    const ranked = [...groups.entries()]
      .filter(([, g]) => g.t.length > 0)
      .sort(([ia, a], [ib, b]) => Number(b.c.length > 0) - Number(a.c.length > 0) || b.t.length + b.c.length - (a.t.length + a.c.length) || ib.localeCompare(ia));
    const best = ranked[0]![1];
    tRows = best.t.sort(byAttempt);
    cRows = best.c.sort(byAttempt);
  }
  return {
    source: "experiment",
    protocol: pair ? pair.protocol : null,
    treatment: tRows.filter(done).map(trial),
    control: cRows.filter(done).map(trial),
    planned: { treatment: o.planned ?? tRows.length, control: cRows.length ? (o.planned ?? cRows.length) : undefined },
  };
}
