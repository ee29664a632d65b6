/**
 * OpenAI Responses API (`POST /v1/responses`) shapes the replay core needs: the named
 * normalization `openai-responses-v1`, the output of a plain or streamed response, the function
 * calls it names and the function-call outputs a request carries back, q ⊕ Δ for a Responses
 * request, and the expansion of a `previous_response_id` that names a replayed response (the live
 * upstream never saw it). Pure.
 *
 * Wire format (platform.openai.com/docs/api-reference/responses, as parsed by `openai` 6 and
 * `@openai/agents` 0.14): request `{ model, instructions?, input: string | item[], tools?,
 * previous_response_id?, stream?, ... }`; items `{ role, content }` messages,
 * `{ type: "function_call", call_id, name, arguments }`, `{ type: "function_call_output", call_id,
 * output }`; response `{ id, object: "response", status, output: item[], usage }`. A stream is
 * server-sent events `event: <type>` + `data: { type, sequence_number, ... }`: response.created,
 * response.in_progress, response.output_item.added, response.content_part.added,
 * response.output_text.delta/.done, response.function_call_arguments.delta/.done,
 * response.output_item.done, response.content_part.done and one terminal event
 * (response.completed | response.failed | response.incomplete) carrying the whole response.
 */
import type { SseEvent } from "./openai";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Name of the Responses normalization (stored per record as `meta.protocol` = "openai-responses"). */
export const OPENAI_RESPONSES_V1 = "openai-responses-v1";

/**
 * Top-level Responses fields dropped by `openai-responses-v1`: end-user ids, client bookkeeping,
 * storage and caching hints, stream options. None changes what the model is asked. Kept and
 * hashed: model, instructions, input, tools, tool_choice, previous_response_id, include,
 * reasoning, text, temperature, top_p, max_output_tokens, truncation, parallel_tool_calls, stream, ...
 */
export const OPENAI_RESPONSES_V1_DROPPED = ["user", "metadata", "store", "prompt_cache_key", "prompt_cache_retention", "safety_identifier", "stream_options"] as const;
const DROPPED = new Set<string>(OPENAI_RESPONSES_V1_DROPPED);

/**
 * `openai-responses-v1`: a shallow copy without the fields in {@link OPENAI_RESPONSES_V1_DROPPED}
 * (and without `undefined` values). `input` items are kept verbatim.
 */
export function normalizeResponsesRequest(request: unknown): unknown {
  if (!isRec(request)) return request;
  const out: Rec = {};
  for (const [k, v] of Object.entries(request)) if (v !== undefined && !DROPPED.has(k)) out[k] = v;
  return out;
}

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

/**
 * The response object of a stored Responses answer: the body itself, or for a stream the
 * `response` of its terminal event; a stream cut before its terminal event is assembled from
 * `response.created` and the `response.output_item.done` items (by `output_index`).
 * @returns null when the body is no response (an HTTP error body, say)
 */
export function responsesResponseOf(response: unknown): Rec | null {
  if (isRec(response) && response.stream === true && Array.isArray(response.events)) {
    let head: Rec | null = null;
    const items: unknown[] = [];
    for (const e of response.events as SseEvent[]) {
      const ev = parse(e.data);
      if (!isRec(ev)) continue;
      const type = typeof ev.type === "string" ? ev.type : e.event;
      if (type && TERMINAL.has(type) && isRec(ev.response)) return ev.response;
      if (type === "response.created" && isRec(ev.response)) head = ev.response;
      if (type === "response.output_item.done" && isRec(ev.item)) items[typeof ev.output_index === "number" ? ev.output_index : items.length] = ev.item;
    }
    if (!head && items.length === 0) return null;
    return { ...(head ?? {}), output: items.filter(Boolean) };
  }
  if (isRec(response) && Array.isArray(response.output)) return response;
  return null;
}

/** One function call of a Responses output or input. */
export interface ResponsesCall {
  callId: string | null;
  name: string;
  args: unknown;
}

/**
 * Tool-call arguments as a value: the JSON text OpenAI sends parsed ("" = {}), text that is not
 * JSON kept as text, an already structured value as it is (missing = {}). Shared by the chat
 * adapter (protocols.ts).
 */
export function parseArgs(a: unknown): unknown {
  if (typeof a !== "string") return a ?? {};
  try {
    return JSON.parse(a || "{}");
  } catch {
    return a;
  }
}

function callsOf(items: unknown[]): ResponsesCall[] {
  const out: ResponsesCall[] = [];
  for (const it of items) {
    if (isRec(it) && it.type === "function_call" && typeof it.name === "string") out.push({ callId: typeof it.call_id === "string" ? it.call_id : null, name: it.name, args: parseArgs(it.arguments) });
  }
  return out;
}

