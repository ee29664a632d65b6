/**
 * Which agent made an LLM request, from what frameworks send (issue 21 item 2). The proxy sees no
 * other identity, so the rule reads the request, in order:
 *   1. the explicit header `x-symtrace-agent` (the proxy passes it as `BoundaryCall.agent`);
 *   2. a per-protocol name field: the chat system/developer message's `name`;
 *   3. a hand-off: the most recent `transfer_to_<agent>` / `transfer_back_to_<agent>` tool call in
 *      the request's history whose result came back (OpenAI Agents SDK and LangGraph supervisor
 *      hand-offs; the Agents SDK's result `{"assistant": "<Agent Name>"}` gives the exact name);
 *   4. the system prompt / instructions as a fingerprint, named from its text: "You are [the|a|an]
 *      <Name>" gives <Name>, "You are a math expert" gives "Math Expert", else its first words; no system prompt at all gives "assistant"
 *      ("embeddings" for an embeddings call, "unknown-route" for an unknown route).
 * Lanes: a request with a name (1–3) belongs to that name's lane; one without joins the lane of
 * its prompt. Two different system prompts never share a lane: a name already bound to another
 * prompt gets the prompt's short hash appended ("Planner #3fa2"); a prompt first seen without a
 * name and later with one (a supervisor before and after its first hand-back) is one lane, named
 * by the name (its earlier nodes are renamed: agent names are not hashed). Pure; deterministic
 * for a given sequence of requests.
 */
import { hashJson } from "../bundle";
import { protocolAdapter } from "./protocols";

/** Evidence for the agent of one request. */
export interface AgentEvidence {
  /** From rule 1–3, or null. */
  name: string | null;
  /** Which rule gave `name`. */
  source: "header" | "name-field" | "handoff" | "prompt";
  /** The system prompt text ("" when none). */
  prompt: string;
}

const HANDOFF = /^transfer_(?:back_)?to_(.+)$/;

/**
 * Rules 1–3 and the prompt of a request (rule 4 names it in {@link AgentLanes}).
 * @param request the request as stored (normalized)
 * @param protocol its protocol (default openai-chat)
 * @param header the `x-symtrace-agent` header, if sent
 */
export function agentEvidence(request: unknown, protocol?: string | null, header?: string | null): AgentEvidence {
  const a = protocolAdapter(protocol);
  const prompt = a.instructions(request) ?? "";
  if (header && header.trim()) return { name: header.trim(), source: "header", prompt };
  const field = a.nameField(request);
  if (field) return { name: field, source: "name-field", prompt };
  const results = new Map(a.toolResults(request).map((t) => [t.callId, t.output]));
  const calls = a.historyToolCalls(request);
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i];
    const m = HANDOFF.exec(c.name);
    if (!m || c.callId === null || !results.has(c.callId)) continue;
    return { name: handoffName(results.get(c.callId), m[1]), source: "handoff", prompt };
  }
  return { name: null, source: "prompt", prompt };
}

/**
 * The agent of a request by its content alone, as a comparable key (replay: is this request the
 * target's agent's?): `name:<name>` from rules 2–3 (a name field, a hand-off), else
 * `prompt:<system prompt text>` (rule 4's fingerprint; "" when none). A tool request has no agent
 * (`tool:`). Two requests of one agent get the same key; two different system prompts never do.
 * @param request the request as stored (normalized)
 * @param protocol its protocol (default openai-chat)
 * @param boundary "llm" (default) or "tool"
 */
export function agentKeyOf(request: unknown, protocol?: string | null, boundary: "llm" | "tool" = "llm"): string {
  if (boundary === "tool") return "tool:";
  const ev = agentEvidence(request, protocol);
  return ev.name !== null ? `name:${ev.name}` : `prompt:${ev.prompt}`;
}

