/**
 * Training views of AED rows (seeds/004 §4, seeds-002-004.md §2.3): chat-format rows that common
 * fine-tuning tools load — `{"messages":[{role,content},…]}` (OpenAI fine-tuning, TRL SFTTrainer,
 * HF chat templates) and `{"prompt":[…],"chosen":[…],"rejected":[…]}` (TRL DPOTrainer's
 * conversational preference format). Pure.
 *
 * - **sft-diagnosis**: the student trace τ → the diagnosis (step, agent first; then categories,
 *   explanation with its quotes, correction). Only adjudicated, grounded rows (grade ≠ ungrounded).
 * - **sft-recovery** ("preventive" view): the trace prefix before the replay's boundary node →
 *   the action of a passing replay branch started from that node (diagnosis t*).
 * - **preference**: same prefix; chosen = a passing branch's action, rejected = a failing
 *   branch's action from the same boundary, else the source run's own action there (the source
 *   failed). Pairs with equal texts are skipped.
 *
 * No input carries privileged data: inputs are rendered from the student trace only (never
 * `task.reference`, `outcome`, evaluator output, replay guidance or outcomes), and every row is
 * audited by {@link leakedPrivileged} before it is kept.
 */
import { normalizeQuoteText, textLeaves } from "../../annotation/evidence";
import type { AedRecord } from "./record";
import { renderContent, renderTrace, type StudentTrace } from "./trace";

export const VIEW_FORMATS = ["sft-diagnosis", "sft-recovery", "preference"] as const;
export type ViewFormat = (typeof VIEW_FORMATS)[number];

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** An SFT row as written (only `messages`), with its bookkeeping kept apart (index.jsonl). */
export interface SftRow {
  messages: ChatMessage[];
}
export interface PreferenceRow {
  prompt: ChatMessage[];
  chosen: ChatMessage[];
  rejected: ChatMessage[];
}

/** Where a view row came from (index.jsonl of the view). */
export interface ViewMeta {
  id: string;
  aedId: string;
  split: AedRecord["split"];
  taskId: string;
  bundleId: string;
  /** Replay branches used (recovery: the passing one; preference: chosen and rejected). */
  branches?: { chosen?: string; rejected?: string; rejectedFrom?: "replay" | "source" };
}

export interface ViewItem<R> {
  row: R;
  meta: ViewMeta;
}

/** System prompt of the diagnosis view (the debugger's instruction; seeds/004 §4 "attribution first"). */
export const DIAGNOSIS_SYSTEM_PROMPT =
  "You debug failed multi-agent LLM runs. You are given the task and every step of one run in the order it happened. " +
  "Find the earliest step at which the run went wrong in a way that is actionable and connected to the failure. " +
  'Answer with one JSON object: {"step": <node id>, "stepIndex": <its [index]>, "agent": <the responsible agent or null>, ' +
  '"categories": [<C1..C4>], "primary": <one of them>, "explanation": <why, citing the trace>, ' +
  '"evidence": [{"step": <node id>, "quote": <verbatim text from that step, at or before the blamed step>}], "correction": <the action that should have been taken instead, or null>}. ' +
  "Categories: C1 task-constraint violation; C2 repeated or stalled progress; C3 unresolved runtime condition; C4 plan–action–outcome inconsistency.";

/** System prompt of the recovery and preference views: `{agent}` is the acting agent's name. */
export const RECOVERY_SYSTEM_PROMPT =
  "You are {agent}, one agent of a multi-agent system working on the task below. The steps taken so far are listed in order. " +
  "Reply with your next action only: the message you send or the tool call you make (as JSON), nothing else.";

const ACTION_TYPES = new Set(["agent_action", "tool_call", "final_result", "message"]);

/** A replay branch from the diagnosis's node: its boundary, verdict and first action. */
export interface ReplayBranch {
  /** Replay run (or experiment attempt) id. */
  id: string;
  /** The source node the branch was started at (its prefix = the steps before it). */
  boundaryNodeId: string;
  passed: boolean | null;
  /** The branch's first action after the boundary (see branchAction), or null when it has none. */
  action: { nodeId: string; type: string; agent: string | null; content: unknown } | null;
}

