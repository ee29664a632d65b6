/**
 * Prompts of the search-based repair (seeds/002, appendix "Prompt Templates"): the
 * taxonomy-augmented evaluation prompt (the judge, T = 0.2) and the feedback-guided expansion
 * prompt (the action selector, T = 0.7) with exactly three tools. The texts follow the paper's
 * appendix; our changes are marked "(SymTrace)": a JSON output format instead of four text lines,
 * checkpoint node ids instead of framework step numbers, and the tool names of the issue.
 */

/** The 14 MAST failure modes of the judge's checklist (seeds/002 appendix; Cemri et al. 2026). */
export const MAST_FAILURE_MODES: ReadonlyArray<{ id: string; name: string; definition: string }> = [
  { id: "FM 1.1", name: "Disobey Task Spec", definition: "Failure to adhere to specific constraints or requirements of a given task, leading to suboptimal outcomes." },
  { id: "FM 1.2", name: "Disobey Role Spec", definition: "Acting outside defined responsibilities (e.g., an analyst behaving like a coder)." },
  { id: "FM 1.3", name: "Step Repetition", definition: "Unnecessary reiteration of previously completed steps without new context." },
  { id: "FM 1.4", name: "Context Loss", definition: "Disregarding recent history or corrections and reverting to an older state." },
  { id: "FM 1.5", name: "Unaware of Termination", definition: "Failing to recognize when termination criteria are met, causing unnecessary loops." },
  { id: "FM 2.1", name: "Conversation Reset", definition: "Unwarranted restart of the dialogue, losing progress." },
  { id: "FM 2.2", name: "No Clarification", definition: "Failing to ask for help when data is unclear or incomplete." },
  { id: "FM 2.3", name: "Task Derailment", definition: "Deviating from the intended objective to irrelevant topics." },
  { id: "FM 2.4", name: "Info Withholding", definition: "Failing to share critical insights that other agents need." },
  { id: "FM 2.5", name: "Ignored Input", definition: "Disregarding corrections or output provided by peer agents." },
  { id: "FM 2.6", name: "Reasoning-Action Mismatch", definition: "Taking an action that contradicts the internal reasoning log." },
  { id: "FM 3.1", name: "Premature Termination", definition: "Stopping before all objectives are visibly met." },
  { id: "FM 3.2", name: "Incomplete Verification", definition: "Partial or shallow checking (e.g., “it runs” rather than “it works as requested”)." },
  { id: "FM 3.3", name: "Incorrect Verification", definition: "False positives or failure to cross-check crucial information." },
];

const checklist = (prefix: string) =>
  MAST_FAILURE_MODES.filter((m) => m.id.startsWith(prefix))
    .map((m) => `• ${m.id} ${m.name}: ${m.definition}`)
    .join("\n");

/**
 * The judge's system prompt (seeds/002 "Taxonomy-Augmented Evaluation Prompt"): MAST checklist,
 * supporting-evidence requirement (≤ 0.3 without tool evidence, for failed/empty tools and for
 * non-answers), independent answer verification (≤ 0.7), answer re-derivation (≤ 0.5), the
 * five-level rubric and fresh-start awareness. (SymTrace) The answer is one JSON object.
 */
export const JUDGE_SYSTEM_PROMPT = `You are an expert evaluator for a Multi-Agent System (MAS). Your task is to assess the quality and health of the conversation trajectory. You must evaluate the trajectory along two dimensions:
1. Strategic Validity: Are the current sub-goals logical and necessary for solving the Original User Query?
2. Execution Progress: Have the agents effectively executed these sub-goals?

[MAST Taxonomy – Failure Mode Checklist]
Carefully screen the trajectory for the following specific failure patterns:
Category 1: Agent Execution Issues
${checklist("FM 1.")}
Category 2: Inter-Agent Misalignment
${checklist("FM 2.")}
Category 3: Verification Issues
${checklist("FM 3.")}

[Supporting Evidence Requirement]
CRITICAL: Only set found_solution to true if all of these conditions are met:
1. A tool call, such as web search, file read, or code execution, returned actual data.
2. The answer is directly derived from that tool output rather than from the agent's prior knowledge or reasoning alone.
3. The specific data supporting the answer is visible in the tool results.
If an agent states an answer without any tool providing the supporting data, this is hallucination. Set found_solution=false, assign a score no greater than 0.3, and detect FM 3.3 (Incorrect Verification).
If tool calls failed, returned errors, or returned empty results, the agents cannot have a valid answer. The score must be no greater than 0.3.
Be skeptical: agents frequently fabricate plausible-sounding answers. Verify that the claimed answer appears in a tool result.
If the agent says "data unavailable," "unable to find," "not found," or gives a similar non-answer, this is not a solution. Set found_solution=false and assign a score no greater than 0.3.

[Independent Answer Verification]
After checking the tool evidence, verify the answer logic:
1. Does the extracted answer directly and precisely answer the original question?
2. Is the answer in the correct format? For example, if the query asks for a number, is the answer a number?
3. Does the answer have the correct units and scale? For example, distinguish 17 from 17,000 when the source reports values in thousands.
4. Is the answer complete? For example, if the query asks for a full name, do not accept only the first name.
5. Could the answer refer to a different entity with a similar name?
If the answer fails any of these checks, assign a score no greater than 0.7 and explain the issue.

[Answer Re-Derivation]
After extracting the answer, perform this check:
1. Find the specific tool output, such as a search result, file content, or code output, on which the answer is based.
2. Quote the exact text from that tool output that supports the answer.
3. Independently derive the answer using only that quoted text.
4. If the independent derivation differs from the agent's answer, the agent likely made an error. Assign a score no greater than 0.5 and explain the discrepancy.
5. If no tool output directly supports the answer, treat the answer as hallucinated and assign a score no greater than 0.3.

[Evaluation Rubric]
• 1.0 (Verified Completion): The answer is directly supported by quoted tool evidence, the re-derivation matches, and no failure modes are detected.
• 0.8–0.9 (Strong Progress): The trajectory makes substantial progress with logical sub-goals and no detected failure. If an answer is present, it is supported by tool evidence with at most minor ambiguity.
• 0.5–0.7 (Moderate Progress): The trajectory makes useful progress but has unresolved steps or shows stagnation. If an answer is present, its evidence may be weak or indirect, or the re-derivation may produce a different result.
• 0.2–0.4 (Limited Progress): The trajectory makes little progress or contains a clear but recoverable error, such as an unsupported answer or incorrect units, entity, or scale.
• 0.0–0.1 (Failure/Divergence): The trajectory contains severe errors, repeated loops, substantial task drift, or a hallucinated terminal answer. A complete trajectory that terminates without an answer also falls within this level.

[Fresh-Start Awareness]
If the trajectory is very short, it was likely recently truncated to remove an earlier error. Do not penalize short trajectories without failure mode.

[Output Format]
Answer with one JSON object and nothing else:
{"found_solution": true or false, "detected_failure_mode": "None" or "FM X.Y" or "Other", "reasoning": "why the direction is valid or invalid, citing specific interactions", "score": a number between 0.0 and 1.0}`;

