/**
 * Shared core of the OpenTelemetry importers (Langfuse trace exports and OTLP/JSON): one internal
 * span list, mapped onto a replay bundle v1 (the bundle v1 spec) exactly once.
 *
 * Data flow: an adapter (otel-langfuse.ts, otel-otlp.ts) turns its input shape into an
 * {@link OtelTrace} (spans with flat attributes whose JSON-string values are already parsed);
 * {@link traceToCase} checks the tree and the times, orders the spans, and builds nodes, edges,
 * boundary records, task/config/outcome, source and reference labels.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Mapping to an
 * event-dependency graph" and §"Things to handle"; OpenInference and OTel GenAI semantic
 * conventions for the attribute names. See otel.md for the mapping in plain words.
 */
import { createHash } from "node:crypto";
import {
  buildBundle,
  BundleValidationError,
  type BundleEdge,
  type NodeDraft,
  type NodeType,
  type RecordDraft,
} from "../bundle";
import { formatDurationNs } from "../duration";
import { findLoneSurrogate, parseJsonLossless } from "./parse";
import type { BundleSource, ImportedCase, ImportFailure, ImportWarning, ReferenceLabel } from "./types";

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** What a span is, after reading its Langfuse type / OpenInference kind / GenAI operation. */
export type SpanCategory = "agent" | "llm" | "tool" | "span";

export interface OtelSpanEvent {
  name: string;
  /** Raw time as the source gives it (ns string for OTLP). */
  time: string | null;
  attributes: Record<string, unknown>;
}

/** One span (OTLP) or observation (Langfuse), normalized. */
export interface OtelSpan {
  id: string;
  parentId: string | null;
  traceId: string;
  name: string;
  category: SpanCategory;
  /** The raw kind that decided the category: Langfuse type, OpenInference kind or GenAI operation. */
  kind: string;
  /** Raw start/end as the source gives them (ISO string or unix-nano string). */
  startTime: unknown;
  endTime: unknown;
  /** Flat attributes; string values that hold JSON (even double/triple encoded) are parsed. */
  attributes: Record<string, unknown>;
  status: { error: boolean; code: string | null; message: string | null };
  input: unknown;
  output: unknown;
  /** Model as reported for the response (Langfuse `model`, `gen_ai.response.model`, `llm.model_name`). */
  model: string | null;
  usage: Record<string, unknown> | null;
  events: OtelSpanEvent[];
  scope: { name: string; version: string | null } | null;
  /** JSON path of the span in the input file, e.g. `$.resourceSpans[0].scopeSpans[0].spans[3]`. */
  path: string;
  /** JSON paths of the fields that can be at fault. */
  paths: { parentId: string; startTime: string; endTime: string };
  /** Source-specific fields kept in the node content (Langfuse level, OTLP span kind, ...). */
  extra: Record<string, unknown>;
  /** The span record exactly as read (canonical JSON text), to tell byte-identical re-exports. */
  rawJson?: string;
  /** The span record as parsed, to name the innermost path of text that cannot be hashed. */
  raw?: unknown;
  /** Tool-call arguments as the source wrote them (before any JSON decoding), else undefined. */
  rawArguments?: unknown;
  /** OTLP span links (`links[]`): references only, never parent edges. */
  links?: Array<{ traceId: string | null; spanId: string }>;
  /** Set for the 2nd, 3rd... conflicting copy of a span id: the original id and the first copy's path. */
  duplicateOf?: { spanId: string; copy: number; firstAt: string };
}

/** A human label found in the source, not yet tied to a node. */
export interface HumanLabelDraft {
  annotator: string;
  reason: string | null;
  /** Observation/span the label is attached to, else null (then it is about the trace output). */
  observationId: string | null;
  extra: Record<string, unknown>;
}

/** One trace, ready for {@link traceToCase}. */
export interface OtelTrace {
  dataset: "langfuse" | "otlp";
  bundleId: string;
  traceId: string;
  name: string | null;
  fileName: string;
  traceSha256: string;
  spans: OtelSpan[];
  /** Trace-level input/output (Langfuse `trace.input/output`, parsed), else null. */
  traceInput: unknown;
  traceOutput: unknown;
  /** Machine scores (LLM-as-judge etc.): kept in `source.scores`, never labels. */
  scores: unknown[];
  humanLabels: HumanLabelDraft[];
  /** Evaluator-only ground truth (e.g. a human-corrected output), or undefined. */
  reference?: unknown;
  notes: string[];
  /** Extra keys for `source` (e.g. non-human corrections). */
  sourceExtra: Record<string, unknown>;
  /** Extra keys for `config` (resource attributes ...). */
  configExtra: Record<string, unknown>;
  /** Imperfections already repaired by the adapter (counted in the import report). */
  warnings?: ImportWarning[];
  /** The parsed input file, to locate text that cannot be hashed (lone surrogates) by its path. */
  rawValue?: unknown;
}

/** `source` of an OTel bundle: the common fields plus the machine scores. */
export interface OtelBundleSource extends BundleSource {
  scores?: unknown[];
  [key: string]: unknown;
}

export type TraceResult = { ok: true; value: ImportedCase } | { ok: false; failure: ImportFailure };

// ---------------------------------------------------------------------------------------------
// Small JSON helpers
// ---------------------------------------------------------------------------------------------

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** sha256 hex of a text. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Unwrap JSON that was encoded as a string, as many times as it was encoded (Langfuse stores
 * `metadata`, `input`, `output` and attribute values as JSON strings, sometimes twice).
 * Only strings that look like a JSON object, array or string literal are tried; anything that
 * does not parse is returned unchanged.
 * @returns the value and how many times it was decoded
 */
export function unwrapJson(v: unknown, maxDepth = 5): { value: unknown; depth: number } {
  let cur = v;
  let depth = 0;
  while (depth < maxDepth && typeof cur === "string") {
    const t = cur.trim();
    const looksJson =
      (t.startsWith("{") && t.endsWith("}")) ||
      (t.startsWith("[") && t.endsWith("]")) ||
      (t.length >= 2 && t.startsWith('"') && t.endsWith('"'));
    if (!looksJson) break;
    try {
      cur = parseJsonLossless(t);
    } catch {
      break;
    }
    depth++;
  }
  return { value: cur, depth };
}

/** {@link unwrapJson} without the depth. */
export const parseJsonValue = (v: unknown): unknown => unwrapJson(v).value;

/**
 * Attribute keys whose value is tool-call argument text: kept verbatim (never decoded here), so
 * that a JSON string literal, truncated JSON or a Python repr is not silently changed;
 * {@link classifyArguments} reads them.
 */
export const isArgumentsKey = (k: string): boolean => /(^|\.)arguments$/.test(k);

/**
 * Decode one attribute value: JSON text is parsed (even double encoded), except that tool-call
 * argument text ({@link isArgumentsKey}) is decoded only when it is a JSON object; otherwise it
 * stays verbatim (a string literal is not silently decoded).
 */
export function parseAttributeValue(key: string, v: unknown): unknown {
  if (!isArgumentsKey(key)) return parseJsonValue(v);
  const c = classifyArguments(v);
  return c.note ? v : c.value;
}

/** Parse every JSON-string value of a flat attribute map ({@link parseAttributeValue}). */
export function parseAttributeValues(attrs: Rec): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(attrs)) out[k] = parseAttributeValue(k, v);
  return out;
}

/** Why tool-call arguments are kept as raw text. */
export type ArgumentsNote = "not valid JSON" | "not an object";

/**
 * Read tool-call arguments as the source wrote them.
 * - an object, or text that decodes (once or, for double-encoded text, more) to a JSON object:
 *   `{value: the object}`;
 * - text that is not JSON (truncated JSON, a Python repr, an empty string): `{value: the text
 *   verbatim, note: "not valid JSON"}`;
 * - JSON that is not an object (a string literal, a number, an array, null written as text):
 *   `{value: the text verbatim (or the value), note: "not an object"}`.
 * @returns `{value: null}` when there are no arguments at all (missing / null)
 */
