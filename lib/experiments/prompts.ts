/**
 * Prompt texts of the repair experiments (issue 13 items 2–3), pure: the task-level templates of
 * seeds/000 Appendix E.1 (Unguided Full Rerun, Self-Reflection, Critic-Agent), the critic agent's
 * own prompt, the Annotated-Node template with the per-category repair signals of Table 1, and the
 * method-blinded reproduction judge (Appendix D.1, eq. 9–13, adapted from the MAST judge of Cemri
 * et al. 2025 to C1–C4). The Suspicious-Node template and the generic control prompt are
 * lib/symptoms' (`suspiciousNodeGuidance`, `CONTROL_GUIDANCE`, F.3) and are only re-exported here.
 * README.md §Prompts lists every constant; lib/services/experiments/methods/README.md says where each
 * one is injected.
 */
import { CATEGORY_INFO } from "../annotation/protocol";
import { CATEGORY_MEANING, CONTROL_GUIDANCE, suspiciousNodeGuidance, type Category } from "../symptoms";

export { CONTROL_GUIDANCE, suspiciousNodeGuidance };

// ---------------------------------------------------------------------------------------------
// Task level (Appendix E.1)
// ---------------------------------------------------------------------------------------------

/** What every task-level attempt receives (E.1 "input boundaries": never the trajectory, the failure location, the category, the reference answer or the evaluator's output). */
export interface TaskPromptInput {
  /** The case's original task text. */
  task: string;
  /** Task id (`task.id` of the bundle), omitted from the prompt when null. */
  taskId: string | null;
  /** Benchmark and split, written as `benchmark / split`; the line is omitted when both are null. */
  benchmark: string | null;
  split?: string | null;
  /** Start URLs or tools (`task.startUrls`); the line is omitted when empty. */
  startUrls?: readonly string[] | null;
  /**
   * E.1 `output_suffix`: a benchmark-specific closing instruction (the paper's WebArena /
   * AssistantBench one is {@link PAPER_OUTPUT_SUFFIX}); omitted when empty. Held equal across arms.
   */
  outputSuffix?: string | null;
}

/** The `output_suffix` the paper used for WebArena-Verified and AssistantBench (E.1). Not applied by default: our tasks state their own output format. */
export const PAPER_OUTPUT_SUFFIX = "Return only the final answer and a short note about what evidence would be needed.";

/** Unguided Full Rerun instruction (E.1, verbatim). */
export const RERUN_INSTRUCTION = "This is an unguided rerun after an initial failed or uncertain attempt. Solve from scratch.";

/**
 * Self-Reflection instruction: E.1's sentence with §5.1's "identify possible mistakes" made
 * explicit (the wording); it follows the previous final answer.
 */
export const SELF_REFLECTION_INSTRUCTION = "Reflect on why the previous attempt may be incomplete or wrong and identify possible mistakes, then solve the task again.";

/** Critic-Agent instruction after the critic's feedback (ours: E.1 has the fixed feedback sentence in its place, see {@link PAPER_CRITIC_FEEDBACK}). */
export const CRITIC_INSTRUCTION = "Use the critic feedback to solve the task again with a new complete attempt.";

/** E.1's fixed critic feedback (the paper's critic role had no separate model call). Kept for reference; our critic is a separate LLM call ({@link CRITIC_SYSTEM_PROMPT}). */
export const PAPER_CRITIC_FEEDBACK =
  "verify assumptions, check whether the cited evidence is sufficient, and correct any unsupported or stale claims before producing the new answer.";

/** Shown as the previous final answer when the failed run produced none. */
export const NO_FINAL_ANSWER = "(the previous attempt produced no final answer)";

function header(mode: string, t: TaskPromptInput): string[] {
  const bench = [t.benchmark, t.split].filter((x): x is string => !!x).join(" / ");
  return [
    `Mode: ${mode}`,
    ...(t.taskId ? [`Task id: ${t.taskId}`] : []),
    ...(bench ? [`Benchmark: ${bench}`] : []),
    `Task: ${t.task}`,
    ...(t.startUrls?.length ? [`Start URLs or tools: ${t.startUrls.join(", ")}`] : []),
  ];
}

const suffix = (t: TaskPromptInput) => (t.outputSuffix ? [t.outputSuffix] : []);

/**
 * E.1's Unguided Full Rerun framing (mode `fail-then-rerun`). NOT what the rerun method sends: it
 * restarts the MAS with the ORIGINAL task unchanged (§5.1 ❶ "restarts the complete MAS execution
 * from the original task"), so a rerun is exactly a fresh sample of the source run and carries no
 * text a model could react to (lib/services/experiments/methods/README.md).
 */
export function rerunTaskPrompt(t: TaskPromptInput): string {
  return [...header("fail-then-rerun", t), RERUN_INSTRUCTION, ...suffix(t)].join("\n");
}

/**
 * The task a Self-Reflection attempt runs with (E.1 template: mode `self-reflection`).
 * @param previousFinal the ORIGINAL failed run's final answer (E.1: every attempt reuses it, never a preceding recovery attempt's); null → {@link NO_FINAL_ANSWER}
 */
export function selfReflectionTaskPrompt(t: TaskPromptInput, previousFinal: string | null): string {
  return [...header("self-reflection", t), `Previous final answer: ${previousFinal ?? NO_FINAL_ANSWER}`, SELF_REFLECTION_INSTRUCTION, ...suffix(t)].join("\n");
}

/**
 * The task a Critic-Agent attempt runs with (E.1 template: mode `critic-agent`), carrying the
 * critic call's feedback text in place of E.1's fixed sentence.
 */
