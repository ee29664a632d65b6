/**
 * Replay evidence of a diagnosis from experiment attempts (issue 13, lib/experiments
 * AttemptRecord): the matched control of seeds/004 §3.2 step 4 — a treatment arm from the blamed
 * node and a control arm that re-executes the original request from the same state. Pure.
 *
 * Arms by method name (overridable): treatment = the first of {@link TREATMENT_METHODS} with
 * attempts on the case (`correction`: a* substituted, protocol "substitution"; else
 * `annotated-node`: guidance at the annotated node, protocol "guidance"); control =
 * {@link CONTROL_METHODS} (`node-resample`: the original request re-executed live).
 * Attempt status → trial: passed/failed → its verdict; `error` → no verdict (an infrastructure or
 * framework fault is not a failed repair; seeds/004 keeps such outcomes apart); `skipped` and
 * `cancelled` → not a trial.
 */
import type { AttemptRecord } from "../../experiments/types";
import type { ReplayEvidenceInput, ReplayTrial } from "./record";

export const TREATMENT_METHODS: Readonly<Record<string, string>> = { correction: "substitution", "annotated-node": "guidance" };
export const CONTROL_METHODS: readonly string[] = ["node-resample"];

/**
 * @param attempts attempt records (any cases; only `caseId`'s are used)
 * @param caseId the case (as the experiment stores it)
 * @param o.treatment / o.control method names (defaults above); o.planned attempts per arm (k)
 */
export function replayEvidenceFromAttempts(
  attempts: AttemptRecord[],
  caseId: string,
  o: { treatment?: Record<string, string>; control?: readonly string[]; planned?: number } = {},
): ReplayEvidenceInput {
  const mine = attempts.filter((a) => a.caseId === caseId && a.status !== "skipped" && a.status !== "cancelled");
  const trial = (a: AttemptRecord): ReplayTrial => ({ id: `${a.method}#${a.attempt}`, passed: a.status === "error" ? null : a.status === "passed" ? true : a.status === "failed" ? false : a.passed });
  const byAttempt = (x: AttemptRecord, y: AttemptRecord) => x.attempt - y.attempt;
  const tMethods = o.treatment ?? TREATMENT_METHODS;
  const tName = Object.keys(tMethods).find((m) => mine.some((a) => a.method === m)) ?? null;
  const cNames = o.control ?? CONTROL_METHODS;
  const treatment = tName ? mine.filter((a) => a.method === tName).sort(byAttempt).map(trial) : [];
  const control = mine.filter((a) => cNames.includes(a.method)).sort(byAttempt).map(trial);
  return {
    source: "experiment",
    protocol: tName ? tMethods[tName]! : null,
    treatment,
    control,
    ...(o.planned ? { planned: { treatment: o.planned, control: control.length ? o.planned : undefined } } : {}),
  };
}
