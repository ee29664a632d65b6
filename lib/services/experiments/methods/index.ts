/**
 * The method registry of repair experiments (issue 13 item 2): one plug-in per method behind the
 * ExperimentMethod interface (./types.ts). README.md documents what each injects where and what is
 * counted.
 */
import { annotatedNodeMethod } from "./annotated-node";
import { correctionControlMethod, correctionMethod } from "./correction";
import { criticMethod } from "./critic";
import { lastNodeMethod } from "./last-node";
import { nodeResampleMethod } from "./node-resample";
import { nudgeMethod } from "./nudge";
import { randomNodeMethod } from "./random-node";
import { rerunMethod } from "./rerun";
import { selfReflectionMethod } from "./self-reflection";
import { suspiciousNodeMethod } from "./suspicious-node";
import { METHOD_NAMES, type ExperimentMethod, type MethodName } from "./types";

export const METHODS: Readonly<Record<MethodName, ExperimentMethod>> = {
  rerun: rerunMethod,
  "self-reflection": selfReflectionMethod,
  critic: criticMethod,
  "suspicious-node": suspiciousNodeMethod,
  "annotated-node": annotatedNodeMethod,
  "random-node": randomNodeMethod,
  "last-node": lastNodeMethod,
  "node-resample": nodeResampleMethod,
  nudge: nudgeMethod,
  correction: correctionMethod,
  "correction-control": correctionControlMethod,
};

/** Whether a string is a method name. */
export function isMethodName(s: string): s is MethodName {
  return (METHOD_NAMES as readonly string[]).includes(s);
}

/**
 * Parse a comma-separated method list (CLI `--methods`), order kept, duplicates dropped.
 * @throws Error naming the unknown method and listing the known ones
 */
export function parseMethodList(list: string): MethodName[] {
  const out: MethodName[] = [];
  for (const raw of list.split(",").map((x) => x.trim()).filter(Boolean)) {
    if (!isMethodName(raw)) throw new Error(`unknown method "${raw}" (known: ${METHOD_NAMES.join(", ")})`);
    if (!out.includes(raw)) out.push(raw);
  }
  if (out.length === 0) throw new Error(`no method given (known: ${METHOD_NAMES.join(", ")})`);
  return out;
}

export { METHOD_NAMES, CORRECTION_METHODS } from "./types";
export type * from "./types";
export { judgeReproduction, llmReproductionJudge, commandReproductionJudge, parseReproductionVerdict, buildReproductionMessages, renderTrajectory, ReproductionReplyError } from "../reproduction";
export type { ReproductionInput, ReproductionVerdict } from "../reproduction";
