/**
 * OpenAI chat-completions shapes the replay core needs: the assistant message of a response
 * (plain or streamed), the tool calls it names, and the guidance message of selective replay
 * (seeds/000 Appendix A.2, eq. 6: q̂_k = q_k ⊕ Δ).
 */

/** One server-sent event as received from the upstream (eventsource-parser's message shape). */
export interface SseEvent {
  data: string;
  event?: string;
  id?: string;
}

/** Stored `response` of a streamed LLM call: the ordered raw events, replayed one by one. */
export interface StreamedResponse {
  stream: true;
  events: SseEvent[];
}

/** The assistant message a chat-completions response produced. */
export interface AssistantMessage {
  role: string;
  content: string | null;
  tool_calls?: { id?: string; type?: string; function: { name: string; arguments: string } }[];
  [k: string]: unknown;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** True when a stored response is a streamed one (`{ stream: true, events: [...] }`). */
export function isStreamedResponse(r: unknown): r is StreamedResponse {
  return isRec(r) && r.stream === true && Array.isArray(r.events);
}

/**
 * Whether a chat-completions request asks for usage in its stream (`stream_options.include_usage === true`).
 */
export function wantsStreamUsage(request: unknown): boolean {
  return isRec(request) && isRec(request.stream_options) && request.stream_options.include_usage === true;
}

/**
 * The recorded stream as the replaying client asked for it (issue 10 item 10). `stream_options`
 * is normalized away (normalize.ts), so a call recorded with `include_usage` matches a replayed
 * request without it. When the client did not ask for usage: the usage-only chunks (`choices: []`
 * with a `usage` object) are left out and a `"usage": null` key of the other chunks is removed (the
 * shape OpenAI sends without the option). Every other event (content, tool calls, finish_reason,
 * `[DONE]`, non-JSON data) is kept byte for byte, in order. When the client asked for usage the
 * events are returned unchanged; if the recording holds no usage, none is invented.
 * @param events the recorded events (not modified)
 * @param request the request as the client sent it (before normalization)
 * @returns the events to serve
 */
export function streamEventsFor(events: readonly SseEvent[], request: unknown): SseEvent[] {
  if (wantsStreamUsage(request)) return [...events];
  const out: SseEvent[] = [];
  for (const e of events) {
    let chunk: unknown;
    try {
      chunk = JSON.parse(e.data);
    } catch {
      out.push(e);
      continue;
    }
    if (!isRec(chunk) || !("usage" in chunk)) {
      out.push(e);
      continue;
    }
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0 && isRec(chunk.usage)) continue;
    if (chunk.usage === null) {
      const { usage: _usage, ...rest } = chunk;
      out.push({ ...e, data: JSON.stringify(rest) });
    } else out.push(e);
  }
  return out;
}

/**
 * Serialize one event in SSE wire format (`event:`/`id:` lines when present, one `data:` line per
 * line of data, blank line). Used to reproduce a stored stream event by event.
 */
export function formatSseEvent(e: SseEvent): string {
  let s = "";
  if (e.event !== undefined) s += `event: ${e.event}\n`;
  if (e.id !== undefined) s += `id: ${e.id}\n`;
  for (const line of e.data.split("\n")) s += `data: ${line}\n`;
  return s + "\n";
}

/**
 * Assemble the assistant message of a streamed response from its `chat.completion.chunk`
 * events (`delta.content` concatenated, `delta.tool_calls` merged by `index`). `[DONE]` and
 * non-JSON events are skipped.
 * @returns the message and the last `finish_reason` seen (or null)
 */
export function assembleStream(events: SseEvent[]): { message: AssistantMessage; finishReason: string | null; model: string | null } {
  let role = "assistant";
  let content: string | null = null;
  let finishReason: string | null = null;
  let model: string | null = null;
  const calls: { id?: string; type?: string; function: { name: string; arguments: string } }[] = [];
  for (const e of events) {
    if (e.data === "[DONE]") continue;
    let chunk: unknown;
    try {
      chunk = JSON.parse(e.data);
    } catch {
      continue;
    }
    if (!isRec(chunk)) continue;
    if (typeof chunk.model === "string") model = chunk.model;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRec(choice)) continue;
    if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!isRec(delta)) continue;
    if (typeof delta.role === "string") role = delta.role;
    if (typeof delta.content === "string") content = (content ?? "") + delta.content;
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        if (!isRec(tc)) continue;
        const i = typeof tc.index === "number" ? tc.index : calls.length;
        const cur = (calls[i] ??= { function: { name: "", arguments: "" } });
        if (typeof tc.id === "string") cur.id = tc.id;
        if (typeof tc.type === "string") cur.type = tc.type;
        const fn = tc.function;
        if (isRec(fn)) {
          if (typeof fn.name === "string") cur.function.name += fn.name;
          if (typeof fn.arguments === "string") cur.function.arguments += fn.arguments;
        }
      }
    }
  }
  const message: AssistantMessage = { role, content };
  const dense = calls.filter(Boolean);
  if (dense.length) message.tool_calls = dense;
  return { message, finishReason, model };
}

/**
 * The assistant message of a stored LLM response, plain (`choices[0].message`) or streamed.
 * @returns null when the response carries no message (an HTTP error body, say)
 */
export function assistantOf(response: unknown): { message: AssistantMessage; finishReason: string | null } | null {
  if (isStreamedResponse(response)) {
    const a = assembleStream(response.events);
    return { message: a.message, finishReason: a.finishReason };
  }
  if (!isRec(response) || !Array.isArray(response.choices)) return null;
  const c = response.choices[0];
  if (!isRec(c) || !isRec(c.message)) return null;
  return { message: c.message as AssistantMessage, finishReason: typeof c.finish_reason === "string" ? c.finish_reason : null };
}

/** Tool calls an assistant message names: `[{ name, args }]` with `args` parsed (raw string if not JSON). */
export function namedToolCalls(message: AssistantMessage | null | undefined): { name: string; args: unknown }[] {
  if (!message || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.map((tc) => {
    let args: unknown = tc.function?.arguments ?? "";
    if (typeof args === "string") {
      try {
        args = JSON.parse(args || "{}");
      } catch {
        /* keep the raw string */
      }
    }
    return { name: tc.function?.name ?? "", args };
  });
}

/** Role of the guidance message appended at the target boundary. */
export const GUIDANCE_ROLE = "user";

/**
 * q ⊕ Δ (seeds/000 eq. 6): the chat request with the guidance appended as one extra message
 * `{ role: "user", content: guidance }` after the existing ones. Other fields unchanged.
 * @throws Error when the request has no `messages` array (not a chat-completions request)
 */
export function appendGuidance<T>(request: T, guidance: string): T {
  if (!isRec(request) || !Array.isArray(request.messages)) {
    throw new Error("cannot append guidance: the target request has no messages array");
  }
  return { ...request, messages: [...request.messages, { role: GUIDANCE_ROLE, content: guidance }] } as T;
}
