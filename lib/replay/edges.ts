/**
 * Data edges from content (issue 21 item 4): an LLM request depends on the earlier responses and
 * tool results it carries, so parallel agents get parallel branches that join where their outputs
 * are used (instead of one chain in completion order).
 *
 * The request is read protocol-neutrally, as the turns it carries (protocols.ts `turns`: chat
 * messages, Responses input items, Anthropic messages and blocks). A request carries an earlier
 * output when one of its turns
 *   - is an assistant turn naming a tool-call id an earlier response produced, or standing for a
 *     recorded response or output item (`previous_response_id`, `item_reference`, an item id), or
 *     whose text equals an earlier response's text (conversation history; hand-offs);
 *   - is a tool result whose call id names an earlier gateway tool call with a recorded result;
 *   - contains, in its text, the text of one of the last 32 responses, tool results or tool-call
 *     arguments (string values; at least 12 characters each): an orchestrator pasting a
 *     sub-agent's answer into its prompt, a sub-agent's answer coming back as the result of the
 *     orchestrator's tool call, a sub-agent whose task is the argument of that call. A text
 *     several outputs have is the first one's (its origin: later outputs echo it).
 * The dependencies found are reduced: one carried by another found one (its history) is dropped,
 * so a long conversation gets one edge from its latest turn, not one per turn.
 *
 * Pure; used by trace.ts (`TraceBuilder.beginLlm`).
 */
import { canonicalJson } from "../bundle";
import type { AssistantMessage } from "./openai";
import { protocolAdapter } from "./protocols";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Shortest text looked for by containment (shorter texts match by accident). */
export const MIN_CONTAINED = 12;
/** How many recent outputs are looked for by containment. */
export const RECENT_OUTPUTS = 32;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : "")).join("");
  return "";
}

function observationText(v: unknown): string {
  if (typeof v === "string") return v;
  try {
    return canonicalJson(v);
  } catch {
    return "";
  }
}

/** Index of earlier outputs (agent_action / tool_result nodes) by what a later request would carry. */
export class ContentEdges {
  private readonly actionByCallId = new Map<string, string>();
  private readonly actionByText = new Map<string, string>();
  private readonly resultByCallId = new Map<string, string>();
  private readonly recent: { id: string; text: string }[] = [];
  /** Content parents per node (llm_call -> its deps; output -> the call that produced it). */
  private readonly parents = new Map<string, string[]>();
  private readonly position = new Map<string, number>();

  private remember(id: string, text: string, parent: string | null): void {
    this.position.set(id, this.position.size);
    if (parent) this.parents.set(id, [parent]);
    if (text.length >= MIN_CONTAINED) this.addRecent(id, text);
  }

  /**
   * An agent_action node `id` (the assistant message of llm_call `llmNodeId`).
   * @param refIds other ids a later request may stand for this output by (Responses response / item ids)
   * @param argTexts string values of the arguments of the tool calls it names (looked for by containment)
   */
  addAction(id: string, llmNodeId: string | null, message: AssistantMessage, refIds: readonly string[] = [], argTexts: readonly string[] = []): void {
    for (const tc of message.tool_calls ?? []) if (typeof tc.id === "string" && tc.id) this.actionByCallId.set(tc.id, id);
    for (const r of refIds) if (r) this.actionByCallId.set(r, id);
    const text = textOf(message.content);
    if (text) this.actionByText.set(text, id);
    this.remember(id, text, llmNodeId);
    for (const a of new Set(argTexts)) if (a.length >= MIN_CONTAINED && a !== text) this.addRecent(id, a);
  }

  /** A text looked for by containment; a text some earlier output already has stays that output's (its origin; later copies echo it). */
  private addRecent(id: string, text: string): void {
    if (this.recent.some((r) => r.text === text)) return;
    this.recent.push({ id, text });
    if (this.recent.length > RECENT_OUTPUTS) this.recent.shift();
  }

  /** A tool_result node `id` (observation of tool_call `callNodeId`, whose model tool-call id is `toolCallId` when known). */
  addToolResult(id: string, callNodeId: string | null, toolCallId: string | null, observation: unknown): void {
    if (toolCallId) this.resultByCallId.set(toolCallId, id);
    this.remember(id, observationText(observation), callNodeId);
  }

  /** The content dependencies of an llm_call (kept for the reduction of later requests). */
  setDeps(llmNodeId: string, deps: string[]): void {
    this.position.set(llmNodeId, this.position.size);
    this.parents.set(llmNodeId, deps);
  }

  /**
   * The earlier outputs a request carries (rule in the module doc), reduced, in index order.
   * @param request a normalized request of `protocol` (default chat); one with no turns carries nothing
   * @param protocol its protocol (protocols.ts; embeddings and unknown routes carry nothing)
   */
  depsOf(request: unknown, protocol?: string | null): string[] {
    const turns = protocolAdapter(protocol).turns(request);
    const found = new Set<string>();
    const texts: string[] = [];
    for (const t of turns) {
      if (t.role === "assistant") {
        let hit = false;
        for (const id of [...t.callIds, ...t.refs]) {
          const a = this.actionByCallId.get(id);
          if (a) {
            found.add(a);
            hit = true;
          }
        }
        const a = t.text ? this.actionByText.get(t.text) : undefined;
        if (a) found.add(a);
        else if (!hit && t.text) texts.push(t.text);
      } else if (t.role === "tool" && t.callIds.length && this.resultByCallId.has(t.callIds[0])) {
        found.add(this.resultByCallId.get(t.callIds[0])!);
      } else if (t.text) texts.push(t.text);
    }
    if (texts.length && this.recent.length) {
      for (const r of this.recent) if (!found.has(r.id) && texts.some((t) => t.includes(r.text))) found.add(r.id);
    }
    return this.reduce([...found]);
  }

  /** Drop every dependency that another one carries (reachable through content parents). */
  private reduce(deps: string[]): string[] {
    if (deps.length < 2) return deps;
    const sorted = deps.sort((a, b) => (this.position.get(b) ?? 0) - (this.position.get(a) ?? 0));
    const seen = new Set<string>();
    const keep: string[] = [];
    for (const d of sorted) {
      if (seen.has(d)) continue;
      keep.push(d);
      const stack = [...(this.parents.get(d) ?? [])];
      while (stack.length) {
        const x = stack.pop()!;
        if (seen.has(x)) continue;
        seen.add(x);
        for (const p of this.parents.get(x) ?? []) stack.push(p);
      }
    }
    return keep.sort((a, b) => (this.position.get(a) ?? 0) - (this.position.get(b) ?? 0));
  }
}
