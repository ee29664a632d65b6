/**
 * Public surface of lib/symptoms: suspicious-node detection (seeds/000 §5.4, Appendix F;
 * the symptoms spec). Pure: no React, Next.js, Prisma or lib/db. See README.md.
 */
export * from "./types";
export { RULES, RULE_BY_ID } from "./rules";
export { ALPHA, BETA, FUSION, THETA, TIER_CONFIDENCE, clip01, eta, scoreNode } from "./scores";
export { detectSymptoms, finalizeDetection, scanRules, SymptomInputError } from "./detect";
export type { RuleScan, TriggeredNode } from "./detect";
export { buildJudgeRequest, detectWithJudge, parseSymptomJudgeReply, JudgeReplyError, REDACTED_KEYS, MAX_FIELD_CHARS } from "./judge";
export type { JudgeRequest, SymptomJudge } from "./judge";
export { CATEGORY_MEANING, CONTROL_GUIDANCE, JUDGE_SYSTEM_PROMPT, suspiciousNodeGuidance } from "./prompts";
export { EVAL_SEED, evaluateDetections, rate, topByCf } from "./eval";
export type { CategoryEval, EvalCase, EvalCaseResult, EvalReport, MethodEval, Rate } from "./eval";
export { earliestNodeWarnings, EarliestCheckError, symptomLayer } from "./earliest";
export type { EarliestCheckInput, EarliestWarning, SymptomLayer } from "./earliest";