/** The text of output/input message items (`output_text` / `input_text` parts, or a string content). */
function textOf(items: unknown[]): string | null {
  let text: string | null = null;
  for (const it of items) {
    if (!isRec(it) || (it.type !== undefined && it.type !== "message")) continue;
    const parts = typeof it.content === "string" ? [{ text: it.content }] : Array.isArray(it.content) ? it.content : [];
    for (const p of parts) if (isRec(p) && typeof p.text === "string") text = (text ?? "") + p.text;
  }
  return text;
}

/**
 * What a Responses answer produced: the agent_action content `{ role: "assistant", output }`
 * (the output items as received), its text, its function calls, and `status` as finish reason.
 * @returns null for a body with no response
 */
export function responsesOutput(response: unknown): { content: unknown; text: string | null; toolCalls: ResponsesCall[]; finishReason: string | null; responseId: string | null } | null {
  const r = responsesResponseOf(response);
  if (!r) return null;
  const items = Array.isArray(r.output) ? r.output : [];
  return {
    content: { role: "assistant", output: items },
    text: textOf(items),
    toolCalls: callsOf(items),
    finishReason: typeof r.status === "string" ? r.status : null,
    responseId: typeof r.id === "string" ? r.id : null,
  };
}

const inputItems = (request: unknown): unknown[] => (isRec(request) && Array.isArray(request.input) ? request.input : []);

/** Function-call outputs a request carries back: `{ callId, output, pointer }` (pointer = RFC 6901 path of the output). */
export function responsesToolResults(request: unknown): { callId: string; output: unknown; isError: boolean; pointer: string }[] {
  const out: { callId: string; output: unknown; isError: boolean; pointer: string }[] = [];
  inputItems(request).forEach((it, i) => {
    if (isRec(it) && it.type === "function_call_output" && typeof it.call_id === "string") out.push({ callId: it.call_id, output: it.output ?? null, isError: false, pointer: `/input/${i}/output` });
  });
  return out;
}

/** Function calls in a request's input history (earlier model output fed back). */
export function responsesHistoryCalls(request: unknown): ResponsesCall[] {
  return callsOf(inputItems(request));
}

/** Text of a function-call output (a string, or text parts; anything else as JSON). */
function outputText(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : "")).join("");
  try {
    return v === undefined || v === null ? "" : JSON.stringify(v);
  } catch {
    return "";
  }
}

/**
 * The conversation a Responses request carries (protocols.ts `TurnView`): `instructions` and
 * system / user messages as `other`; assistant messages, `function_call`s (their `call_id`),
 * `item_reference`s (their `id`) and `previous_response_id` as `assistant`; `function_call_output`
 * as `tool` (its `call_id`, its output as text); a string input as one `other`.
 */
export function responsesTurns(request: unknown): { role: "assistant" | "tool" | "other"; callIds: string[]; refs: string[]; text: string }[] {
  if (!isRec(request)) return [];
  const out: { role: "assistant" | "tool" | "other"; callIds: string[]; refs: string[]; text: string }[] = [];
  if (typeof request.instructions === "string" && request.instructions) out.push({ role: "other", callIds: [], refs: [], text: request.instructions });
  if (typeof request.previous_response_id === "string") out.push({ role: "assistant", callIds: [], refs: [request.previous_response_id], text: "" });
  if (typeof request.input === "string") out.push({ role: "other", callIds: [], refs: [], text: request.input });
  for (const it of inputItems(request)) {
    if (!isRec(it)) continue;
    if (it.type === "function_call") out.push({ role: "assistant", callIds: typeof it.call_id === "string" ? [it.call_id] : [], refs: typeof it.id === "string" ? [it.id] : [], text: "" });
    else if (it.type === "function_call_output") out.push(typeof it.call_id === "string" ? { role: "tool", callIds: [it.call_id], refs: [], text: outputText(it.output) } : { role: "other", callIds: [], refs: [], text: outputText(it.output) });
    else if (it.type === "item_reference") out.push({ role: "assistant", callIds: [], refs: typeof it.id === "string" ? [it.id] : [], text: "" });
    else if (it.type === undefined || it.type === "message") out.push({ role: it.role === "assistant" ? "assistant" : "other", callIds: [], refs: it.role === "assistant" && typeof it.id === "string" ? [it.id] : [], text: textOf([it]) ?? "" });
  }
  return out;
}

