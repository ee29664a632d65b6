/**
 * lib/agreement: inter-annotator agreement (pure; no React, Next.js, Prisma or lib/db).
 * See ./README.md for the data flow, invariants and the quantile rule.
 */
export type { Coefficient, Interval, Label } from "./types";
export { QUANTILE_RULE, Z95, percentileInterval, quantileSorted, wilsonInterval } from "../stats";
export { UNDEFINED_PE1, fleissKappa, fleissKappaFromRatings, fleissKappaPerCategory, ratingsToCounts } from "./fleiss";
export type { FleissResult } from "./fleiss";
export { cohenKappa, cohenKappaFromConfusion } from "./cohen";
export type { CohenResult } from "./cohen";
export { krippendorffAlpha } from "./krippendorff";
export type { AlphaMetric, AlphaResult } from "./krippendorff";
export { DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrapFleiss } from "./bootstrap";
export type { BootstrapOptions, BootstrapResult, BootstrapVariable, BootstrapVariableResult } from "./bootstrap";
export {
  ANNOTATIONS_FORMAT,
  CATEGORIES,
  PROTOCOL_NODE_TYPES,
  annotatedCaseSchema,
  annotationsFileSchema,
  finalAnnotationSchema,
  initialAnnotationSchema,
  readAnnotations,
  validateAnnotations,
} from "./annotations";
export type { AnnotatedCase, AnnotationsFile, Category, FinalAnnotation, InitialAnnotation, PathError, ReadAnnotationsResult } from "./annotations";
export { categorySetKey, compareWithFinal, finalComposition, initialPattern, tupleKey } from "./adjudication";
export type { CategoryCounts, FinalComparison, FinalComposition, InitialPattern, PatternOutcome, TupleFields } from "./adjudication";
export { RATERS, analyzeAnnotations } from "./analyze";
export type { AgreementReport, AnalyzeOptions, ExactAgreement, PairKappa, VariableAgreement, VariableKey } from "./analyze";
export { pooledBinaryFleiss } from "./binary-pooled";
export type { BinaryLabelledCase, ExcludedItem, PooledBinaryResult } from "./binary-pooled";
export { landisKoch } from "./landis-koch";
export { MIN_CASES_FOR_CI, MIN_CASES_FOR_PAIR, MIN_CASES_FOR_STABLE_CI, bootstrapIntervalShown, sampleSizeWarnings } from "./sample-size";
export type { SampleSizeWarning } from "./sample-size";
export { AGREEMENT_TABLES, agreementTable, csvCell, tableToCsv, variableRows } from "./export-tables";
export type { AgreementTable, AgreementTableInputs, TableRows } from "./export-tables";
export { humanMachineAgreement } from "./machine";
export type { HumanMachineAgreement, HumanMachineCase, RatedAnnotation } from "./machine";