export function classifyArguments(raw: unknown): { value: unknown; note?: ArgumentsNote } {
  if (raw === null || raw === undefined) return { value: null };
  if (isRec(raw)) return { value: raw };
  if (typeof raw !== "string") return { value: raw, note: "not an object" };
  let cur: unknown;
  try {
    cur = parseJsonLossless(raw);
  } catch {
    return { value: raw, note: "not valid JSON" };
  }
  for (let i = 0; i < 4 && typeof cur === "string"; i++) {
    try {
      cur = parseJsonLossless(cur);
    } catch {
      break;
    }
  }
  return isRec(cur) ? { value: cur } : { value: raw, note: "not an object" };
}

/** Drop `undefined` members so that the value is JSON (content is hashed with JCS). */
function clean<T extends Rec>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** A JSON-safe copy: undefined dropped, non-finite numbers and bigints made strings/null. */
function jsonSafe(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map((x) => jsonSafe(x));
  if (isRec(v)) {
    const o: Rec = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = jsonSafe(x);
    return o;
  }
  return v;
}

/** One line, at most `max` characters (an ellipsis marks a cut). */
export function oneLine(s: string, max = 80): string {
  const t = s.replace(/\s+/g, " ").trim();
  const chars = Array.from(t);
  return chars.length <= max ? t : chars.slice(0, max - 1).join("") + "…";
}

/** Text of any value for labels and prompts: strings as they are, else compact JSON. */
export function asText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// OpenInference indexed keys -> arrays
// ---------------------------------------------------------------------------------------------

const INDEX_SEG = /^\d+$/;

/**
 * Un-flatten OpenInference indexed keys into arrays, leaving other keys flat:
 * `llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments = "{..}"` becomes
 * `{"llm.input_messages": [.., .., {message: {tool_calls: [{tool_call: {function: {arguments: "{..}"}}}]}}]}`.
 * The part before the first numeric segment stays one key; the rest is nested (numeric segments
 * are array indexes). Holes become null. A key that conflicts with another stays flat.
 */
export function unflattenIndexed(attrs: Rec): Rec {
  const out: Rec = {};
  const putFlat = (k: string, v: unknown) => {
    if (out[k] === undefined) out[k] = v;
    else out[`${k} (flat)`] = v;
  };
  for (const [key, value] of Object.entries(attrs)) {
    const segs = key.split(".");
    const i = segs.findIndex((s, j) => j > 0 && INDEX_SEG.test(s));
    if (i < 0) {
      putFlat(key, value);
      continue;
    }
    const prefix = segs.slice(0, i).join(".");
    if (out[prefix] !== undefined && !Array.isArray(out[prefix])) {
      putFlat(key, value);
      continue;
    }
    if (out[prefix] === undefined) out[prefix] = [];
    if (!setNested(out[prefix] as unknown[], segs.slice(i), value)) putFlat(key, value);
  }
  for (const [k, v] of Object.entries(out)) out[k] = fillHoles(v);
  return out;
}

function setNested(root: unknown[] | Rec, segs: string[], value: unknown): boolean {
  let cur: unknown[] | Rec = root;
  for (let j = 0; j < segs.length; j++) {
    const seg = segs[j];
    const last = j === segs.length - 1;
    const isIdx = INDEX_SEG.test(seg);
    if (Array.isArray(cur) !== isIdx) return false;
    const key: string | number = isIdx ? Number(seg) : seg;
    const container = cur as Record<string | number, unknown>;
    if (last) {
      if (container[key] !== undefined) return false;
      container[key] = value;
      return true;
    }
    let next = container[key];
    if (next === undefined) {
      next = INDEX_SEG.test(segs[j + 1]) ? [] : {};
      container[key] = next;
    }
    if (typeof next !== "object" || next === null) return false;
    cur = next as unknown[] | Rec;
  }
  return false;
}