/** The system prompt of a Responses request: `instructions`, else its system/developer input messages. */
export function responsesInstructions(request: unknown): string | null {
  if (!isRec(request)) return null;
  if (typeof request.instructions === "string" && request.instructions.trim()) return request.instructions;
  const sys = inputItems(request).filter((it) => isRec(it) && (it.role === "system" || it.role === "developer"));
  return sys.length ? textOf(sys) : null;
}

/** Input items of a request (a string input counts as one). */
export function responsesMessageCount(request: unknown): number {
  if (!isRec(request)) return 0;
  return typeof request.input === "string" ? 1 : inputItems(request).length;
}

/**
 * q ⊕ Δ for a Responses request: one `{ role: "user", content: Δ }` input item after the others
 * (a string input becomes its own user item first; no input → just the guidance item).
 * @throws Error when the request is not a JSON object
 */
export function appendResponsesGuidance<T>(request: T, guidance: string): T {
  if (!isRec(request)) throw new Error("cannot append guidance: the target Responses request is not a JSON object");
  const g = { role: "user", content: guidance };
  const input = typeof request.input === "string" ? [{ role: "user", content: request.input }, g] : [...inputItems(request), g];
  return { ...request, input } as T;
}

/** A recorded exchange a `previous_response_id` may name: the stored (normalized) request and the response. */
export interface RecordedExchange {
  request: unknown;
  response: unknown;
}

/**
 * The items a recorded response id stands for, oldest first: the chain's earlier items (its own
 * `previous_response_id`, recursively), its request input (a string input as a user message),
 * then its output items. Used when a replay goes live: the live upstream never saw a replayed
 * response, so `previous_response_id` is replaced by what it meant.
 * @param lookup recorded exchange by response id (null when not recorded)
 * @returns null when `id` is not a recorded response
 * @throws Error for a cyclic chain (a corrupt recording)
 */
export function expandResponseChain(id: string, lookup: (id: string) => RecordedExchange | null, seen: Set<string> = new Set()): unknown[] | null {
  const ex = lookup(id);
  if (!ex) return null;
  if (seen.has(id)) throw new Error(`previous_response_id chain is cyclic at ${id}`);
  seen.add(id);
  const req = isRec(ex.request) ? ex.request : {};
  const before = typeof req.previous_response_id === "string" ? (expandResponseChain(req.previous_response_id, lookup, seen) ?? []) : [];
  const input = typeof req.input === "string" ? [{ role: "user", content: req.input }] : inputItems(req);
  const r = responsesResponseOf(ex.response);
  return [...before, ...input, ...(r && Array.isArray(r.output) ? r.output : [])];
}

/**
 * The request to send live when it names a recorded response in `previous_response_id`: that
 * field removed and the expanded chain ({@link expandResponseChain}) put before its own input.
 * A request naming no recorded response is returned unchanged (the live upstream knows it).
 */
export function expandPreviousResponse<T>(request: T, lookup: (id: string) => RecordedExchange | null): T {
  if (!isRec(request) || typeof request.previous_response_id !== "string") return request;
  const items = expandResponseChain(request.previous_response_id, lookup);
  if (!items) return request;
  const { previous_response_id: _prev, ...rest } = request;
  const own = typeof request.input === "string" ? [{ role: "user", content: request.input }] : inputItems(request);
  return { ...rest, input: [...items, ...own] } as T;
}

/**
 * Input items `{ type: "item_reference", id }` naming an output item of a recorded response (the
 * Vercel AI SDK sends earlier assistant text and function calls this way when `store` is on)
 * replaced by that recorded item; other items unchanged. Applied with
 * {@link expandPreviousResponse} when a replay goes live: the live upstream never stored them.
 * @param lookup recorded output item by item id (null when not recorded)
 */
export function expandItemReferences<T>(request: T, lookup: (id: string) => unknown): T {
  if (!isRec(request) || !Array.isArray(request.input)) return request;
  let changed = false;
  const input = request.input.map((it) => {
    if (!isRec(it) || it.type !== "item_reference" || typeof it.id !== "string") return it;
    const item = lookup(it.id);
    if (item === null || item === undefined) return it;
    changed = true;
    return item;
  });
  return changed ? ({ ...request, input } as T) : request;
}

/** Output items of a stored Responses answer with their ids (for {@link expandItemReferences}). */
export function responsesOutputItems(response: unknown): Rec[] {
  const r = responsesResponseOf(response);
  return r && Array.isArray(r.output) ? r.output.filter((it): it is Rec => isRec(it) && typeof it.id === "string") : [];
}

/** Response ids of a stored Responses answer (`response.id`), for the chain lookup. */
export function responsesIdOf(response: unknown): string | null {
  const r = responsesResponseOf(response);
  return r && typeof r.id === "string" ? r.id : null;
}
