/**
 * The provider protocols the proxy records and replays, one adapter each over its module
 * (openai.ts chat completions, responses.ts, anthropic.ts, embeddings.ts; plus `unknown-route`,
 * a request to a route the proxy does not know, recorded as a failed boundary). The replay core
 * (trace.ts, session.ts, agents.ts) sees every protocol through `ProtocolAdapter`: what the
 * response produced (agent_action content, text, named tool calls), which tool results the
 * request carries back, the system prompt, and q ⊕ Δ. Pure.
 *
 * A record's protocol is `meta.protocol`; absent = `openai-chat` (every bundle recorded before
 * protocols existed), so chat records and their hashes are exactly as before.
 */
import { anthropicHistoryCalls, anthropicInstructions, anthropicMessageCount, anthropicOutput, anthropicToolResults, anthropicTurns, appendAnthropicGuidance } from "./anthropic";
import { embeddingsInputCount } from "./embeddings";
import { appendGuidance as appendChatGuidance, assistantOf, streamEventsFor, type SseEvent } from "./openai";
import { anthropicStreamError, chatStreamError, responsesStreamError, type StreamError } from "./stream-errors";
import { appendResponsesGuidance, parseArgs, responsesHistoryCalls, responsesInstructions, responsesMessageCount, responsesOutput, responsesOutputItems, responsesToolResults, responsesTurns } from "./responses";

/** Protocols of LLM boundaries. */
export const PROTOCOLS = ["openai-chat", "openai-responses", "anthropic-messages", "openai-embeddings", "unknown-route"] as const;
export type ProtocolName = (typeof PROTOCOLS)[number];
export const DEFAULT_PROTOCOL: ProtocolName = "openai-chat";

/** True when `p` names a protocol. */
export function isProtocolName(p: unknown): p is ProtocolName {
  return typeof p === "string" && (PROTOCOLS as readonly string[]).includes(p);
}

/** A tool call named by a model response (or found in a request's history). */
export interface ToolCallView {
  /** `tool_calls[].id` / `call_id` / `tool_use` `id`; null when the protocol gave none. */
  callId: string | null;
  name: string;
  /** Arguments, parsed from JSON when they were a string (raw string if not JSON). */
  args: unknown;
}

/** A tool result a request carries back to the model. */
export interface ToolResultView {
  callId: string;
  output: unknown;
  isError: boolean;
  /** RFC 6901 pointer of the output inside the (normalized) request. */
  pointer: string;
}

/**
 * One turn of the conversation a request carries (its history, protocol-neutral), for data edges
 * from content (edges.ts):
 *   - `assistant`: earlier model output fed back (chat assistant message, Responses `message` of
 *     role assistant / `function_call` / `item_reference` / `previous_response_id`, Anthropic
 *     assistant message); `callIds` the tool-call ids it names, `refs` the ids of recorded
 *     responses or output items it stands for;
 *   - `tool`: a tool result (`callIds` = the one call it answers), `text` its output as text;
 *   - `other`: system / user input, `text` its text.
 */
export interface TurnView {
  role: "assistant" | "tool" | "other";
  callIds: string[];
  refs: string[];
  text: string;
}

/** What a response produced. */
export interface OutputView {
  /** agent_action content (chat: the assistant message; Responses: `{ role, output }`; Anthropic: `{ role, content }`). */
  content: unknown;
  text: string | null;
  toolCalls: ToolCallView[];
  finishReason: string | null;
  /** Ids a later request may use to stand for this output (Responses: the response id and its output item ids). */
  refIds?: string[];
}