function fillHoles(v: unknown): unknown {
  if (Array.isArray(v)) return Array.from({ length: v.length }, (_, i) => (i in v ? fillHoles(v[i]) : null));
  if (isRec(v)) {
    const o: Rec = {};
    for (const [k, x] of Object.entries(v)) o[k] = fillHoles(x);
    return o;
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Messages (OpenInference, GenAI parts, OpenAI chat / responses, pydantic-ai events)
// ---------------------------------------------------------------------------------------------

export interface ChatToolCall {
  id: string | null;
  name: string | null;
  /** As the source wrote them (a JSON string for OpenAI chat messages, an object for GenAI parts). */
  arguments: unknown;
  /** Set when the arguments are not a JSON object: then `arguments` is the raw text verbatim. */
  argumentsNote?: ArgumentsNote;
}

/**
 * One content part of a multimodal message, as the source wrote it (OpenAI chat
 * `{type: "image_url", image_url: {url}}`, GenAI `{type: "blob", ...}`, ...). OpenInference's
 * flattened `message_content` parts are mapped back to the OpenAI parts they were flattened from.
 */
export type ContentPart = Rec;

export interface ChatMessage {
  role: string;
  /**
   * A string when the source had text only (parts joined by "\n"); the parts array, every part
   * kept exactly, when any part is not text (an image of a vision call, audio, a file).
   */
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

/** The text of a message: its string content, or the text parts of its parts array joined. */
export function messageText(m: ChatMessage | undefined): string | null {
  if (!m || m.content === null) return null;
  if (typeof m.content === "string") return m.content;
  const texts = m.content.map(partText).filter((t): t is string => t !== null);
  return texts.length > 0 ? texts.join("\n") : null;
}

function partText(p: unknown): string | null {
  if (typeof p === "string") return p;
  if (!isRec(p)) return null;
  const inner = isRec(p.message_content) ? p.message_content : p;
  return str(inner.text) ?? str(inner.content) ?? null;
}

/** A part is text when it is a string or has text and no declared non-text type. */
function isTextPart(p: unknown): boolean {
  if (typeof p === "string") return true;
  if (!isRec(p)) return false;
  const inner = isRec(p.message_content) ? p.message_content : p;
  const type = str(inner.type);
  if (type !== null && !["text", "input_text", "output_text"].includes(type)) return false;
  return partText(p) !== null;
}

/**
 * OpenInference `{message_content: {type: "text", text}}` → `{type: "text", text}`;
 * `{message_content: {type: "image", image: {image: {url}}}}` → `{type: "image_url", image_url: {url}}`
 * (the OpenAI part the instrumentation flattened); any other part is kept as written.
 */
function partOf(p: unknown): unknown {
  if (!isRec(p) || !isRec(p.message_content)) return p;
  const mc = p.message_content;
  if (mc.type === "text" && typeof mc.text === "string") return { type: "text", text: mc.text };
  const url = isRec(mc.image) && isRec(mc.image.image) ? str(mc.image.image.url) : null;
  if (mc.type === "image" && url !== null) return { type: "image_url", image_url: { url } };
  return mc;
}

/**
 * Content of a message that may be a string, a list of parts or an object: a string for text
 * (parts joined by "\n"), or the parts array itself (each part kept exactly) as soon as one part
 * is not text, so the recorded request of a vision call is what was really sent.
 */
function contentOf(c: unknown): string | ContentPart[] | null {
  if (Array.isArray(c) && c.length > 0 && !c.every(isTextPart)) return c.map(partOf) as ContentPart[];
  return contentText(c);
}

/** Text of a message `content` that may be a string, a list of parts or an object. */
function contentText(c: unknown): string | null {
  if (c === null || c === undefined) return null;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    const texts = c.map(partText).filter((t): t is string => t !== null);
    return texts.length > 0 ? texts.join("\n") : asText(c);
  }
  if (isRec(c)) return str(c.text) ?? str(c.content) ?? asText(c);
  return String(c);
}

function toolCallOf(x: unknown): ChatToolCall | null {
  if (!isRec(x)) return null;
  const tc = isRec(x.tool_call) ? x.tool_call : x;
  const fn = isRec(tc.function) ? tc.function : null;
  const name = str(fn?.name) ?? str(tc.name);
  const id = str(tc.id) ?? str(tc.call_id);
  if (name === null && id === null) return null;
  const raw = fn ? fn.arguments : tc.arguments;
  const { note } = classifyArguments(raw);
  return note ? { id, name, arguments: raw, argumentsNote: note } : { id, name, arguments: raw ?? null };
}

function messageOf(item: unknown, defaultRole: string): ChatMessage | null {
  if (item === null || item === undefined) return null;
  if (!isRec(item)) return { role: defaultRole, content: contentOf(item) };
  // OpenInference un-flattened `{message: {...}}`, pydantic-ai `gen_ai.choice` `{index, message}`.
  if (isRec(item.message) && item.role === undefined) return messageOf(item.message, defaultRole);
  const type = str(item.type);
  // OpenAI Responses API items (openai-agents).
  if (type === "function_call") {
    const tc = toolCallOf(item);
    return { role: "assistant", content: null, tool_calls: tc ? [tc] : [] };
  }
  if (type === "function_call_output") {
    return clean({ role: "tool", content: contentText(item.output), tool_call_id: str(item.call_id) ?? undefined });
  }
  if (type === "reasoning") return null;
  const role = str(item.role) ?? defaultRole;
  // GenAI semconv parts: [{type:text, content}, {type:tool_call, id, name, arguments}, {type:tool_call_response, id, response}]
  if (Array.isArray(item.parts)) {
    const texts: string[] = [];
    // Content parts other than tool calls/responses, as written; kept whole when one is not text.
    const kept: ContentPart[] = [];
    let hasMedia = false;
    const calls: ChatToolCall[] = [];
    let toolCallId: string | undefined;
    for (const p of item.parts) {
      if (!isRec(p)) continue;
      if (p.type === "tool_call") {
        const tc = toolCallOf(p);
        if (tc) calls.push(tc);
      } else if (p.type === "tool_call_response") {
        toolCallId = str(p.id) ?? toolCallId;
        texts.push(asText(p.response ?? p.result));
      } else {
        kept.push(p);
        if (p.type !== undefined && p.type !== "text") hasMedia = true;
        const t = contentText(p.content ?? p.text ?? null);
        if (t !== null) texts.push(t);
      }
    }
    return clean({
      role,
      content: hasMedia ? kept : texts.length > 0 ? texts.join("\n") : null,
      tool_calls: calls.length > 0 ? calls : undefined,
      tool_call_id: toolCallId,
    });
  }
  const rawCalls = arr(item.tool_calls)
    .map(toolCallOf)
    .filter((t): t is ChatToolCall => t !== null);
  const content = contentOf(item.content ?? item.contents ?? null);
  return clean({
    role,
    content,
    name: str(item.name) ?? undefined,
    tool_calls: rawCalls.length > 0 ? rawCalls : undefined,
    tool_call_id: str(item.tool_call_id) ?? str(item.id && role === "tool" ? item.id : null) ?? undefined,
  });
}

/**
 * Normalize any of the message shapes met in the samples into `{role, content, tool_calls?,
 * tool_call_id?}`: OpenInference `llm.*_messages` (un-flattened), GenAI `parts`, OpenAI chat
 * messages and `choices`, OpenAI Responses objects/items (openai-agents), pydantic-ai events.
 * @param defaultRole role given to bare strings ("user" for inputs, "assistant" for outputs)
 * @returns the messages, or null when there is no value
 */
export function normalizeMessages(v: unknown, defaultRole: string): ChatMessage[] | null {
  if (v === null || v === undefined) return null;
  let items: unknown[];
  if (Array.isArray(v)) items = v;
  else if (isRec(v) && Array.isArray(v.output) && (v.object === "response" || v.output.some((o) => isRec(o) && o.type)))
    items = v.output;
  else if (isRec(v) && Array.isArray(v.choices)) items = v.choices;
  else if (isRec(v) && Array.isArray(v.messages)) items = v.messages;
  else items = [v];
  return items.map((x) => messageOf(x, defaultRole)).filter((m): m is ChatMessage => m !== null);
}

/** Text of the last assistant message with text, else of the value itself. */
export function finalText(v: unknown): string {
  if (typeof v === "string") return v;
  const msgs = normalizeMessages(v, "assistant") ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    const t = m.role === "assistant" ? messageText(m) : null;
    if (t) return t;
  }
  return asText(v);
}

// ---------------------------------------------------------------------------------------------
// Span readings
// ---------------------------------------------------------------------------------------------

/** Category from OpenInference `openinference.span.kind` or GenAI `gen_ai.operation.name`. */
export function categoryFromAttributes(attrs: Rec): { category: SpanCategory; kind: string } | null {
  const oi = str(attrs["openinference.span.kind"]);
  if (oi) {
    const k = oi.toUpperCase();
    const category: SpanCategory = k === "LLM" ? "llm" : k === "TOOL" ? "tool" : k === "AGENT" ? "agent" : "span";
    return { category, kind: k };
  }
  const op = str(attrs["gen_ai.operation.name"]);
  if (op) {
    const category: SpanCategory = ["chat", "text_completion", "generate_content"].includes(op)
      ? "llm"
      : op === "execute_tool"
        ? "tool"
        : ["invoke_agent", "create_agent"].includes(op)
          ? "agent"
          : "span";
    return { category, kind: op };
  }
  return null;
}

function inputMessagesOf(s: OtelSpan, un: Rec): ChatMessage[] | null {
  const oi = un["llm.input_messages"];
  if (Array.isArray(oi)) return normalizeMessages(oi, "user");
  const ga = s.attributes["gen_ai.input.messages"];
  if (ga !== undefined && ga !== null) return normalizeMessages(ga, "user");
  if (s.input !== null && s.input !== undefined) return normalizeMessages(s.input, "user");
  const ev = s.events.filter((e) => /^gen_ai\.(system|user|assistant|tool)\.message$/.test(e.name));
  if (ev.length > 0)
    return normalizeMessages(
      ev.map((e) => ({ role: e.name.split(".")[1], ...e.attributes })),
      "user",
    );
  return null;
}

function outputMessagesOf(s: OtelSpan, un: Rec): ChatMessage[] | null {
  const oi = un["llm.output_messages"];
  if (Array.isArray(oi)) return normalizeMessages(oi, "assistant");
  const ga = s.attributes["gen_ai.output.messages"];
  if (ga !== undefined && ga !== null) return normalizeMessages(ga, "assistant");
  if (s.output !== null && s.output !== undefined) return normalizeMessages(s.output, "assistant");
  const ev = s.events.filter((e) => e.name === "gen_ai.choice");
  if (ev.length > 0) return normalizeMessages(ev.map((e) => e.attributes), "assistant");
  return null;
}

function toolNameOf(s: OtelSpan): string {
  return (
    str(s.attributes["tool.name"]) ??
    str(s.attributes["gen_ai.tool.name"]) ??
    s.name.replace(/^execute_tool\s+/, "")
  );
}

/** A tool span's arguments: the parsed object, or the raw text verbatim with a note (classifyArguments). */
function toolArgumentsOf(s: OtelSpan): { value: unknown; note?: ArgumentsNote } {
  if (s.rawArguments !== undefined) return classifyArguments(s.rawArguments);
  if (s.input !== null && s.input !== undefined) return classifyArguments(s.input);
  return classifyArguments(s.attributes["gen_ai.tool.call.arguments"] ?? s.attributes["tool_call.function.arguments"] ?? null);
}

function toolCallIdAttr(s: OtelSpan): string | null {
  return (
    str(s.attributes["gen_ai.tool.call.id"]) ??
    str(s.attributes["tool_call.id"]) ??
    str(s.attributes["tool.call.id"]) ??
    null
  );
}

function invocationParams(s: OtelSpan): Rec {
  const p = s.attributes["llm.invocation_parameters"];
  return isRec(p) ? p : {};
}

function requestModelOf(s: OtelSpan): string | null {
  return (
    str(s.attributes["gen_ai.request.model"]) ??
    str(invocationParams(s).model) ??
    str(s.attributes["llm.model_name"]) ??
    s.model
  );
}

function temperatureOf(s: OtelSpan): number | undefined {
  const cands = [
    invocationParams(s).temperature,
    s.attributes["gen_ai.request.temperature"],
    isRec(s.extra.modelParameters) ? s.extra.modelParameters.temperature : undefined,
  ];
  for (const c of cands) {
    const n = typeof c === "number" ? c : typeof c === "string" && c.trim() !== "" ? Number(c) : NaN;
    if (Number.isFinite(n)) return n;
  }
  return undefined;
}

function toolsOf(s: OtelSpan, un: Rec): unknown[] | undefined {
  const oi = un["llm.tools"];
  if (Array.isArray(oi) && oi.length > 0)
    return oi.map((t) => (isRec(t) && isRec(t.tool) ? (t.tool.json_schema ?? t.tool) : t));
  const ga = s.attributes["gen_ai.tool.definitions"];
  if (Array.isArray(ga) && ga.length > 0) return ga;
  return undefined;
}

const AGENT_NAME_KEYS = ["gen_ai.agent.name", "agent_name", "agent.name"];

// ---------------------------------------------------------------------------------------------
// Times
// ---------------------------------------------------------------------------------------------

/**
 * A time as nanoseconds since the epoch: unix-nano digit strings/numbers (OTLP) or ISO-8601
 * strings (Langfuse; fractional seconds kept to the nanosecond).
 * @returns null when missing, zero or not a timestamp
 */
export function toNanos(v: unknown): bigint | null {
  if (typeof v === "number" && Number.isFinite(v) && v > 0) return BigInt(Math.round(v));
  if (typeof v !== "string" || v.trim() === "") return null;
  const t = v.trim();
  if (/^\d+$/.test(t)) {
    const n = BigInt(t);
    return n > 0n ? n : null;
  }
  const ms = Date.parse(t);
  if (!Number.isFinite(ms)) return null;
  const frac = /T\d\d:\d\d:\d\d\.(\d{1,9})/.exec(t);
  const sub = frac ? BigInt(frac[1].padEnd(9, "0")) : BigInt(((ms % 1000) + 1000) % 1000) * 1_000_000n;
  return BigInt(Math.floor(ms / 1000)) * 1_000_000_000n + sub;
}

const nsToMs = (ns: bigint): number => Math.round(Number(ns) / 1000) / 1000;

const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------------
// MAS from instrumentation scope
// ---------------------------------------------------------------------------------------------

const MAS_BY_SCOPE: Array<[RegExp, string]> = [
  [/openai[_-]agents/i, "openai-agents"],
  [/^agent_framework|microsoft[._-]agent/i, "microsoft-agent-framework"],
  [/pydantic[_-]ai/i, "pydantic-ai"],
  [/langgraph/i, "langgraph"],
  [/langchain/i, "langchain"],
  [/crewai/i, "crewai"],
  [/autogen|\bag2\b/i, "ag2"],
  [/smolagents/i, "smolagents"],
  [/llama[_-]?index/i, "llama-index"],
];
const GENERIC_SCOPE = /^(langfuse-sdk|opentelemetry|io\.opentelemetry|logfire)/i;

function masOf(spansInOrder: OtelSpan[]): { mas: string | null; scope: OtelSpan["scope"] } {
  for (const s of spansInOrder) {
    if (!s.scope) continue;
    const hit = MAS_BY_SCOPE.find(([re]) => re.test(s.scope!.name));
    if (hit) return { mas: hit[1], scope: s.scope };
  }
  const other = spansInOrder.find((s) => s.scope && !GENERIC_SCOPE.test(s.scope.name));
  return other?.scope ? { mas: other.scope.name, scope: other.scope } : { mas: null, scope: null };
}

// ---------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------

/**
 * Duplicate span ids. A byte-identical re-export of a span (same record text) is dropped and
 * counted; a copy with different content (a failed attempt and its retry sharing one id) is kept
 * as its own span with the deterministic internal id `<id>~<copy>` (2, 3, ...) and
 * `duplicateOf = {spanId, copy, firstAt}`; children naming the id attach to the first copy.
 * @returns the spans in first-seen order and one warning per dropped or conflicting copy
 */
export function dedupeSpans(spans: OtelSpan[]): { spans: OtelSpan[]; warnings: ImportWarning[] } {
  const kept = new Map<string, OtelSpan[]>();
  const taken = new Set(spans.map((s) => s.id));
  const out: OtelSpan[] = [];
  const warnings: ImportWarning[] = [];
  for (const s of spans) {
    const group = kept.get(s.id);
    if (!group) {
      kept.set(s.id, [s]);
      out.push(s);
      continue;
    }
    const same = s.rawJson !== undefined ? group.find((k) => k.rawJson === s.rawJson) : undefined;
    if (same) {
      warnings.push({
        kind: "duplicate-span-identical",
        path: s.path,
        message: `span ${s.id} at ${s.path} is a byte-identical re-export of ${same.path}: deduplicated`,
      });
      continue;
    }
    let copy = group.length + 1;
    while (taken.has(`${s.id}~${copy}`)) copy++;
    const id = `${s.id}~${copy}`;
    taken.add(id);
    const first = group[0];
    const dup: OtelSpan = { ...s, id, duplicateOf: { spanId: s.id, copy, firstAt: first.path } };
    group.push(dup);
    out.push(dup);
    warnings.push({
      kind: "duplicate-span-id-conflict",
      path: s.path,
      message: `span id ${s.id} is used by two different spans, at ${first.path} and at ${s.path} (e.g. a failed attempt and its retry): both kept, the second as node copy ${copy}`,
    });
  }
  return { spans: out, warnings };
}

interface Checked {
  start: Map<string, bigint>;
  end: Map<string, bigint>;
  /** Parent ids as the source declared them (content.parentSpanId), before repairs. */
  declaredParent: Map<string, string | null>;
  /** Per-span markers shown in node content (`importWarnings`). */
  marks: Map<string, string[]>;
  warnings: ImportWarning[];
  errors: Array<{ path: string; message: string }>;
}

/**
 * Check and repair the span tree and times, in linear time and without recursion. Repairs (each a
 * warning and, on the span, a marker): an all-zero parent id means root; a parent id not in the
 * trace makes the span an extra root ("parent not in trace: <id>"); a parent cycle is broken at
 * its first span in input order; an end before the start becomes the start (zero width, "clock
 * skew"); an end of 0, missing or unreadable is "not ended" (zero width; a Langfuse EVENT without
 * an end is instantaneous, no marker). Mutates `parentId` of the given spans (callers pass copies).
 * @returns times, markers, warnings, and errors only for a span without a readable start time
 */
function checkSpans(spans: OtelSpan[]): Checked {
  const errors: Checked["errors"] = [];
  const warnings: ImportWarning[] = [];
  const marks = new Map<string, string[]>();
  const mark = (s: OtelSpan, text: string) => marks.set(s.id, [...(marks.get(s.id) ?? []), text]);
  const start = new Map<string, bigint>();
  const end = new Map<string, bigint>();
  const declaredParent = new Map<string, string | null>();
  const byId = new Map<string, OtelSpan>();
  for (const s of spans) if (!byId.has(s.id)) byId.set(s.id, s);
  for (const s of spans) {
    if (s.parentId !== null && /^0+$/.test(s.parentId)) {
      warnings.push({ kind: "zero-parent-id", path: s.paths.parentId, message: `span ${s.id}: parent id ${s.parentId} is all zeros: read as a root` });
      s.parentId = null;
    }
    declaredParent.set(s.id, s.parentId);
    const st = toNanos(s.startTime);
    if (st === null) {
      errors.push({ path: s.paths.startTime, message: `span ${s.id}: start time missing or not a timestamp (${asText(s.startTime) || "empty"})` });
      continue;
    }
    let en: bigint = st;
    const rawEnd = s.endTime;
    const noEnd = rawEnd === null || rawEnd === undefined || rawEnd === "" || rawEnd === 0 || (typeof rawEnd === "string" && /^0+$/.test(rawEnd.trim()));
    if (noEnd) {
      if (s.extra.observationType !== "EVENT") {
        mark(s, "not ended");
        warnings.push({ kind: "not-ended", path: s.paths.endTime, message: `span ${s.id}: no end time (${asText(rawEnd) || "missing"}): marked "not ended", drawn zero-width` });
      }
    } else {
      const e = toNanos(rawEnd);
      if (e === null) {
        mark(s, `not ended (end time is not a timestamp: ${asText(rawEnd)})`);
        warnings.push({ kind: "not-ended", path: s.paths.endTime, message: `span ${s.id}: end time ${asText(rawEnd)} is not a timestamp: marked "not ended", drawn zero-width` });
      } else if (e < st) {
        mark(s, `clock skew: end time ${asText(rawEnd)} before start time ${asText(s.startTime)}; drawn zero-width`);
        warnings.push({ kind: "clock-skew", path: s.paths.endTime, message: `span ${s.id}: end time ${asText(rawEnd)} is before its start time ${asText(s.startTime)}: drawn zero-width` });
      } else en = e;
    }
    start.set(s.id, st);
    end.set(s.id, en);
  }
  for (const s of spans) {
    if (s.parentId !== null && !byId.has(s.parentId)) {
      mark(s, `parent not in trace: ${s.parentId}`);
      warnings.push({ kind: "parent-not-in-trace", path: s.paths.parentId, message: `span ${s.id}: parent span ${s.parentId} is not in trace ${s.traceId}: imported as an extra root` });
      s.parentId = null;
    }
  }
  // Cycles: walk each parent chain once (0 = new, 1 = on the current walk, 2 = done): linear.
  const state = new Map<string, number>();
  const fileIndex = new Map(spans.map((s, i) => [s.id, i]));
  for (const s of spans) {
    const walk: OtelSpan[] = [];
    let cur: OtelSpan | undefined = s;
    while (cur && (state.get(cur.id) ?? 0) === 0) {
      state.set(cur.id, 1);
      walk.push(cur);
      cur = cur.parentId !== null ? byId.get(cur.parentId) : undefined;
    }
    if (cur && state.get(cur.id) === 1) {
      const cyc = walk.slice(walk.indexOf(cur));
      const cut = cyc.reduce((a, b) => (fileIndex.get(b.id)! < fileIndex.get(a.id)! ? b : a));
      const ring = [...cyc.map((x) => x.id), cyc[0].id].join(" -> ");
      mark(cut, `parent chain forms a cycle (${ring}): made a root`);
      warnings.push({ kind: "parent-cycle", path: cut.paths.parentId, message: `span ${cut.id}: parent chain forms a cycle (${ring}): made a root` });
      cut.parentId = null;
    }
    for (const w of walk) state.set(w.id, 2);
  }
  return { start, end, declaredParent, marks, warnings, errors };
}

// ---------------------------------------------------------------------------------------------
// Spans -> bundle
// ---------------------------------------------------------------------------------------------

const NODE_TYPE: Record<SpanCategory, NodeType> = {
  agent: "agent_action",
  llm: "llm_call",
  tool: "tool_call",
  span: "agent_action",
};

/** A span tree with more levels than this gets a `deep-span-tree` warning naming its depth. */
export const DEEP_SPAN_TREE = 100;

/** The request normalization stored in `config.replay.normalization`. */
export const OTEL_NORMALIZATION =
  "otel-import/v1: llm request = {model, messages (role, content, name, tool_calls[{name, arguments}]; ids, tool_call_id and timestamps dropped), tools?, temperature?}; tool request = {name, arguments}";

interface Item {
  kind: "span" | "result" | "call" | "final";
  span: OtelSpan | null;
  t: bigint;
  depth: number;
  tie: string;
  sub: number;
  /** kind "call": a tool call named in `span`'s (an LLM's) output that no tool span ran. */
  call?: NamedCall;
}

/** A tool call named in an LLM span's output messages: message index, call index, the call as written. */
interface NamedCall {
  message: number;
  index: number;
  call: ChatToolCall;
}

/**
 * Map one trace onto a replay bundle.
 *
 * Nodes: one per (deduplicated) span — AGENT and plain SPAN/CHAIN spans -> agent_action,
 * LLM/GENERATION -> llm_call, TOOL -> tool_call plus a tool_result holding its output — and one
 * final_result. Order: start time (clamped to the parent's), then depth, then id; tool_result at
 * its tool's end time; final_result last. Edges: containment (control), tool_call -> tool_result
 * (data), consecutive siblings that do not overlap in time (control), tool-call-id data flow
 * (producing generation -> tool_call, tool_result -> first consuming generation), last
 * generation -> final_result (data). Records: one llm record per llm_call with input messages and
 * output, one tool record per tool_call, in observed order.
 *
 * Imperfect spans are repaired, not rejected (dedupeSpans, checkSpans): duplicate ids, orphans,
 * all-zero parents, cycles, skewed and open spans, unresolved links, non-object tool arguments;
 * each repair is an ImportWarning on the case and in `source.importWarnings`, and a marker in the
 * span node's `content.importWarnings`. Linear in the number of spans, no recursion.
 *
 * @returns `{ok: true, value}` with the case and its warnings, or `{ok: false, failure}` naming
 *   every fault with its JSON path (a missing/unparseable start time, a lone surrogate) or the
 *   bundle validation issues. Never throws.
 */
export function traceToCase(trace: OtelTrace): TraceResult {
  const where = `${trace.fileName}#traceId=${trace.traceId}`;
  const notes = [...trace.notes];
  const deduped = dedupeSpans(trace.spans);
  // Copies: checkSpans repairs parent ids in place.
  const spans = deduped.spans.map((s) => ({ ...s }));
  const warnings: ImportWarning[] = [...(trace.warnings ?? []), ...deduped.warnings];
  if (spans.length === 0) {
    return { ok: false, failure: { where, errors: [{ path: "$", message: `trace ${trace.traceId} has no spans` }] } };
  }
  // Text that cannot be hashed or stored (a lone UTF-16 surrogate): name the innermost path.
  const unhashable = spans.map((s) => (s.raw !== undefined ? findLoneSurrogate(s.raw, s.path) : null)).filter((x) => x !== null);
  if (unhashable.length > 0) return { ok: false, failure: { where, errors: unhashable } };
  const checked = checkSpans(spans);
  if (checked.errors.length > 0) return { ok: false, failure: { where, errors: checked.errors } };
  warnings.push(...checked.warnings);
  const marks = checked.marks;
  const mark = (s: OtelSpan, text: string) => marks.set(s.id, [...(marks.get(s.id) ?? []), text]);

  // Tree: depth and start clamped to the parent's start (so the order is a linear extension).
  // Breadth-first from the roots: no recursion, linear in the number of spans.
  const children = new Map<string, OtelSpan[]>();
  for (const s of spans) {
    if (s.parentId === null) continue;
    const list = children.get(s.parentId);
    if (list) list.push(s);
    else children.set(s.parentId, [s]);
  }
  const depth = new Map<string, number>();
  const effStart = new Map<string, bigint>();
  /** Spans parents first (breadth-first from the roots). */
  const topo: OtelSpan[] = spans.filter((s) => s.parentId === null);
  let clamped = 0;
  for (const r of topo) {
    depth.set(r.id, 0);
    effStart.set(r.id, checked.start.get(r.id)!);
  }
  for (let i = 0; i < topo.length; i++) {
    const p = topo[i];
    for (const c of children.get(p.id) ?? []) {
      depth.set(c.id, depth.get(p.id)! + 1);
      let st = checked.start.get(c.id)!;
      if (st < effStart.get(p.id)!) {
        st = effStart.get(p.id)!;
        clamped++;
      }
      effStart.set(c.id, st);
      topo.push(c);
    }
  }
  if (clamped > 0) notes.push(`${clamped} span(s) start before their parent: ordered at the parent's start`);
  // A span tree deeper than any agent run nests (a runaway recursion, a broken parent chain) is
  // reported with its depth, on the case and on the deepest span's node (issue 20 item 11).
  let deepest: OtelSpan | null = null;
  for (const s of topo) if (!deepest || depth.get(s.id)! > depth.get(deepest.id)!) deepest = s;
  const levels = deepest ? depth.get(deepest.id)! + 1 : 0;
  if (deepest && levels > DEEP_SPAN_TREE) {
    const n = levels.toLocaleString("en-US");
    warnings.push({ kind: "deep-span-tree", path: deepest.paths.parentId, message: `span tree is ${n} levels deep (deepest span ${deepest.id}); more than ${DEEP_SPAN_TREE} levels` });
    mark(deepest, `span tree depth ${n}: deepest span`);
  }

  const fileIndex = new Map(spans.map((s, i) => [s.id, i]));
  if (spans.some((s) => s.parentId !== null && fileIndex.get(s.parentId)! > fileIndex.get(s.id)!)) {
    notes.push("spans are listed out of tree order (a child before its parent); tree rebuilt from parent ids");
  }

  // Observed order.
  const items: Item[] = [];
  for (const s of spans) {
    items.push({ kind: "span", span: s, t: effStart.get(s.id)!, depth: depth.get(s.id)!, tie: s.id, sub: 0 });
    if (s.category === "tool") {
      const end = checked.end.get(s.id)!;
      const t = end < effStart.get(s.id)! ? effStart.get(s.id)! : end;
      items.push({ kind: "result", span: s, t, depth: depth.get(s.id)!, tie: s.id, sub: 1 });
    }
  }
  const byTime = (a: Item, b: Item) => cmpBig(a.t, b.t) || a.depth - b.depth || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0) || a.sub - b.sub;
  items.sort(byTime);

  // Per-span readings.
  const unflat = new Map(spans.map((s) => [s.id, unflattenIndexed(s.attributes)]));
  const inMsgs = new Map<string, ChatMessage[] | null>();
  const outMsgs = new Map<string, ChatMessage[] | null>();
  for (const s of spans) {
    if (s.category !== "llm") continue;
    inMsgs.set(s.id, inputMessagesOf(s, unflat.get(s.id)!));
    outMsgs.set(s.id, outputMessagesOf(s, unflat.get(s.id)!));
  }
  const spansInOrder = items.filter((it) => it.kind === "span").map((it) => it.span!);
  // Rank of each span in the observed order (the tool-call nodes added below do not change it).
  const rank = new Map(spansInOrder.map((s, i) => [s.id, i]));
  const llmInOrder = spansInOrder.filter((s) => s.category === "llm");

  // Tool call ids: from the attribute, else inferred from the generation whose output holds a
  // call to this tool with the same arguments (openai-agents).
  const callIdOf = new Map<string, { id: string; source: "attribute" | "inferred" }>();
  const taken = new Set<string>();
  for (const s of spansInOrder) {
    if (s.category !== "tool") continue;
    const a = toolCallIdAttr(s);
    if (a) {
      callIdOf.set(s.id, { id: a, source: "attribute" });
      taken.add(a);
    }
  }
  for (const s of spansInOrder) {
    if (s.category !== "tool" || callIdOf.has(s.id)) continue;
    const name = toolNameOf(s);
    const args = canonicalArgs(toolArgumentsOf(s).value);
    let best: string | null = null;
    for (const g of llmInOrder) {
      if (rank.get(g.id)! > rank.get(s.id)!) break;
      for (const m of outMsgs.get(g.id) ?? [])
        for (const tc of m.tool_calls ?? [])
          if (tc.id && !taken.has(tc.id) && tc.name === name && canonicalArgs(tc.arguments) === args) best = tc.id;
    }
    if (best) {
      callIdOf.set(s.id, { id: best, source: "inferred" });
      taken.add(best);
    }
  }

  // Every tool call named in an LLM's output is a tool_call node (issue 20 item 10): the tool span
  // that ran it (same call id; else, for a span without one, a later tool span of the same name
  // with the same arguments, else of the same name), or, when no tool span ran it (a framework
  // refuses arguments that are not JSON), a node of its own right after the LLM, holding the
  // arguments exactly as the message wrote them.
  const idLess = spansInOrder.filter((s) => s.category === "tool" && !callIdOf.has(s.id));
  let unrun = 0;
  for (const g of llmInOrder) {
    const end = checked.end.get(g.id)!;
    const t = end < effStart.get(g.id)! ? effStart.get(g.id)! : end;
    let open: NamedCall[] = [];
    (outMsgs.get(g.id) ?? []).forEach((m, mi) => (m.tool_calls ?? []).forEach((tc, ci) => (tc.id && taken.has(tc.id) ? null : open.push({ message: mi, index: ci, call: tc }))));
    // Same name and arguments first (for every call of this output), then same name.
    for (const sameArgs of [true, false]) {
      open = open.filter(({ call: tc }) => {
        const ran = idLess.find((s) => rank.get(s.id)! > rank.get(g.id)! && toolNameOf(s) === tc.name && (!sameArgs || canonicalArgs(toolArgumentsOf(s).value) === canonicalArgs(tc.arguments)));
        if (ran) idLess.splice(idLess.indexOf(ran), 1);
        return !ran;
      });
    }
    open.forEach((nc, k) => {
      items.push({ kind: "call", span: g, t, depth: depth.get(g.id)!, tie: g.id, sub: 2 + k, call: nc });
      unrun++;
      if (nc.call.argumentsNote)
        warnings.push({ kind: "tool-arguments-not-object", path: g.path, message: `span ${g.id}: tool call ${nc.index} of output message ${nc.message} (${nc.call.name ?? "?"}): arguments ${nc.call.argumentsNote}: kept verbatim as text` });
    });
  }
  if (unrun > 0) {
    items.sort(byTime);
    notes.push(`${unrun} tool call(s) named in an LLM's output with no tool span that ran them: each is a tool_call node (executed: false) after its LLM`);
  }
  items.push({ kind: "final", span: null, t: 0n, depth: 0, tie: "", sub: 0 });

  const pad = (i: number) => String(i).padStart(4, "0");
  const typeOf = (it: Item): NodeType =>
    it.kind === "final" ? "final_result" : it.kind === "result" ? "tool_result" : it.kind === "call" ? "tool_call" : NODE_TYPE[it.span!.category];
  const ids = items.map((it, i) => `${typeOf(it)}_${pad(i)}`);
  const spanNode = new Map<string, string>();
  const resultNode = new Map<string, string>();
  items.forEach((it, i) => {
    if (it.kind === "span") spanNode.set(it.span!.id, ids[i]);
    if (it.kind === "result") resultNode.set(it.span!.id, ids[i]);
  });
  const pos = new Map(ids.map((id, i) => [id, i]));
  const byIdFirst = new Set(spans.filter((s) => !s.duplicateOf).map((s) => s.id));

  // Agent: the span's own agent-name attribute, else its name if it is an AGENT span, else its
  // parent's agent. Computed parents first (topo order), so deep chains stay linear.
  const agentMemo = new Map<string, string | null>();
  for (const s of topo) {
    let a: string | null = null;
    for (const k of AGENT_NAME_KEYS) {
      a = str(s.attributes[k]);
      if (a) break;
    }
    if (!a && s.category === "agent") a = s.name;
    if (!a && s.parentId !== null) a = agentMemo.get(s.parentId) ?? null;
    agentMemo.set(s.id, a);
  }
  const agentOf = (s: OtelSpan): string | null => agentMemo.get(s.id) ?? null;


  // Edges.
  const edgeMap = new Map<string, BundleEdge>();
  const addEdge = (from: string, to: string, kind: "data" | "control") => {
    if (from === to || pos.get(from)! >= pos.get(to)!) return false;
    const key = `${from}->${to}`;
    const prev = edgeMap.get(key);
    if (!prev || (prev.kind === "control" && kind === "data")) edgeMap.set(key, { from, to, kind });
    return true;
  };
  for (const s of spansInOrder) if (s.parentId !== null) addEdge(spanNode.get(s.parentId)!, spanNode.get(s.id)!, "control");
  for (const s of spansInOrder) if (s.category === "tool") addEdge(spanNode.get(s.id)!, resultNode.get(s.id)!, "data");
  const siblingGroups = new Map<string, OtelSpan[]>();
  for (const s of spansInOrder) {
    const k = s.parentId ?? "\u0000root";
    const g = siblingGroups.get(k);
    if (g) g.push(s);
    else siblingGroups.set(k, [s]);
  }
  for (const group of siblingGroups.values()) {
    for (let i = 1; i < group.length; i++) {
      const a = group[i - 1];
      const b = group[i];
      if (checked.end.get(a.id)! <= checked.start.get(b.id)!) addEdge(spanNode.get(a.id)!, spanNode.get(b.id)!, "control");
    }
  }
  const dataFlow: Array<{ from: string; to: string; callId: string }> = [];
  for (const s of spansInOrder) {
    const cid = callIdOf.get(s.id)?.id;
    if (!cid) continue;
    const callNode = spanNode.get(s.id)!;
    const resNode = resultNode.get(s.id)!;
    const producer = llmInOrder.find((g) =>
      (outMsgs.get(g.id) ?? []).some((m) => (m.tool_calls ?? []).some((tc) => tc.id === cid)),
    );
    if (producer && addEdge(spanNode.get(producer.id)!, callNode, "data"))
      dataFlow.push({ from: spanNode.get(producer.id)!, to: callNode, callId: cid });
    const consumer = llmInOrder.find(
      (g) =>
        pos.get(spanNode.get(g.id)!)! > pos.get(resNode)! &&
        (inMsgs.get(g.id) ?? []).some((m) => m.role === "tool" && m.tool_call_id === cid),
    );
    if (consumer && addEdge(resNode, spanNode.get(consumer.id)!, "data"))
      dataFlow.push({ from: resNode, to: spanNode.get(consumer.id)!, callId: cid });
  }

  // Unrun tool calls: producing generation -> call (data); call -> the first later generation whose
  // input answers its call id (a framework's error message in place of a result).
  items.forEach((it, i) => {
    if (it.kind !== "call") return;
    const from = spanNode.get(it.span!.id)!;
    addEdge(from, ids[i], "data");
    const cid = it.call!.call.id;
    if (cid) dataFlow.push({ from, to: ids[i], callId: cid });
    const consumer = cid
      ? llmInOrder.find((g) => pos.get(spanNode.get(g.id)!)! > i && (inMsgs.get(g.id) ?? []).some((m) => m.role === "tool" && m.tool_call_id === cid))
      : undefined;
    if (consumer && addEdge(ids[i], spanNode.get(consumer.id)!, "data")) dataFlow.push({ from: ids[i], to: spanNode.get(consumer.id)!, callId: cid! });
  });

  // Final result: trace output, else the root's output, else the last generation's output.
  const firstRoot = spansInOrder.find((s) => s.parentId === null) ?? null;
  const lastLlm = llmInOrder.length > 0 ? llmInOrder[llmInOrder.length - 1] : null;
  let finalFrom: string;
  let finalOutput: unknown;
  if (trace.traceOutput !== null && trace.traceOutput !== undefined) {
    finalFrom = "trace.output";
    finalOutput = trace.traceOutput;
  } else if (firstRoot && firstRoot.output !== null && firstRoot.output !== undefined) {
    finalFrom = "root.output";
    finalOutput = firstRoot.output;
  } else if (lastLlm && lastLlm.output !== null && lastLlm.output !== undefined) {
    finalFrom = "last_generation.output";
    finalOutput = lastLlm.output;
  } else {
    finalFrom = "none";
    finalOutput = null;
    notes.push("no trace output, root output or generation output: final_result is empty");
  }
  const finalProducer = lastLlm ?? firstRoot;
  const finalId = ids[ids.length - 1];
  if (finalProducer) addEdge(spanNode.get(finalProducer.id)!, finalId, "data");

  // Span links: references only (never parent edges); a link to a span not in this trace is an
  // unresolved reference.
  const linksOf = new Map<string, Array<Rec>>();
  for (const s of spansInOrder) {
    if (!s.links || s.links.length === 0) continue;
    linksOf.set(
      s.id,
      s.links.map((l) => {
        const target = (l.traceId === null || l.traceId === trace.traceId) && byIdFirst.has(l.spanId) ? spanNode.get(l.spanId)! : null;
        if (target !== null) return { traceId: l.traceId, spanId: l.spanId, nodeId: target };
        mark(s, `unresolved link: span ${l.spanId} not in trace`);
        warnings.push({ kind: "unresolved-link", path: `${s.path}.links`, message: `span ${s.id}: link to span ${l.spanId} (trace ${l.traceId ?? "?"}) which is not in this trace: kept as an unresolved reference` });
        return { traceId: l.traceId, spanId: l.spanId, nodeId: null, unresolved: true };
      }),
    );
  }
  const argsOf = new Map<string, { value: unknown; note?: ArgumentsNote }>();
  for (const s of spansInOrder) {
    if (s.category !== "tool") continue;
    const a = toolArgumentsOf(s);
    argsOf.set(s.id, a);
    if (a.note)
      warnings.push({ kind: "tool-arguments-not-object", path: s.path, message: `span ${s.id}: tool-call arguments ${a.note}: kept verbatim as text` });
  }
  const durationOf = (s: OtelSpan) => {
    const ns = checked.end.get(s.id)! - checked.start.get(s.id)!;
    return { durationNs: ns.toString(), duration: formatDurationNs(ns) };
  };

  // Nodes.
  const nodes: NodeDraft[] = items.map((it, i) => {
    const id = ids[i];
    if (it.kind === "final") {
      const text = finalOutput === null ? "" : finalText(finalOutput);
      return clean({
        id,
        type: "final_result" as const,
        agent: finalProducer ? (agentOf(finalProducer) ?? undefined) : undefined,
        label: oneLine(text || "(no output)"),
        content: jsonSafe({ from: finalFrom, text, output: finalOutput }),
      });
    }
    const s = it.span!;
    const agent = agentOf(s) ?? undefined;
    if (it.kind === "call") {
      const { call: tc, message, index } = it.call!;
      const name = tc.name ?? "?";
      return clean({
        id,
        type: "tool_call" as const,
        agent,
        label: oneLine(`${name}(${asText(tc.arguments)}) · not run`),
        content: jsonSafe({
          tool: clean({ name: tc.name, arguments: tc.arguments ?? null, argumentsNote: tc.argumentsNote, callId: tc.id, callIdSource: tc.id ? "message" : null }),
          namedBy: { nodeId: spanNode.get(s.id)!, spanId: s.duplicateOf?.spanId ?? s.id, message, call: index },
          executed: false,
          note: "named in the LLM's output; no tool span in the trace ran it",
        }),
      });
    }
    const errorInfo = s.status.error ? errorOf(s) : undefined;
    const common = {
      spanId: s.duplicateOf?.spanId ?? s.id,
      parentSpanId: checked.declaredParent.get(s.id) ?? null,
      traceId: s.traceId,
      name: s.name,
      kind: s.kind,
      startTime: s.startTime,
      endTime: s.endTime ?? null,
      ...durationOf(s),
      ...s.extra,
      importWarnings: marks.get(s.id),
      duplicateOf: s.duplicateOf,
      links: linksOf.get(s.id),
    };
    if (it.kind === "result") {
      const cid = callIdOf.get(s.id);
      const outText = s.output === null || s.output === undefined ? "" : asText(s.output);
      return clean({
        id,
        type: "tool_result" as const,
        agent,
        label: oneLine(`${toolNameOf(s)} → ${errorInfo ? `error: ${errorInfo.message ?? ""}` : outText || "(no output)"}`),
        content: jsonSafe({ tool: toolNameOf(s), callId: cid?.id ?? null, spanId: s.duplicateOf?.spanId ?? s.id, output: s.output ?? null }),
        status: errorInfo ? ("error" as const) : undefined,
        error: errorInfo,
      });
    }
    const attrs = { ...unflat.get(s.id)! };
    let content: Rec;
    let label: string;
    if (s.category === "tool") {
      for (const k of ["output.value", "output.mime_type", "gen_ai.tool.call.result"]) delete attrs[k];
      const cid = callIdOf.get(s.id);
      const args = argsOf.get(s.id)!;
      content = clean({
        ...common,
        tool: clean({
          name: toolNameOf(s),
          arguments: args.value ?? null,
          argumentsNote: args.note,
          callId: cid?.id ?? null,
          callIdSource: cid?.source ?? null,
        }),
        input: s.input ?? null,
        status: s.status.code || s.status.message ? { code: s.status.code, message: s.status.message } : undefined,
        attributes: attrs,
        events: s.events.length > 0 ? s.events : undefined,
        scope: s.scope ?? undefined,
      });
      label = `${toolNameOf(s)}(${asText(args.value)})`;
    } else {
      const isLlm = s.category === "llm";
      content = clean({
        ...common,
        model: s.model ?? undefined,
        usage: s.usage ?? undefined,
        input: s.input ?? null,
        output: s.output ?? null,
        messages: isLlm ? { input: inMsgs.get(s.id) ?? [], output: outMsgs.get(s.id) ?? [] } : undefined,
        status: s.status.code || s.status.message ? { code: s.status.code, message: s.status.message } : undefined,
        attributes: attrs,
        events: s.events.length > 0 ? s.events : undefined,
        scope: s.scope ?? undefined,
      });
      label = isLlm ? llmLabel(s, outMsgs.get(s.id) ?? []) : s.name;
    }
    return clean({
      id,
      type: typeOf(it),
      agent,
      label: oneLine(label || s.name || s.id),
      content: jsonSafe(content),
      status: errorInfo ? ("error" as const) : undefined,
      error: errorInfo,
    });
  });

  // Records, in observed order.
  const records: RecordDraft[] = [];
  for (const s of spansInOrder) {
    const latencyMs = nsToMs(checked.end.get(s.id)! - checked.start.get(s.id)!);
    const latencyNs = (checked.end.get(s.id)! - checked.start.get(s.id)!).toString();
    if (s.category === "llm") {
      const msgs = inMsgs.get(s.id);
      if (!msgs || msgs.length === 0 || s.output === null || s.output === undefined) continue;
      const tools = toolsOf(s, unflat.get(s.id)!);
      records.push({
        nodeId: spanNode.get(s.id)!,
        boundary: "llm",
        request: jsonSafe(
          clean({
            model: requestModelOf(s),
            messages: msgs.map((m) =>
              clean({
                role: m.role,
                content: m.content,
                name: m.name,
                tool_calls: m.tool_calls?.map((tc) => ({ name: tc.name, arguments: tc.arguments })),
              }),
            ),
            tools,
            temperature: temperatureOf(s),
          }),
        ),
        response: jsonSafe(s.output),
        meta: jsonSafe(clean({ latencyMs, latencyNs, model: s.model ?? undefined, usage: s.usage ?? undefined, spanId: s.id })) as Rec,
      });
    } else if (s.category === "tool") {
      records.push({
        nodeId: spanNode.get(s.id)!,
        boundary: "tool",
        request: jsonSafe({ name: toolNameOf(s), arguments: argsOf.get(s.id)!.value ?? null }),
        response: jsonSafe(s.output ?? null),
        meta: jsonSafe(
          clean({ latencyMs, latencyNs, spanId: s.id, callId: callIdOf.get(s.id)?.id, status: s.status.error ? "error" : undefined }),
        ) as Rec,
      });
    }
  }

  // Task, config, labels, source.
  const prompt = promptOf(llmInOrder, inMsgs, trace.traceInput, firstRoot);
  const firstLlm = llmInOrder[0] ?? null;
  const { mas, scope } = masOf(spansInOrder);
  const referenceLabels: ReferenceLabel[] = trace.humanLabels.map((h) => ({
    source: trace.dataset,
    annotator: h.annotator,
    nodeId: h.observationId !== null ? (spanNode.get(h.observationId) ?? null) : finalId,
    agent: null,
    failureModes: [],
    reason: h.reason,
    extra: { ...h.extra, target: h.observationId !== null ? "observation" : "trace output (final_result)" },
  }));
  const source: OtelBundleSource = {
    dataset: trace.dataset,
    file: trace.fileName,
    recordKey: trace.traceId,
    subset: null,
    traceSha256: trace.traceSha256,
    notes,
    ...(warnings.length > 0 ? { importWarnings: warnings } : {}),
    ...(trace.dataset === "langfuse" ? { scores: trace.scores } : {}),
    ...trace.sourceExtra,
  };
  const sourceJson = jsonSafe(source) as OtelBundleSource;
  const labelsJson = jsonSafe(referenceLabels) as ReferenceLabel[];
  const temperature = firstLlm ? temperatureOf(firstLlm) : undefined;
  try {
    const bundle = buildBundle({
      id: trace.bundleId,
      task: jsonSafe(
        clean({
          id: trace.traceId,
          benchmark: null,
          name: trace.name ?? firstRoot?.name ?? null,
          prompt,
          reference: trace.reference,
        }),
      ) as { prompt: string },
      initialState: {},
      config: jsonSafe(
        clean({
          mas,
          model: firstLlm ? requestModelOf(firstLlm) : null,
          temperature,
          instrumentation: scope ? { scope: scope.name, version: scope.version } : undefined,
          replay: { normalization: OTEL_NORMALIZATION },
          ...trace.configExtra,
        }),
      ) as Rec,
      nodes,
      edges: [...edgeMap.values()],
      order: ids,
      records,
      outcome: { passed: null, evaluator: trace.dataset, details: { dataFlow } },
      extra: { source: sourceJson, referenceLabels: labelsJson },
    });
    return { ok: true, value: { bundle, source: sourceJson, referenceLabels: labelsJson, warnings } };
  } catch (err) {
    // Text that cannot be hashed (a lone surrogate): name its path in the input file.
    const bad = trace.rawValue !== undefined ? findLoneSurrogate(trace.rawValue) : null;
    if (bad) return { ok: false, failure: { where, errors: [bad] } };
    if (err instanceof BundleValidationError) {
      return { ok: false, failure: { where, errors: err.issues.map((i) => ({ path: i.path, message: i.message })) } };
    }
    return { ok: false, failure: { where, errors: [{ path: "$", message: err instanceof Error ? err.message : String(err) }] } };
  }
}