/**
 * The first action of a replay branch: the first node, in the replay's observed order at or after
 * its intervention node, that the source does not have and whose type is agent_action, tool_call,
 * final_result or message.
 * @param sourceIds the node ids of the source bundle
 * @param replay the branch's bundle (order and nodes); @param anchor its intervention node
 *   (lib/replay interventionNodeId), or null to start at the first new node
 */
export function branchAction(
  sourceIds: ReadonlySet<string>,
  replay: { order: string[]; graph: { nodes: Array<{ id: string; type: string; agent?: string | null; content: unknown }> } },
  anchor: string | null,
): ReplayBranch["action"] {
  const byId = new Map(replay.graph.nodes.map((n) => [n.id, n]));
  let from = anchor ? replay.order.indexOf(anchor) : -1;
  if (from < 0) from = replay.order.findIndex((id) => !sourceIds.has(id));
  if (from < 0) return null;
  for (const id of replay.order.slice(from)) {
    const n = byId.get(id);
    if (n && !sourceIds.has(id) && ACTION_TYPES.has(n.type)) return { nodeId: n.id, type: n.type, agent: n.agent ?? null, content: n.content };
  }
  return null;
}

/** The text of an action as the assistant's reply: a message's text, or the tool call / content rendered. */
export function actionText(a: { type: string; content: unknown }): string {
  const c = a.content as Record<string, unknown> | string | null;
  if (typeof c === "string") return c;
  if (c && typeof c === "object" && !Array.isArray(c)) {
    if (a.type === "tool_call") return JSON.stringify({ tool: c.tool ?? c.name ?? null, arguments: c.arguments ?? null });
    for (const k of ["text", "content", "final", "answer", "output"]) if (typeof c[k] === "string") return c[k] as string;
  }
  return renderContent(c);
}

/**
 * Privileged text that leaked into a row's inputs: every text leaf of the privileged data (≥ 8
 * characters after normalization) that occurs in the inputs but nowhere in the student trace (a
 * reference answer that a tool result also showed the model is not a leak: the model saw it; nor
 * is a reference label's node id or agent, which every rendering of the trace shows).
 * @returns the leaked texts ([] when clean)
 */
export function leakedPrivileged(inputs: string, trace: StudentTrace, privileged: unknown): string[] {
  // Whitespace-insensitive search of each privileged text in the raw input (no copy of the input):
  // the text's words joined by \s+, after the same normalization as quotes.
  const found = [...new Set(textLeaves(privileged).map(normalizeQuoteText))].filter((t) => t.length >= 8 && wordsPattern(t).test(inputs));
  if (!found.length) return [];
  // Only then: is each found text part of what the model saw? That is every text leaf of the trace
  // and everything rendered from it (step headers: node ids, types, agents; errors; tool names), so
  // a reference label naming a node of the trace (its node id, its agent) is not itself a leak.
  const seen = normalizeQuoteText([renderTrace(trace), ...trace.steps.flatMap((s) => textLeaves(s.content)), ...trace.systemPrompts.map((p) => p.text)].join("\n"));
  return found.filter((t) => !seen.includes(t));
}

/** A normalized text as a pattern matching it across any whitespace run (and a no-break space). */
function wordsPattern(t: string): RegExp {
  return new RegExp(t.split(" ").map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\u00a0\u2007\u202f]+"));
}

/** Row rejected by a view (not eligible, or a leak). */
export interface ViewSkip {
  aedId: string;
  view: ViewFormat;
  reason: string;
}

/**
 * The diagnosis SFT row of an AED row.
 * @returns the row, or a skip when the diagnosis is not adjudicated, is ungrounded, or leaks
 */