/** One protocol as the replay core sees it. */
export interface ProtocolAdapter {
  name: ProtocolName;
  /** What an llm boundary of this protocol produces when it answers (null = no agent_action). */
  output(response: unknown): OutputView | null;
  toolResults(request: unknown): ToolResultView[];
  historyToolCalls(request: unknown): ToolCallView[];
  /** The conversation the request carries, in order (data edges from content). */
  turns(request: unknown): TurnView[];
  /** The system prompt / instructions text, or null. */
  instructions(request: unknown): string | null;
  /** A per-protocol agent name field of the request (chat: the system message's `name`), or null. */
  nameField(request: unknown): string | null;
  messageCount(request: unknown): number;
  /** q ⊕ Δ. @throws Error when this request cannot take guidance */
  appendGuidance<T>(request: T, guidance: string): T;
  /** The recorded stream as the replaying client asked for it. */
  streamEventsFor(events: readonly SseEvent[], request: unknown): SseEvent[];
  /** The error the upstream reported inside a stream (stream-errors.ts), or null: the call failed although HTTP said 200. */
  streamError(events: readonly SseEvent[]): StreamError | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

const chatMessages = (r: unknown): unknown[] => (isRec(r) && Array.isArray(r.messages) ? r.messages : []);

function chatCalls(msg: unknown): ToolCallView[] {
  if (!isRec(msg) || !Array.isArray(msg.tool_calls)) return [];
  return msg.tool_calls.filter(isRec).map((tc) => {
    const fn = isRec(tc.function) ? tc.function : {};
    return { callId: typeof tc.id === "string" ? tc.id : null, name: typeof fn.name === "string" ? fn.name : "", args: parseArgs(fn.arguments) };
  });
}

function textOfContent(c: unknown): string | null {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    const t = c.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : "")).join("");
    return t || null;
  }
  return null;
}

const chat: ProtocolAdapter = {
  name: "openai-chat",
  output(response) {
    const a = assistantOf(response);
    if (!a) return null;
    return { content: a.message, text: typeof a.message.content === "string" ? a.message.content : null, toolCalls: chatCalls(a.message), finishReason: a.finishReason };
  },
  toolResults(request) {
    const out: ToolResultView[] = [];
    chatMessages(request).forEach((m, i) => {
      if (isRec(m) && m.role === "tool" && typeof m.tool_call_id === "string") out.push({ callId: m.tool_call_id, output: m.content ?? null, isError: false, pointer: `/messages/${i}/content` });
    });
    return out;
  },
  historyToolCalls(request) {
    return chatMessages(request).flatMap((m) => (isRec(m) && m.role === "assistant" ? chatCalls(m) : []));
  },
  turns(request) {
    const out: TurnView[] = [];
    for (const m of chatMessages(request)) {
      if (!isRec(m)) continue;
      const text = textOfContent(m.content) ?? "";
      if (m.role === "assistant") out.push({ role: "assistant", callIds: chatCalls(m).flatMap((c) => (c.callId ? [c.callId] : [])), refs: [], text });
      else if (m.role === "tool" && typeof m.tool_call_id === "string") out.push({ role: "tool", callIds: [m.tool_call_id], refs: [], text });
      else out.push({ role: "other", callIds: [], refs: [], text });
    }
    return out;
  },
  instructions(request) {
    const sys = chatMessages(request).filter((m): m is Rec => isRec(m) && (m.role === "system" || m.role === "developer"));
    if (!sys.length) return null;
    const t = sys.map((m) => textOfContent(m.content) ?? "").join("\n");
    return t.trim() ? t : null;
  },
  nameField(request) {
    const sys = chatMessages(request).find((m): m is Rec => isRec(m) && (m.role === "system" || m.role === "developer"));
    return sys && typeof sys.name === "string" && sys.name.trim() ? sys.name.trim() : null;
  },
  messageCount: (request) => chatMessages(request).length,
  appendGuidance: (request, g) => appendChatGuidance(request, g),
  streamEventsFor,
  streamError: chatStreamError,
};

const passStream = (events: readonly SseEvent[]): SseEvent[] => [...events];

