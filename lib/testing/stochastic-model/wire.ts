/**
 * Test support for the seeded stochastic model server: a {@link Decision} written in each wire
 * protocol, plain and as the server-sent events of a stream. Ids are random (from the seeded
 * `Rng`), so two recordings of the same run differ in them the way a real provider's do.
 *
 * - OpenAI Chat Completions: `chat.completion` / `chat.completion.chunk` (role chunk, content
 *   pieces, tool calls as OpenAI streams them, finish chunk, optional usage chunk, `[DONE]`).
 * - OpenAI Responses: a `response` object (`output`: `message` with `output_text`, and
 *   `function_call` items); streamed as `response.created`, `response.in_progress`,
 *   `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`…,
 *   `response.output_text.done`, `response.content_part.done`,
 *   `response.function_call_arguments.delta`/`.done`, `response.output_item.done`,
 *   `response.completed` — each with `sequence_number`.
 * - Anthropic Messages: a `message` (`text` and `tool_use` blocks, `stop_reason`); streamed as
 *   `message_start`, `content_block_start`, `content_block_delta` (`text_delta` /
 *   `input_json_delta`), `content_block_stop`, `message_delta`, `message_stop`.
 * - Embeddings: a unit vector per input, derived from the text's hash (the same text always
 *   gets the same vector); `encoding_format: "base64"` gives little-endian float32 in base64.
 */
import { createHash } from "node:crypto";
import { STOCHASTIC_MODEL, type Decision, type Rng } from "./policy";

/** One server-sent event: optional `event:` name and the JSON `data`. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
/** A random id `prefix + n` characters of [a-z0-9]. */
export function randomId(rng: Rng, prefix: string, n = 24): string {
  let s = prefix;
  for (let i = 0; i < n; i++) s += ALNUM[rng.int(0, ALNUM.length - 1)];
  return s;
}

const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));
function pieces(s: string, rng: Rng): string[] {
  if (!s) return [];
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    const n = rng.int(4, 24);
    out.push(s.slice(i, i + n));
    i += n;
  }
  return out;
}

export interface WithIds extends Decision {
  callIds: string[];
}

/** Give each call of a decision an id with the protocol's prefix. */
export function withIds(d: Decision, rng: Rng, prefix: string): WithIds {
  return { ...d, callIds: d.calls.map(() => randomId(rng, prefix)) };
}

// ── OpenAI Chat Completions ────────────────────────────────────────────────────────────────

export function chatCompletion(d: WithIds, rng: Rng, promptChars: number, created: number): unknown {
  const message: Record<string, unknown> = { role: "assistant", content: d.text || (d.calls.length ? null : ""), refusal: null };
  if (d.calls.length) message.tool_calls = d.calls.map((c, i) => ({ id: d.callIds[i], type: "function", function: c }));
  const completion = tokens(d.text + d.calls.map((c) => c.name + c.arguments).join(""));
  return {
    id: randomId(rng, "chatcmpl-"),
    object: "chat.completion",
    created,
    model: STOCHASTIC_MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: d.calls.length ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: tokens("x".repeat(promptChars)), completion_tokens: completion, total_tokens: tokens("x".repeat(promptChars)) + completion },
    system_fingerprint: null,
  };
}

export function chatCompletionChunks(d: WithIds, rng: Rng, promptChars: number, created: number, includeUsage: boolean): SseEvent[] {
  const base = { id: randomId(rng, "chatcmpl-"), object: "chat.completion.chunk", created, model: STOCHASTIC_MODEL, system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
  const out: SseEvent[] = [chunk({ role: "assistant", content: d.text ? "" : null, refusal: null })];
  for (const p of pieces(d.text, rng)) out.push(chunk({ content: p }));
  d.calls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: d.callIds[index], type: "function", function: { name: c.name, arguments: "" } }] }));
    for (const p of pieces(c.arguments, rng)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, d.calls.length ? "tool_calls" : "stop"));
  if (includeUsage) {
    const u = (chatCompletion(d, rng, promptChars, created) as { usage: unknown }).usage;
    out.push({ data: { ...base, choices: [], usage: u } });
  }
  out.push({ data: "[DONE]" });
  return out;
}

// ── OpenAI Responses ───────────────────────────────────────────────────────────────────────

export interface ResponseParts {
  id: string;
  output: Array<Record<string, unknown>>;
}

/** The `output` items of a decision (a message item when there is text, a function_call per call). */
export function responseOutput(d: WithIds, rng: Rng): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  if (d.text) out.push({ type: "message", id: randomId(rng, "msg_"), status: "completed", role: "assistant", content: [{ type: "output_text", text: d.text, annotations: [], logprobs: [] }] });
  d.calls.forEach((c, i) => out.push({ type: "function_call", id: randomId(rng, "fc_"), call_id: d.callIds[i], name: c.name, arguments: c.arguments, status: "completed" }));
  return out;
}