export function criticTaskPrompt(t: TaskPromptInput, previousFinal: string | null, criticFeedback: string): string {
  return [...header("critic-agent", t), `Previous final answer: ${previousFinal ?? NO_FINAL_ANSWER}`, `Critic feedback: ${criticFeedback}`, CRITIC_INSTRUCTION, ...suffix(t)].join("\n");
}

/**
 * System prompt of the critic agent (one separate chat-completions call per Critic-Agent attempt,
 * through the experiment's endpoint and model). It sees the task and the failed final answer only.
 */
export const CRITIC_SYSTEM_PROMPT = [
  "You are a critic agent. A multi-agent system attempted the task below and its final answer was judged wrong or incomplete.",
  "You see the task and that final answer only: not the execution trace, not the evaluator, not a reference answer.",
  "Review the answer: verify its assumptions, check whether the evidence it relies on is sufficient, and name unsupported, stale or missing parts and likely mistakes.",
  "Then write corrective guidance for a new complete attempt at the task, at most 6 short sentences.",
  "Do not solve the task yourself and do not state a final answer. Reply with the guidance text only.",
].join("\n");

/** The user message of the critic call. */
export function criticUserMessage(task: string, previousFinal: string | null): string {
  return `Task: ${task}\nFailed final answer: ${previousFinal ?? NO_FINAL_ANSWER}`;
}

// ---------------------------------------------------------------------------------------------
// Node level
// ---------------------------------------------------------------------------------------------

/**
 * Repair signal of each category: the annotation protocol's operational form of seeds/000 Table 1
 * (the annotation protocol spec Categories table, lib/annotation CATEGORY_INFO — the text
 * "replay from here" prefills from an annotation), so Annotated-Node injects what annotators see.
 */
export const REPAIR_SIGNALS: Readonly<Record<Category, string>> = {
  C1: CATEGORY_INFO.C1.repair,
  C2: CATEGORY_INFO.C2.repair,
  C3: CATEGORY_INFO.C3.repair,
  C4: CATEGORY_INFO.C4.repair,
};

/** seeds/000 Table 1's repair signals, verbatim (for reference and the README; {@link REPAIR_SIGNALS} is what is injected). */
export const TABLE1_REPAIR_SIGNALS: Readonly<Record<Category, string>> = {
  C1: "Implicated constraint and conflicting behavior; request a compliant alternative.",
  C2: "Repeated history and unfinished objective; request an action that makes progress.",
  C3: "Unresolved runtime condition and its evidence; require resolution before continuing.",
  C4: "Explicit plan, action, and outcome; request a decision that resolves their inconsistency.",
};

/**
 * Annotated-Node guidance: the reference (annotated) node and the repair signal of its primary
 * category (Table 1), in the shape of the F.3 Suspicious-Node template. No rationale, evidence
 * quote, reference answer or evaluator output (the same boundary as F.3).
 */
export function annotatedNodeGuidance(nodeId: string, primary: Category): string {
  return `Reconsider the decision at target ${nodeId}. Annotated failure category: ${primary} (${CATEGORY_MEANING[primary]}) Repair signal: ${REPAIR_SIGNALS[primary]} Revise this step accordingly, and regenerate any affected downstream actions or artifacts.`;
}

// ---------------------------------------------------------------------------------------------
// Reproduction judge (Appendix D.1, eq. 9–13)
// ---------------------------------------------------------------------------------------------

/**
 * System prompt of the method-blinded reproduction judge: does the new execution reproduce the
 * SOURCE failure? Adapted from the MAST LLM-as-a-judge (Cemri et al. 2025) to C1–C4 and the
 * mechanism-level equivalence of D.1: an event of the new trajectory must match the reference in
 * category (eq. 9), case-specific mechanism (eq. 10) and execution role (eq. 11), with grounded
 * evidence (eq. 13). The judge is never told which repair method produced the trajectory.
 */
export const REPRODUCTION_JUDGE_SYSTEM_PROMPT = [
  "You judge whether a new execution of a multi-agent system reproduces a known failure of an earlier execution of the same task.",
  "You get the task, the reference failure of the earlier execution (its failure node, its primary category and, when available, the annotator's rationale and the node's content) and the new execution trajectory as numbered events `[node id] type (agent): text`.",
  "Failure categories (operational symptoms, not task-level verdicts):",
  ...(Object.keys(CATEGORY_MEANING) as Category[]).map((c) => `${c}: ${CATEGORY_MEANING[c]}`),
  "Procedure: localize the failure in the new trajectory, classify it, and compare it with the reference. The new execution reproduces the reference failure only if at least one of its events satisfies ALL of:",
  "(1) category: the event shows the reference's primary category;",
  "(2) mechanism: it fails for the same case-specific reason (the same violated constraint, the same repeated request, the same unresolved condition, the same plan/outcome conflict), not merely some failure of that category;",
  "(3) role: it plays the corresponding role in the execution (the same step of the workflow, by the corresponding agent or tool); node ids need not be equal;",
  "(4) evidence: you can point to text of that event (or of the events it depends on) that shows it.",
  "If the new execution reaches a correct final answer, or fails for a different reason, or you cannot ground the match in its events, it does not reproduce the failure.",
  'Answer with one JSON object and nothing else: {"reproduced": true|false, "category": "C1"|"C2"|"C3"|"C4"|null, "nodeId": "<id of the matching event in the new trajectory>"|null, "reason": "<one or two sentences citing the evidence>"}.',
  '"category" and "nodeId" name the failure you localized in the new trajectory (null when you found none); when "reproduced" is true they are the matching event\'s.',
].join("\n");

/** At most this many characters of one event's text are shown to the judge (the rest is cut with "…"). */
export const JUDGE_EVENT_CHARS = 800;
/** At most this many events of a trajectory are shown: the first 20 and the last (N − 20), with a line saying how many were left out. */
export const JUDGE_MAX_EVENTS = 160;
