/**
 * Anthropic Messages API (`POST /v1/messages`) shapes the replay core needs: the named
 * normalization `anthropic-messages-v1`, the assistant message of a plain or streamed response,
 * its `tool_use` blocks and the `tool_result` blocks a request carries back, and q ⊕ Δ. Pure.
 *
 * Wire format (docs.anthropic.com/en/api/messages, as parsed by `@anthropic-ai/sdk` 1.x): request
 * `{ model, max_tokens, system?: string | text-block[], messages: [{ role, content: string |
 * block[] }], tools?, stream?, metadata? }`; blocks `{ type: "text", text }`, `{ type:
 * "tool_use", id, name, input }`, `{ type: "tool_result", tool_use_id, content, is_error? }`;
 * response `{ id, type: "message", role: "assistant", content: block[], stop_reason, usage }`. A
 * stream is server-sent events `event: <type>` + `data: { type, ... }`: message_start { message },
 * content_block_start { index, content_block }, ping, content_block_delta { index, delta: text_delta
 * { text } | input_json_delta { partial_json } | thinking_delta | signature_delta },
 * content_block_stop { index }, message_delta { delta: { stop_reason, stop_sequence }, usage },
 * message_stop.
 */
import type { SseEvent } from "./openai";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Name of the Anthropic Messages normalization. */
export const ANTHROPIC_MESSAGES_V1 = "anthropic-messages-v1";

/**
 * Top-level fields dropped by `anthropic-messages-v1`: `metadata` (holds only the end-user id,
 * `user_id`). Everything else (model, max_tokens, system, messages, tools, tool_choice,
 * temperature, top_p, top_k, stop_sequences, thinking, stream, ...) is kept and hashed; messages
 * are verbatim (`cache_control` markers included: they are part of what the MAS sent).
 */
export const ANTHROPIC_MESSAGES_V1_DROPPED = ["metadata"] as const;
const DROPPED = new Set<string>(ANTHROPIC_MESSAGES_V1_DROPPED);

/** `anthropic-messages-v1`: a shallow copy without {@link ANTHROPIC_MESSAGES_V1_DROPPED} and `undefined` values. */
export function normalizeAnthropicRequest(request: unknown): unknown {
  if (!isRec(request)) return request;
  const out: Rec = {};
  for (const [k, v] of Object.entries(request)) if (v !== undefined && !DROPPED.has(k)) out[k] = v;
  return out;
}

/**
 * The message of a stored Anthropic answer: the body itself (`type: "message"`), or for a stream
 * the message assembled from its events (message_start's message, blocks built from
 * content_block_start + deltas — `input_json_delta` fragments joined and parsed into `input` —,
 * `stop_reason` and usage from message_delta).
 * @returns null when the body is no message (an error body, say)
 */
export function anthropicMessageOf(response: unknown): Rec | null {
  if (isRec(response) && response.stream === true && Array.isArray(response.events)) {
    let msg: Rec | null = null;
    const blocks: Rec[] = [];
    const json: string[] = [];
    for (const e of response.events as SseEvent[]) {
      let ev: unknown;
      try {
        ev = JSON.parse(e.data);
      } catch {
        continue;
      }
      if (!isRec(ev)) continue;
      const i = typeof ev.index === "number" ? ev.index : -1;
      switch (ev.type) {
        case "message_start":
          if (isRec(ev.message)) msg = { ...ev.message };
          break;
        case "content_block_start":
          if (i >= 0 && isRec(ev.content_block)) {
            blocks[i] = { ...ev.content_block };
            json[i] = "";
          }
          break;
        case "content_block_delta": {
          const b = blocks[i];
          const d = ev.delta;
          if (!b || !isRec(d)) break;
          if (d.type === "text_delta" && typeof d.text === "string") b.text = String(b.text ?? "") + d.text;
          else if (d.type === "input_json_delta" && typeof d.partial_json === "string") json[i] += d.partial_json;
          else if (d.type === "thinking_delta" && typeof d.thinking === "string") b.thinking = String(b.thinking ?? "") + d.thinking;
          else if (d.type === "signature_delta" && typeof d.signature === "string") b.signature = d.signature;
          break;
        }
        case "content_block_stop": {
          const b = blocks[i];
          if (b && (b.type === "tool_use" || b.type === "server_tool_use") && json[i]) {
            try {
              b.input = JSON.parse(json[i]);
            } catch {
              b.input = json[i];
            }
          }
          break;
        }
        case "message_delta":
          if (msg && isRec(ev.delta)) {
            if ("stop_reason" in ev.delta) msg.stop_reason = ev.delta.stop_reason;
            if ("stop_sequence" in ev.delta) msg.stop_sequence = ev.delta.stop_sequence;
          }
          if (msg && isRec(ev.usage)) msg.usage = { ...(isRec(msg.usage) ? msg.usage : {}), ...ev.usage };
          break;
      }
    }
    if (!msg) return null;
    return { ...msg, content: blocks.filter(Boolean) };
  }
  if (isRec(response) && response.type === "message" && Array.isArray(response.content)) return response;
  return null;
}

/** One tool_use block. */
export interface AnthropicCall {
  callId: string | null;
  name: string;
  args: unknown;
}

/**
 * What an Anthropic answer produced: agent_action content `{ role: "assistant", content: blocks }`
 * (the message as it goes back into the next request), its text, its tool_use calls and
 * `stop_reason`.
 * @returns null for a body with no message
 */