function canonicalArgs(v: unknown): string {
  const p = parseJsonValue(v);
  const sortKeys = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sortKeys)
      : isRec(x)
        ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])]))
        : x;
  return JSON.stringify(sortKeys(p) ?? null);
}

function errorOf(s: OtelSpan): { type: string; message: string } {
  const ex = s.events.find((e) => e.name === "exception");
  const type = str(ex?.attributes["exception.type"]) ?? str(s.attributes["exception.type"]) ?? "error";
  const message =
    s.status.message ?? str(ex?.attributes["exception.message"]) ?? str(s.attributes["exception.message"]) ?? "";
  return { type, message };
}

function llmLabel(s: OtelSpan, out: ChatMessage[]): string {
  const model = requestModelOf(s) ?? s.name;
  const calls = out.flatMap((m) => m.tool_calls ?? []);
  if (calls.length > 0) return `${model} → ${calls.map((c) => `${c.name ?? "?"}(${asText(c.arguments)})`).join(", ")}`;
  const text = [...out].reverse().map(messageText).find((t) => t);
  return `${model}: ${text ?? asText(s.output)}`;
}

function promptOf(
  llms: OtelSpan[],
  inMsgs: Map<string, ChatMessage[] | null>,
  traceInput: unknown,
  root: OtelSpan | null,
): string {
  for (const g of llms) {
    const u = (inMsgs.get(g.id) ?? []).find((m) => m.role === "user" && messageText(m));
    if (u) return messageText(u)!;
  }
  for (const v of [traceInput, root?.input]) {
    if (v === null || v === undefined) continue;
    if (typeof v === "string") return v;
    const u = (normalizeMessages(v, "user") ?? []).find((m) => m.role === "user" && messageText(m));
    return messageText(u) ?? asText(v);
  }
  return "";
}