/** The Agents SDK's hand-off result `{"assistant": "<name>"}` names the agent; else the tool-name suffix. */
function handoffName(output: unknown, suffix: string): string {
  const text = typeof output === "string" ? output : Array.isArray(output) ? output.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("") : null;
  if (text) {
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === "object" && typeof (v as { assistant?: unknown }).assistant === "string" && (v as { assistant: string }).assistant.trim()) return (v as { assistant: string }).assistant.trim();
    } catch {
      /* not the Agents SDK's shape */
    }
  }
  return suffix;
}

/** Short hash of a prompt (4 hex of its sha256). */
export function promptTag(prompt: string): string {
  return hashJson(prompt).slice("sha256:".length, "sha256:".length + 4);
}

/** "You are a [helpful] <up to 3 words> agent|assistant|expert|…" (docs-style prompts). */
const ROLE = /^You are (?:the |an? )?((?:[a-z][\w-]* ){0,3}?(?:agent|assistant|expert|supervisor|manager|planner|researcher|writer|editor|reviewer|critic|coder|analyst|router|orchestrator|specialist))\b/i;

/**
 * Rule 4: a name read from a system prompt: "You are [the|a|an] <Name>" (one to four capitalised
 * words: "You are the Triage Agent." → "Triage Agent", as the Agents SDK names it in a handoff);
 * else "You are a <words> agent|assistant|expert|supervisor|…" title-cased ("You are a math
 * expert." → "Math Expert"); else its first four words (at most 40 characters).
 * @returns null for an empty prompt
 */
export function promptName(prompt: string): string | null {
  const t = prompt.replace(/\s+/g, " ").trim();
  if (!t) return null;
  const m = /^You are (?:the |an? )?([A-Z][A-Za-z0-9_-]*(?: [A-Z][A-Za-z0-9_-]*){0,3})/.exec(t);
  if (m) return m[1];
  const role = ROLE.exec(t);
  if (role) return role[1].split(" ").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
  const words = t.split(" ").slice(0, 4).join(" ").replace(/[.,;:!?]+$/, "");
  return words.length > 40 ? words.slice(0, 39) + "…" : words;
}

/**
 * The lanes of one run: assigns every request an agent name (rule in the module doc) and
 * reports renames of earlier nodes when a prompt's lane gets its name.
 */
export class AgentLanes {
  /** prompt -> lane name. */
  private byPrompt = new Map<string, string>();
  /** lane name -> the prompt it is bound to (first seen). */
  private promptOf = new Map<string, string>();
  /** prompt lanes named by rule 4 (may still be renamed by a name). */
  private unnamed = new Set<string>();

  /**
   * The agent of one request.
   * @param fallback name for a request with neither a name nor a prompt (e.g. "assistant")
   * @returns the lane name, and `rename` when earlier nodes of the prompt's lane must take it
   */
  assign(ev: AgentEvidence, fallback = "assistant"): { agent: string; rename?: { from: string; to: string } } {
    if (ev.name !== null) {
      if (ev.source === "header") return { agent: ev.name };
      const bound = this.promptOf.get(ev.name);
      let agent = ev.name;
      if (bound !== undefined && bound !== ev.prompt) agent = `${ev.name} #${promptTag(ev.prompt)}`;
      if (!this.promptOf.has(agent)) this.promptOf.set(agent, ev.prompt);
      const prev = this.byPrompt.get(ev.prompt);
      if (prev !== undefined && prev !== agent && this.unnamed.has(prev)) {
        this.unnamed.delete(prev);
        this.byPrompt.set(ev.prompt, agent);
        return { agent, rename: { from: prev, to: agent } };
      }
      if (prev === undefined) this.byPrompt.set(ev.prompt, agent);
      return { agent };
    }
    const known = this.byPrompt.get(ev.prompt);
    if (known !== undefined) return { agent: known };
    let agent = promptName(ev.prompt) ?? fallback;
    const bound = this.promptOf.get(agent);
    if (bound !== undefined && bound !== ev.prompt) agent = `${agent} #${promptTag(ev.prompt)}`;
    this.promptOf.set(agent, ev.prompt);
    this.byPrompt.set(ev.prompt, agent);
    this.unnamed.add(agent);
    return { agent };
  }
}