export function anthropicOutput(response: unknown): { content: unknown; text: string | null; toolCalls: AnthropicCall[]; finishReason: string | null; responseId: string | null } | null {
  const m = anthropicMessageOf(response);
  if (!m) return null;
  const blocks = Array.isArray(m.content) ? m.content : [];
  let text: string | null = null;
  const toolCalls: AnthropicCall[] = [];
  for (const b of blocks) {
    if (!isRec(b)) continue;
    if (b.type === "text" && typeof b.text === "string") text = (text ?? "") + b.text;
    if (b.type === "tool_use" && typeof b.name === "string") toolCalls.push({ callId: typeof b.id === "string" ? b.id : null, name: b.name, args: b.input ?? {} });
  }
  return { content: { role: "assistant", content: blocks }, text, toolCalls, finishReason: typeof m.stop_reason === "string" ? m.stop_reason : null, responseId: typeof m.id === "string" ? m.id : null };
}

const messages = (request: unknown): unknown[] => (isRec(request) && Array.isArray(request.messages) ? request.messages : []);

/** tool_result blocks of the request's user messages: `{ callId: tool_use_id, output: content, isError, pointer }`. */
export function anthropicToolResults(request: unknown): { callId: string; output: unknown; isError: boolean; pointer: string }[] {
  const out: { callId: string; output: unknown; isError: boolean; pointer: string }[] = [];
  messages(request).forEach((m, i) => {
    if (!isRec(m) || m.role !== "user" || !Array.isArray(m.content)) return;
    m.content.forEach((b, k) => {
      if (isRec(b) && b.type === "tool_result" && typeof b.tool_use_id === "string") out.push({ callId: b.tool_use_id, output: b.content ?? null, isError: b.is_error === true, pointer: `/messages/${i}/content/${k}/content` });
    });
  });
  return out;
}

/** tool_use blocks of the request's assistant messages (earlier model output fed back). */
export function anthropicHistoryCalls(request: unknown): AnthropicCall[] {
  const out: AnthropicCall[] = [];
  for (const m of messages(request)) {
    if (!isRec(m) || m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (isRec(b) && b.type === "tool_use" && typeof b.name === "string") out.push({ callId: typeof b.id === "string" ? b.id : null, name: b.name, args: b.input ?? {} });
  }
  return out;
}

function blocksText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (isRec(b) && typeof b.text === "string" ? b.text : "")).join("");
  return "";
}

/**
 * The conversation a Messages request carries (protocols.ts `TurnView`): `system` and user text as
 * `other`; assistant messages as `assistant` (their `tool_use` ids, their text); each `tool_result`
 * block as `tool` (its `tool_use_id`, its content as text).
 */
export function anthropicTurns(request: unknown): { role: "assistant" | "tool" | "other"; callIds: string[]; refs: string[]; text: string }[] {
  const out: { role: "assistant" | "tool" | "other"; callIds: string[]; refs: string[]; text: string }[] = [];
  const sys = anthropicInstructions(request);
  if (sys) out.push({ role: "other", callIds: [], refs: [], text: sys });
  for (const m of messages(request)) {
    if (!isRec(m)) continue;
    if (m.role === "assistant") {
      const ids = Array.isArray(m.content) ? m.content.flatMap((b) => (isRec(b) && b.type === "tool_use" && typeof b.id === "string" ? [b.id] : [])) : [];
      out.push({ role: "assistant", callIds: ids, refs: [], text: blocksText(m.content) });
      continue;
    }
    if (!Array.isArray(m.content)) {
      out.push({ role: "other", callIds: [], refs: [], text: blocksText(m.content) });
      continue;
    }
    let text = "";
    for (const b of m.content) {
      if (isRec(b) && b.type === "tool_result" && typeof b.tool_use_id === "string") out.push({ role: "tool", callIds: [b.tool_use_id], refs: [], text: blocksText(b.content) });
      else if (isRec(b) && typeof b.text === "string") text += b.text;
    }
    if (text) out.push({ role: "other", callIds: [], refs: [], text });
  }
  return out;
}

/** The system prompt: `system` as a string, or its text blocks joined. */
export function anthropicInstructions(request: unknown): string | null {
  if (!isRec(request)) return null;
  const s = request.system;
  if (typeof s === "string") return s.trim() ? s : null;
  if (Array.isArray(s)) {
    const t = s.map((b) => (isRec(b) && typeof b.text === "string" ? b.text : "")).join("\n");
    return t.trim() ? t : null;
  }
  return null;
}

/** Messages of a request. */
export function anthropicMessageCount(request: unknown): number {
  return messages(request).length;
}

/**
 * q ⊕ Δ for a Messages request: Δ as a text block appended to the last message when it is a
 * user turn (after its tool_result blocks, as the API requires), else one extra
 * `{ role: "user", content: Δ }` message.
 * @throws Error when the request has no messages array
 */
export function appendAnthropicGuidance<T>(request: T, guidance: string): T {
  if (!isRec(request) || !Array.isArray(request.messages)) throw new Error("cannot append guidance: the target Messages request has no messages array");
  const msgs = [...request.messages];
  const last = msgs[msgs.length - 1];
  if (isRec(last) && last.role === "user") {
    const content = typeof last.content === "string" ? [{ type: "text", text: last.content }] : Array.isArray(last.content) ? [...last.content] : [];
    msgs[msgs.length - 1] = { ...last, content: [...content, { type: "text", text: guidance }] };
  } else msgs.push({ role: "user", content: guidance });
  return { ...request, messages: msgs } as T;
}
