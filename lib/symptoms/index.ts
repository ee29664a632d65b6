/**
 * Public surface of lib/symptoms: suspicious-node detection (seeds/000 §5.4, Appendix F;
 * ../shared/spec/symptoms.md). Pure: no React, Next.js, Prisma or lib/db. See README.md.
 */
export * from "./types";
export { RULES, RULE_BY_ID } from "./rules";
export { ALPHA, BETA, FUSION, THETA, TIER_CONFIDENCE, clip01, eta, scoreNode } from "./scores";
export { detectSymptoms, finalizeDetection, scanRules, SymptomInputError } from "./detect";
export type { RuleScan, TriggeredNode } from "./detect";
