/**
 * Replay evidence of a diagnosis from experiment attempts (issue 13, lib/experiments
 * AttemptRecord): the matched control of seeds/004 §3.2 step 4 — a treatment arm from the blamed
 * node and a control arm that re-executes the original request from the same state. Pure.
 *
 * Only attempts anchored at the diagnosis's node count (a control replayed elsewhere is not a
 * matched control). Arms by method name (overridable): treatment = the first of {@link TREATMENT_METHODS} with
 * attempts on the case (`correction`: a* substituted, protocol "substitution"; else
 * `annotated-node`: guidance at the annotated node, protocol "guidance"); control =
 * {@link CONTROL_METHODS} (`node-resample`: the original request re-executed live).
 * Attempt status → trial: passed/failed → its verdict; `error` → no verdict (an infrastructure or
 * framework fault is not a failed repair; seeds/004 keeps such outcomes apart); `skipped` and
 * `cancelled` → not a trial; `queued`/`running` → planned but not yet a trial (the arm is incomplete).
 */
import type { ReplayEvidenceInput, ReplayTrial } from "./record";

export const TREATMENT_METHODS: Readonly<Record<string, string>> = { correction: "substitution", "annotated-node": "guidance" };
export const CONTROL_METHODS: readonly string[] = ["node-resample"];

/** One experiment attempt as stored (lib/db ExperimentAttempt; lib/experiments AttemptRecord has the same fields). */
export interface ExperimentAttemptInput {
  /** The attempt row's id (else `<method>#<attempt>`). */
  id?: string;
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
 *   not a matched control); o.treatment / o.control method names (defaults above); o.planned
 *   attempts per arm (k), else the arm's attempts that are not skipped or cancelled (queued and
 *   running ones count as planned, so an arm still running is incomplete)
 */
export function replayEvidenceFromAttempts(
  attempts: ExperimentAttemptInput[],
  caseId: string,
  o: { nodeId?: string; treatment?: Record<string, string>; control?: readonly string[]; planned?: number } = {},
): ReplayEvidenceInput {
  const mine = attempts.filter((a) => a.caseId === caseId && a.status !== "skipped" && a.status !== "cancelled" && (o.nodeId === undefined || a.anchorNodeId === o.nodeId));
  const done = (a: ExperimentAttemptInput) => a.status === "passed" || a.status === "failed" || a.status === "error";
  const trial = (a: ExperimentAttemptInput): ReplayTrial => ({ id: a.id ?? `${a.method}#${a.attempt}`, passed: a.status === "error" ? null : a.status === "passed" });
  const byAttempt = (x: ExperimentAttemptInput, y: ExperimentAttemptInput) => x.attempt - y.attempt || (x.id ?? "").localeCompare(y.id ?? "");
  const tMethods = o.treatment ?? TREATMENT_METHODS;
  const tName = Object.keys(tMethods).find((m) => mine.some((a) => a.method === m)) ?? null;
  const cNames = o.control ?? CONTROL_METHODS;
  const tRows = tName ? mine.filter((a) => a.method === tName).sort(byAttempt) : [];
  const cRows = mine.filter((a) => cNames.includes(a.method)).sort(byAttempt);
  return {
    source: "experiment",
    protocol: tName ? tMethods[tName]! : null,
    treatment: tRows.filter(done).map(trial),
    control: cRows.filter(done).map(trial),
    planned: { treatment: o.planned ?? tRows.length, control: cRows.length ? (o.planned ?? cRows.length) : undefined },
  };
}
