/**
 * The prompts of the three LLM attributors of Zhang et al. (ICML 2025, "Which Agent Causes Task
 * Failures and When?", §4 "Automated failure attribution methods": All-at-Once, Step-by-Step,
 * Binary Search). Written here from the paper's descriptions (README.md beside this file says
 * which sentence each part comes from and where we differ); they are not copies of the authors'
 * code. The ground-truth line appears only in the "with ground truth" setting (the paper's
 * Table 1 "w/ G" columns).
 */
import type { AttributionCase, AttributionStep } from "./types";

/** Longest text of one step sent to a model; longer steps are cut with a marker (ours). */
export const MAX_STEP_CHARS = 8000;

export const ALL_AT_ONCE_SYSTEM = "You analyse the logs of multi-agent systems that failed a task and find the decisive error.";
export const STEP_BY_STEP_SYSTEM = "You judge, one step at a time, whether a step of a multi-agent log is the decisive error.";
export const BINARY_SEARCH_SYSTEM = "You locate the decisive error of a failed multi-agent log within a range of its steps.";

function cut(text: string): string {
  return text.length > MAX_STEP_CHARS ? `${text.slice(0, MAX_STEP_CHARS)}…[${text.length - MAX_STEP_CHARS} more characters]` : text;
}

/** "Step <i> - <agent>: <text>" per step, one per line block. */
export function renderSteps(steps: readonly AttributionStep[]): string {
  return steps.map((s) => `Step ${s.index} - ${s.agent}: ${cut(s.text)}`).join("\n");
}

function taskLines(c: AttributionCase, withGroundTruth: boolean): string {
  const gt = withGroundTruth ? `\nThe correct answer to the problem is: ${c.groundTruth ?? "(not given)"}` : "";
  return `The problem the agents tried to solve: ${c.question}${gt}`;
}

/** The agents of the log, in order of first appearance. */
export function agentList(c: AttributionCase): string[] {
  return [...new Set(c.steps.map((s) => s.agent))];
}

/** All-at-Once: the whole log in one request; answer agent, step and reason. */
export function allAtOncePrompt(c: AttributionCase, withGroundTruth: boolean): string {
  return [
    "A team of agents tried to solve a problem and failed.",
    taskLines(c, withGroundTruth),
    `Agents in the log: ${agentList(c).join(", ")}.`,
    "Here is the whole log. Steps are numbered from 0 in the order they were written:",
    "",
    renderSteps(c.steps),
    "",
    "Find the decisive error: the agent whose mistake is directly responsible for the failure, and the step where that agent first made it. If no agent made an obvious mistake, still choose the single most responsible agent and step.",
    "Answer in exactly this format:",
    "Agent Name: <one agent, as named in the log>",
    "Step Number: <the step number>",
    "Reason: <one or two sentences>",
  ].join("\n");
}

/** Step-by-Step: the log up to step `t`; is step t the decisive error? */
export function stepByStepPrompt(c: AttributionCase, t: number, withGroundTruth: boolean): string {
  const s = c.steps[t];
  return [
    "A team of agents tried to solve a problem and failed. You see their log up to the current step.",
    taskLines(c, withGroundTruth),
    "",
    renderSteps(c.steps.slice(0, t + 1)),
    "",
    `The current step is step ${t}, written by ${s.agent}.`,
    `Is step ${t} the decisive error: a mistake that derails solving the problem and leads to the failure? Do not be overly critical; answer Yes only for an error that clearly derails the process.`,
    "Answer in exactly this format:",
    "1. Yes or No",
    "2. Reason: <one or two sentences>",
  ].join("\n");
}

/** Binary Search: steps lo..hi; is the decisive error in the upper half (lo..mid) or the lower half (mid+1..hi)? */
export function binarySearchPrompt(c: AttributionCase, lo: number, hi: number, mid: number, withGroundTruth: boolean): string {
  return [
    "A team of agents tried to solve a problem and failed.",
    taskLines(c, withGroundTruth),
    `Here are steps ${lo} to ${hi} of their log:`,
    "",
    renderSteps(c.steps.slice(lo, hi + 1)),
    "",
    `The decisive error is the single step most responsible for the failure. Is it in the upper half (steps ${lo} to ${mid}) or in the lower half (steps ${mid + 1} to ${hi})? If no error is evident, choose the half with the step you believe most responsible.`,
    "Answer with only: upper half, or: lower half.",
  ].join("\n");
}
