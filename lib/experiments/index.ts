/**
 * lib/experiments: statistics of controlled repair experiments (pure; no React, Next.js, Prisma
 * or lib/db). See ./README.md for the rules and the paper sections they implement.
 */
export type * from "./types";
export {
  DIFF_RESAMPLES,
  PAPER_DIFF_SEED,
  caseRepK,
  casePassAtK,
  choose,
  efficiency,
  holmAdjust,
  mcnemarExact,
  pairedBootstrapDiff,
  rateWithWilson,
  seed32,
} from "./stats";
export type { PairedDiff } from "./stats";
export { ALL, NO_CATEGORY, NO_JUDGE_NOTE, summarizeExperiment, toCliObject } from "./report";
export { attemptRecordOf, reportOfDocument } from "./document";
export type { ExperimentDocumentInput, StoredAttempt } from "./document";
export { METHOD_CATALOG, METHOD_NAMES, METHOD_LABELS, TASK_LEVEL_METHODS, CORRECTION_METHODS, MATCHED_CONTROLS, CALIBRATED_METHODS, methodDescriptor, methodLabel, methodLevel, isMethodName, parseMethodList, type MethodDescriptor, type MethodName } from "./methods";
export { DEFAULT_MARS_SETTINGS, MARS_REPORT_NOTE, marsSettingsLine, resolveMarsSettings } from "./mars";
export type { MarsJudgeSetting, MarsSettings } from "./mars";
export { EXPERIMENT_TABLES, attemptsBehind, experimentTable } from "./export";
export type { AttemptListItem, CellFilter, ExperimentTable } from "./export";
export { csvCell, tableToCsv } from "../agreement/export-tables";
export type { TableRows } from "../agreement/export-tables";
export {
  ATTEMPT_STATUSES,
  EXPERIMENT_STATUSES,
  ExperimentError,
  FINAL_ATTEMPT_STATUSES,
  FINAL_EXPERIMENT_STATUSES,
  MAX_ATTEMPTS_K,
  checkMarsSettings,
  checkMethodNames,
  checkSettings,
  emptyStatusCounts,
} from "./lifecycle";
export type { AttemptRowStatus, CheckableSettings, ExperimentStatus, StatusCounts } from "./lifecycle";
