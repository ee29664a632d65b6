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

/** `id` of a substituted chat completion (and `system_fingerprint`): marks a response no model wrote. */
export const SUBSTITUTED_RESPONSE_ID = "symtrace-substituted";

/**
 * The assistant message a proposed correction a* stands for (issue 14 item 4, seeds/004 §3.2
 * step 4): a JSON object with `role: "assistant"` or a `tool_calls` array is used as the message
 * itself (role forced to "assistant", tool calls given an `id`/`type` when missing, `arguments`
 * JSON-encoded when an object); any other text is the message's `content`.
 * @throws Error when a JSON message's `tool_calls` entries have no `function.name`
 */
export function correctionMessage(correction: string): AssistantMessage {
  let parsed: unknown = null;
  const t = correction.trim();
  if (t.startsWith("{")) {
    try {
      parsed = JSON.parse(t);
    } catch {
      parsed = null;
    }
  }
  if (!isRec(parsed) || (parsed.role !== "assistant" && !Array.isArray(parsed.tool_calls))) return { role: "assistant", content: correction };
  const msg: AssistantMessage = { ...parsed, role: "assistant", content: typeof parsed.content === "string" ? parsed.content : null };
  if (Array.isArray(parsed.tool_calls)) {
    msg.tool_calls = parsed.tool_calls.map((tc, i) => {
      const fn = isRec(tc) && isRec(tc.function) ? tc.function : null;
      if (!fn || typeof fn.name !== "string" || !fn.name) throw new Error(`correction: tool_calls[${i}] has no function.name`);
      const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
      return { id: isRec(tc) && typeof tc.id === "string" ? tc.id : `call_substituted_${i}`, type: "function", function: { name: fn.name, arguments: args } };
    });
  }
  return msg;
}

/**
 * The chat-completions response that replaces a model call by a proposed correction
 * (substitution, not guidance): `id` and `system_fingerprint` = {@link SUBSTITUTED_RESPONSE_ID},
 * `model` = the request's, one choice with {@link correctionMessage} (finish_reason `tool_calls`
 * when it names tool calls, else `stop`) and zero `usage` (no model was called). When the request
 * asks for a stream (`stream: true`) the same message as server-sent events: a role+content chunk,
 * one chunk per tool call, the finish chunk, a usage chunk (only when `stream_options.include_usage`),
 * and `[DONE]`.
 * @param request the chat request as the MAS sent it
 * @param correction the correction text (or a JSON assistant message)
 * @throws Error from {@link correctionMessage}
 */
export function substitutedResponse(request: unknown, correction: string): unknown {
  const message = correctionMessage(correction);
  const finish = message.tool_calls?.length ? "tool_calls" : "stop";
  const model = isRec(request) && typeof request.model === "string" ? request.model : null;
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const head = { id: SUBSTITUTED_RESPONSE_ID, created: 0, model, system_fingerprint: SUBSTITUTED_RESPONSE_ID };
  if (!(isRec(request) && request.stream === true)) {
    return { ...head, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage };
  }
  const chunk = (choices: unknown[], extra: Rec = {}): SseEvent => ({ data: JSON.stringify({ ...head, object: "chat.completion.chunk", choices, ...extra }) });
  const events: SseEvent[] = [chunk([{ index: 0, delta: { role: "assistant", content: message.content ?? "" }, finish_reason: null }])];
  (message.tool_calls ?? []).forEach((tc, i) => events.push(chunk([{ index: 0, delta: { tool_calls: [{ index: i, id: tc.id, type: "function", function: tc.function }] }, finish_reason: null }])));
  events.push(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
  if (wantsStreamUsage(request)) events.push(chunk([], { usage }));
  events.push({ data: "[DONE]" });
  return { stream: true, events } satisfies StreamedResponse;
}
