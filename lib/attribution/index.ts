/**
 * lib/attribution: failure attribution on Who&When (issue 24; Zhang et al., ICML 2025). Pure: no
 * React, Next.js, Prisma or lib/db; model calls through an injected AttributionLlm. README.md.
 */
export * from "./types";
export { AttributionCaseError, agentMatches, attributionCaseFromBundle, baseAgent } from "./case";
export * from "./prompts";
export { parseAllAtOnce, parseHalf, parseStepReason, parseStepVerdict } from "./parse";
export { ATTRIBUTORS, seededIndex } from "./attributors";
export { PUBLISHED, LATER_BEST, type PublishedFigure } from "./published";
export { CSV_COLUMNS, TOLERANCES, buildTable, formatTable, rateOf, stepWithin, tableCsv, type CaseResult, type GroundTruthSetting, type Rate, type TableRow } from "./table";
export { ANNOTATOR_SYSTEM, AnnotatorReplyError, annotatorPrompt, parseAnnotatorReply, type MachineAnnotation } from "./annotator";