export function diagnosisView(rec: AedRecord, privileged: unknown): ViewItem<SftRow> | ViewSkip {
  const skip = (reason: string): ViewSkip => ({ aedId: rec.id, view: "sft-diagnosis", reason });
  if (!rec.review.adjudicated) return skip("not adjudicated (only final diagnoses train the diagnosis view)");
  if (rec.evidenceGrade === "ungrounded") return skip("ungrounded: the diagnosis cites nothing from the trace");
  const user = renderTrace(rec.trace);
  const d = rec.diagnosis;
  const answer = {
    step: d.step.nodeId,
    stepIndex: d.step.index,
    agent: d.agent,
    categories: d.labels.categories,
    primary: d.labels.primary,
    explanation: d.explanation,
    evidence: d.quotes.map((q) => ({ step: q.nodeId ?? "task", quote: q.text })),
    correction: d.correction,
  };
  const leaks = leakedPrivileged(DIAGNOSIS_SYSTEM_PROMPT + "\n" + user, rec.trace, privileged);
  if (leaks.length) return skip(`privileged text in the input: ${leaks.map((l) => JSON.stringify(l.slice(0, 40))).join(", ")}`);
  return {
    row: { messages: [{ role: "system", content: DIAGNOSIS_SYSTEM_PROMPT }, { role: "user", content: user }, { role: "assistant", content: JSON.stringify(answer) }] },
    meta: { id: `${rec.id}/diagnosis`, aedId: rec.id, split: rec.split, taskId: rec.source.taskId, bundleId: rec.source.bundleId },
  };
}

/** The prompt (system + user) of a branch point: the trace before `boundaryNodeId`; null when the node is not in the trace. */
function branchPrompt(rec: AedRecord, boundaryNodeId: string, agent: string | null): ChatMessage[] | null {
  const at = rec.trace.steps.find((s) => s.nodeId === boundaryNodeId);
  if (!at) return null;
  const prefix = rec.trace.steps.filter((s) => s.index < at.index);
  return [
    { role: "system", content: RECOVERY_SYSTEM_PROMPT.replace("{agent}", agent ?? at.agent ?? "the acting agent") },
    { role: "user", content: renderTrace(rec.trace, prefix) },
  ];
}

/** The source run's own action at/after a boundary (the original, failing action). */
function sourceAction(rec: AedRecord, boundaryNodeId: string): ReplayBranch["action"] {
  const at = rec.trace.steps.find((s) => s.nodeId === boundaryNodeId);
  if (!at) return null;
  const s = rec.trace.steps.find((x) => x.index >= at.index && ACTION_TYPES.has(x.type));
  return s ? { nodeId: s.nodeId, type: s.type, agent: s.agent, content: s.content } : null;
}

/**
 * Recovery SFT rows: one per passing branch of an adjudicated, grounded diagnosis.
 * @param branches the replay branches started at the diagnosis's node
 */
export function recoveryView(rec: AedRecord, branches: ReplayBranch[], privileged: unknown): Array<ViewItem<SftRow> | ViewSkip> {
  const out: Array<ViewItem<SftRow> | ViewSkip> = [];
  const skip = (reason: string): ViewSkip => ({ aedId: rec.id, view: "sft-recovery", reason });
  if (!rec.review.adjudicated || rec.evidenceGrade === "ungrounded") return [skip(rec.review.adjudicated ? "ungrounded diagnosis" : "not adjudicated")];
  const none = noPassingBranch(rec, branches);
  if (none) return [skip(none)];
  for (const b of branches) {
    if (b.passed !== true) continue;
    if (!b.action) {
      out.push(skip(`passing branch ${b.id} has no action after its boundary`));
      continue;
    }
    const prompt = branchPrompt(rec, b.boundaryNodeId, b.action.agent);
    if (!prompt) {
      out.push(skip(`branch ${b.id}: boundary node "${b.boundaryNodeId}" is not in the trace`));
      continue;
    }
    const leaks = leakedPrivileged(prompt.map((m) => m.content).join("\n"), rec.trace, privileged);
    if (leaks.length) {
      out.push(skip(`privileged text in the input of branch ${b.id}`));
      continue;
    }
    out.push({
      row: { messages: [...prompt, { role: "assistant", content: actionText(b.action) }] },
      meta: { id: `${rec.id}/recovery/${b.id}`, aedId: rec.id, split: rec.split, taskId: rec.source.taskId, bundleId: rec.source.bundleId, branches: { chosen: b.id } },
    });
  }
  return out;
}