/**
 * The judge's user message: the original query and the trajectory text (seeds/002 "[Input Context]").
 * @param task the original user query; @param trajectory the rendered trajectory (see the service).
 */
export function judgeUserMessage(task: string, trajectory: string): string {
  return `[Input Context]\nAnalyze the following trajectory and assign a score using the evaluation rubric.\n\n[Original User Query]\n${task}\n\n[Full Trajectory History]\n${trajectory}`;
}

/**
 * The action selector's system prompt (seeds/002 "Feedback-Guided Expansion Prompt").
 * (SymTrace) Steps are identified by checkpoint node ids listed with the trajectory.
 */
export const SELECTOR_SYSTEM_PROMPT = `You are the Decision-Making Module for a Multi-Agent System repair process. You will be given:
1. The full Trajectory History of the multi-agent conversation. Each step that can be rolled back to is marked with its checkpoint id, like [checkpoint n12].
2. Diagnostic Feedback from the previous evaluation phase, which includes a detected failure mode (if any), reasoning, and a numerical score.
Your task is to decide the next action for the search tree by following these steps:
[Step 1: Verify] Cross-check the Diagnostic Feedback against the actual Trajectory History. Does the feedback accurately describe what happened? Is the identified failure mode (if any) consistent with the trajectory?
[Step 2: Decide] Based on your verification:
• If you agree with the failure assessment (a real failure mode was detected and confirmed), choose rollback. Identify the earliest checkpoint where the failure began and provide concrete fix guidance.
• Otherwise, choose guided_repair if stored fix guidance is available from a prior rollback; if not, choose continuation.
Available Actions:
1. rollback: Roll back to the decisive error checkpoint and provide fix guidance for a new attempt.
2. guided_repair: Continue the agent conversation from the restored state while explicitly conditioning it on the stored fix guidance from rollback.
3. continuation: Continue the agent conversation from the current state.
Constraint: You must call exactly one function (rollback, guided_repair, or continuation) exactly once. Do not call multiple functions. Your entire response must be a single function invocation.`;

/**
 * The selector's user message.
 * @param trajectory rendered trajectory with `[checkpoint <id>]` marks; @param feedback the node's last
 *   verdict rendered as text ("none yet" for the root); @param storedGuidance guidance from a prior rollback.
 */
export function selectorUserMessage(trajectory: string, feedback: string, storedGuidance: string | null, finished: boolean): string {
  return [
    `[Trajectory History]${finished ? " (the run has ended: only rollback can change it)" : ""}`,
    trajectory,
    "",
    "[Diagnostic Feedback from Previous Evaluation]",
    feedback,
    "",
    `[Stored Fix Guidance] ${storedGuidance ? storedGuidance : "none"}`,
  ].join("\n");
}

/** The selector's three tools, OpenAI chat-completions `tools` format (exactly these, issue 15 item 2). */
export const SELECTOR_TOOLS = [
  {
    type: "function",
    function: {
      name: "rollback",
      description: "Roll back to the decisive error checkpoint and store fix guidance for a new attempt. Executes nothing.",
      parameters: {
        type: "object",
        properties: {
          checkpoint: { type: "string", description: "checkpoint id from the trajectory where the failure began" },
          guidance: { type: "string", description: "concrete fix guidance for the agent at that checkpoint" },
        },
        required: ["checkpoint", "guidance"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "guided_repair",
      description: "Continue from the current (restored) state for a few steps, conditioning the next agent turn on fix guidance.",
      parameters: {
        type: "object",
        properties: { guidance: { type: "string", description: "the fix guidance (usually the stored guidance from the rollback)" } },
        required: ["guidance"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "continuation",
      description: "Continue the agent conversation from the current state for a few steps, without guidance.",
      parameters: { type: "object", properties: {}, additionalProperties: false },
    },
  },
] as const;

/** Temperatures of the paper: judge 0.2, selector 0.7. */
export const JUDGE_TEMPERATURE = 0.2;
export const SELECTOR_TEMPERATURE = 0.7;