export function responseObject(body: Record<string, unknown>, parts: ResponseParts, status: "in_progress" | "completed", promptChars: number, created: number): Record<string, unknown> {
  const outText = JSON.stringify(parts.output);
  const usage = { input_tokens: tokens("x".repeat(promptChars)), input_tokens_details: { cached_tokens: 0 }, output_tokens: tokens(outText), output_tokens_details: { reasoning_tokens: 0 }, total_tokens: tokens("x".repeat(promptChars)) + tokens(outText) };
  return {
    id: parts.id,
    object: "response",
    created_at: created,
    status,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: STOCHASTIC_MODEL,
    output: status === "completed" ? parts.output : [],
    parallel_tool_calls: body.parallel_tool_calls !== false,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: body.store !== false,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: status === "completed" ? usage : null,
    metadata: body.metadata ?? {},
  };
}

export function responseEvents(body: Record<string, unknown>, parts: ResponseParts, rng: Rng, promptChars: number, created: number): SseEvent[] {
  let seq = 0;
  const ev = (type: string, rest: Record<string, unknown>): SseEvent => ({ event: type, data: { type, sequence_number: seq++, ...rest } });
  const out: SseEvent[] = [
    ev("response.created", { response: responseObject(body, parts, "in_progress", promptChars, created) }),
    ev("response.in_progress", { response: responseObject(body, parts, "in_progress", promptChars, created) }),
  ];
  parts.output.forEach((item, output_index) => {
    if (item.type === "message") {
      const text = (item.content as Array<{ text: string }>)[0].text;
      out.push(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }));
      out.push(ev("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } }));
      for (const p of pieces(text, rng)) out.push(ev("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: p, logprobs: [] }));
      out.push(ev("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text, logprobs: [] }));
      out.push(ev("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text, annotations: [], logprobs: [] } }));
    } else {
      out.push(ev("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } }));
      for (const p of pieces(String(item.arguments), rng)) out.push(ev("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: p }));
      out.push(ev("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments }));
    }
    out.push(ev("response.output_item.done", { output_index, item }));
  });
  out.push(ev("response.completed", { response: responseObject(body, parts, "completed", promptChars, created) }));
  return out;
}

// ── Anthropic Messages ─────────────────────────────────────────────────────────────────────

function anthropicContent(d: WithIds): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  if (d.text) out.push({ type: "text", text: d.text });
  d.calls.forEach((c, i) => out.push({ type: "tool_use", id: d.callIds[i], name: c.name, input: JSON.parse(c.arguments) as unknown }));
  return out;
}

export function anthropicMessage(d: WithIds, rng: Rng, promptChars: number): Record<string, unknown> {
  return {
    id: randomId(rng, "msg_"),
    type: "message",
    role: "assistant",
    model: STOCHASTIC_MODEL,
    content: anthropicContent(d),
    stop_reason: d.calls.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: tokens("x".repeat(promptChars)), output_tokens: tokens(d.text + d.calls.map((c) => c.arguments).join("")) },
  };
}

export function anthropicEvents(d: WithIds, rng: Rng, promptChars: number): SseEvent[] {
  const msg = anthropicMessage(d, rng, promptChars);
  const ev = (type: string, rest: Record<string, unknown>): SseEvent => ({ event: type, data: { type, ...rest } });
  const out: SseEvent[] = [ev("message_start", { message: { ...msg, content: [], stop_reason: null, usage: { input_tokens: (msg.usage as { input_tokens: number }).input_tokens, output_tokens: 1 } } })];
  (msg.content as Array<Record<string, unknown>>).forEach((block, index) => {
    if (block.type === "text") {
      out.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const p of pieces(String(block.text), rng)) out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: p } }));
    } else {
      out.push(ev("content_block_start", { index, content_block: { ...block, input: {} } }));
      for (const p of pieces(JSON.stringify(block.input), rng)) out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }));
    }
    out.push(ev("content_block_stop", { index }));
  });
  out.push(ev("message_delta", { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: (msg.usage as { output_tokens: number }).output_tokens } }));
  out.push(ev("message_stop", {}));
  return out;
}

// ── Embeddings ─────────────────────────────────────────────────────────────────────────────

/** A unit vector of `dims` floats from the SHA-256 of the text (deterministic per text). */
export function embeddingOf(text: string, dims: number): number[] {
  const v: number[] = [];
  for (let block = 0; v.length < dims; block++) {
    const h = createHash("sha256").update(`${block}:${text}`).digest();
    for (let i = 0; i + 1 < h.length && v.length < dims; i += 2) v.push(h.readUInt16LE(i) / 32768 - 1);
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => Math.fround(x / norm));
}

export function embeddingsResponse(inputs: string[], dims: number, base64: boolean): unknown {
  return {
    object: "list",
    data: inputs.map((t, index) => {
      const e = embeddingOf(t, dims);
      return { object: "embedding", index, embedding: base64 ? Buffer.from(new Float32Array(e).buffer).toString("base64") : e };
    }),
    model: STOCHASTIC_MODEL,
    usage: { prompt_tokens: inputs.reduce((n, t) => n + tokens(t), 0), total_tokens: inputs.reduce((n, t) => n + tokens(t), 0) },
  };
}
