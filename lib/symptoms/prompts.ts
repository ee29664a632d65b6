/**
 * Prompt texts of lib/symptoms: the semantic judge (Algorithm 3, line 14) and the intervention
 * templates of seeds/000 Appendix F.3 (the symptoms spec §3). README.md documents them.
 */
import type { Category } from "./types";

/** Table 10 "operational meaning" of each category (seeds/000 Appendix F.1). */
export const CATEGORY_MEANING: Record<Category, string> = {
  C1: "Task-constraint violation: the behavior conflicts with an explicit task constraint or output requirement.",
  C2: "Repeated or stalled progress: the history repeats while the objective remains unfinished.",
  C3: "Unresolved runtime condition: the node contains or continues from an unresolved execution, access, or upstream condition.",
  C4: "Plan-action-outcome inconsistency: an explicit plan or claim conflicts with the executed action or observed outcome.",
};

/** System prompt of the semantic judge. */
export const JUDGE_SYSTEM_PROMPT = [
  "You verify symptom candidates in one node of a multi-agent system trace.",
  "Deterministic rules flagged the node with candidate symptom categories and quoted the trace evidence that fired each rule.",
  "For each candidate category decide, from the task, the node and the quoted evidence only, whether the node really shows that symptom.",
  "You may confirm or reject candidates. You must not add a category that is not among the candidates.",
  "Categories are non-exclusive operational symptoms; a category may describe a local error, an unresolved dependency or a downstream manifestation.",
  'Answer with one JSON object and nothing else: {"confirmed": ["C1"|"C2"|"C3"|"C4", ...], "confidence": <number from 0 to 1>, "rationale": "<one sentence>"}.',
  '"confidence" is how confident you are that the node shows the confirmed symptoms (0 when you confirm none).',
].join("\n");

/** Suspicious-Node intervention template (F.3). */
export function suspiciousNodeGuidance(targetId: string, categories: readonly Category[], evidence: readonly string[]): string {
  return `Reconsider the decision at target ${targetId}. Confirmed runtime symptoms: ${categories.join(", ")}. Trace evidence: ${evidence.join("; ")}. Revise this step so that the remaining execution addresses the evidence and the task requirements, and regenerate any affected downstream actions or artifacts.`;
}

/** Random-Node / Last-Node control template (F.3): no category, no evidence. */
export const CONTROL_GUIDANCE =
  "Re-check the task requirements and the selected step. Correct any issue at this step, then regenerate the affected downstream actions or artifacts.";
