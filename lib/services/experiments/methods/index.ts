/**
 * The runners of repair experiments (issue 13 item 2): one plug-in per method behind the
 * ExperimentMethod interface (./types.ts), keyed by the names of THE method registry
 * (lib/experiments/methods.ts `METHOD_CATALOG`: level, label, pairing, settings) — a method there
 * without a runner here does not compile. README.md documents what each injects where and what is
 * counted.
 */
import { annotatedNodeMethod } from "./annotated-node";
import { correctionControlMethod, correctionMethod } from "./correction";
import { criticMethod } from "./critic";
import { lastNodeMethod } from "./last-node";
import { marsMethod } from "./mars";
import { nodeResampleMethod } from "./node-resample";
import { nudgeMethod } from "./nudge";
import { randomNodeMethod } from "./random-node";
import { rerunMethod } from "./rerun";
import { selfReflectionMethod } from "./self-reflection";
import { suspiciousNodeMethod } from "./suspicious-node";
import type { ExperimentMethod, MethodName } from "./types";

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
  mars: marsMethod,
};

export { isMethodName, parseMethodList } from "../../../experiments/methods";
export { METHOD_NAMES, CORRECTION_METHODS } from "./types";
export type * from "./types";
export { judgeReproduction, llmReproductionJudge, commandReproductionJudge, parseReproductionVerdict, buildReproductionMessages, renderTrajectory, ReproductionReplyError } from "../reproduction";
export type { ReproductionInput, ReproductionVerdict } from "../reproduction";
