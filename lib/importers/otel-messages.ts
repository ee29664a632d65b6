/**
 * Chat messages of a span in one shape (OpenInference, GenAI parts, OpenAI chat / responses,
 * pydantic-ai events): `normalizeMessages`, `messageText`, `finalText`.
 */
import { type ArgumentsNote, arr, asText, classifyArguments, clean, isRec, type Rec, str } from "./otel-values";

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