const responses: ProtocolAdapter = {
  name: "openai-responses",
  output(r) {
    const o = responsesOutput(r);
    if (!o) return null;
    const refIds = [...(o.responseId ? [o.responseId] : []), ...responsesOutputItems(r).map((it) => it.id as string)];
    return { content: o.content, text: o.text, toolCalls: o.toolCalls, finishReason: o.finishReason, refIds };
  },
  toolResults: responsesToolResults,
  historyToolCalls: responsesHistoryCalls,
  turns: responsesTurns,
  instructions: responsesInstructions,
  nameField: () => null,
  messageCount: responsesMessageCount,
  appendGuidance: appendResponsesGuidance,
  streamEventsFor: passStream,
  streamError: responsesStreamError,
};

const anthropic: ProtocolAdapter = {
  name: "anthropic-messages",
  output: (r) => anthropicOutput(r),
  toolResults: anthropicToolResults,
  historyToolCalls: anthropicHistoryCalls,
  turns: anthropicTurns,
  instructions: anthropicInstructions,
  nameField: () => null,
  messageCount: anthropicMessageCount,
  appendGuidance: appendAnthropicGuidance,
  streamEventsFor: passStream,
  streamError: anthropicStreamError,
};

const noGuidance =
  (what: string) =>
  <T>(): T => {
    throw new Error(`cannot append guidance: ${what} takes no guidance (only a chat, Responses or Messages request does)`);
  };

const embeddings: ProtocolAdapter = {
  name: "openai-embeddings",
  output: () => null,
  toolResults: () => [],
  historyToolCalls: () => [],
  turns: () => [],
  instructions: () => null,
  nameField: () => null,
  messageCount: embeddingsInputCount,
  appendGuidance: noGuidance("an embeddings request"),
  streamEventsFor: passStream,
  streamError: chatStreamError,
};

const unknownRoute: ProtocolAdapter = {
  name: "unknown-route",
  output: () => null,
  toolResults: () => [],
  historyToolCalls: () => [],
  turns: () => [],
  instructions: () => null,
  nameField: () => null,
  messageCount: () => 0,
  appendGuidance: noGuidance("a request to an unknown route"),
  streamEventsFor: passStream,
  streamError: chatStreamError,
};

const ADAPTERS: Record<ProtocolName, ProtocolAdapter> = {
  "openai-chat": chat,
  "openai-responses": responses,
  "anthropic-messages": anthropic,
  "openai-embeddings": embeddings,
  "unknown-route": unknownRoute,
};

/**
 * The adapter of a protocol; `undefined`/null (a record without `meta.protocol`) = openai-chat.
 * @throws Error for an unknown protocol name
 */
export function protocolAdapter(name?: string | null): ProtocolAdapter {
  if (name === undefined || name === null) return chat;
  if (!isProtocolName(name)) throw new Error(`unknown protocol "${name}" (known: ${PROTOCOLS.join(", ")})`);
  return ADAPTERS[name];
}

/** The protocol of a stored record (`meta.protocol`, default openai-chat). */
export function recordProtocol(rec: { meta?: unknown }): ProtocolName {
  const p = isRec(rec.meta) ? rec.meta.protocol : undefined;
  return isProtocolName(p) ? p : DEFAULT_PROTOCOL;
}

/** q ⊕ Δ for a request of `protocol` (default chat). @throws Error when the request cannot take guidance */
export function appendGuidanceFor<T>(request: T, guidance: string, protocol?: string | null): T {
  return protocolAdapter(protocol).appendGuidance(request, guidance);
}

/**
 * Whether an RFC 6901 pointer into a request lies inside a tool result it carries back, and
 * which one (the divergence report says "tool result differs" then).
 * @returns the tool result, or null
 */
export function toolResultAt(request: unknown, pointer: string, protocol?: string | null): ToolResultView | null {
  for (const t of protocolAdapter(protocol).toolResults(request)) {
    if (pointer === t.pointer || pointer.startsWith(t.pointer + "/")) return t;
    // A whole tool message / item / block replaced: the pointer is its parent.
    const parent = t.pointer.slice(0, t.pointer.lastIndexOf("/"));
    if (pointer === parent) return t;
  }
  return null;
}