/**
 * Why a row gives no recovery or preference item at all (issue 22 item 7: these views gave 0 rows
 * without saying why): no replay branch from the diagnosis, or none that passed.
 * @returns the reason, or null when some branch passed
 */
function noPassingBranch(rec: AedRecord, branches: ReplayBranch[]): string | null {
  const at = rec.diagnosis.step.nodeId;
  if (branches.length === 0) return `no replay branch from the diagnosed node ${at}: run a replay or an experiment anchored there (a row needs a branch that passed)`;
  if (branches.some((b) => b.passed === true)) return null;
  const failed = branches.filter((b) => b.passed === false).length;
  return `no passing replay branch from ${at}: ${branches.length} branch(es), ${failed} failed, ${branches.length - failed} without a verdict (a row needs a branch that passed)`;
}

/**
 * Preference pairs: each passing branch against a failing branch from the same boundary (taken
 * in turn), else against the source's own action there.
 */
export function preferenceView(rec: AedRecord, branches: ReplayBranch[], privileged: unknown): Array<ViewItem<PreferenceRow> | ViewSkip> {
  const out: Array<ViewItem<PreferenceRow> | ViewSkip> = [];
  const skip = (reason: string): ViewSkip => ({ aedId: rec.id, view: "preference", reason });
  if (!rec.review.adjudicated || rec.evidenceGrade === "ungrounded") return [skip(rec.review.adjudicated ? "ungrounded diagnosis" : "not adjudicated")];
  const none = noPassingBranch(rec, branches);
  if (none) return [skip(none)];
  const used = new Map<string, number>();
  for (const b of branches) {
    if (b.passed !== true) continue;
    if (!b.action) {
      out.push(skip(`passing branch ${b.id} has no action after its boundary`));
      continue;
    }
    const failing = branches.filter((x) => x.passed === false && x.action && x.boundaryNodeId === b.boundaryNodeId);
    const k = used.get(b.boundaryNodeId) ?? 0;
    used.set(b.boundaryNodeId, k + 1);
    const rej = failing.length ? { from: "replay" as const, id: failing[k % failing.length]!.id, action: failing[k % failing.length]!.action! } : { from: "source" as const, id: rec.source.bundleId, action: sourceAction(rec, b.boundaryNodeId) };
    if (!rej.action) {
      out.push(skip(`branch ${b.id}: no failing action from the same boundary`));
      continue;
    }
    const prompt = branchPrompt(rec, b.boundaryNodeId, b.action.agent);
    if (!prompt) {
      out.push(skip(`branch ${b.id}: boundary node "${b.boundaryNodeId}" is not in the trace`));
      continue;
    }
    const chosen = actionText(b.action);
    const rejected = actionText(rej.action);
    if (chosen === rejected) {
      out.push(skip(`branch ${b.id}: chosen and rejected actions are identical`));
      continue;
    }
    if (leakedPrivileged(prompt.map((m) => m.content).join("\n"), rec.trace, privileged).length) {
      out.push(skip(`privileged text in the input of branch ${b.id}`));
      continue;
    }
    out.push({
      row: { prompt, chosen: [{ role: "assistant", content: chosen }], rejected: [{ role: "assistant", content: rejected }] },
      meta: { id: `${rec.id}/preference/${b.id}`, aedId: rec.id, split: rec.split, taskId: rec.source.taskId, bundleId: rec.source.bundleId, branches: { chosen: b.id, rejected: rej.id, rejectedFrom: rej.from } },
    });
  }
  return out;
}

/** Is this a view row (not a skip)? */
export const isViewItem = <R>(x: ViewItem<R> | ViewSkip): x is ViewItem<R> => "row" in x;
