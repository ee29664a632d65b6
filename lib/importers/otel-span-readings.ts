/**
 * What a span says, read from its attributes under the conventions in use (OpenInference, OTel
 * GenAI, Langfuse, the Vercel AI SDK's telemetry): category, messages, tool name and arguments,
 * model, temperature, tools;
 * times as nanoseconds; the MAS from the instrumentation scope.
 */
import { type ChatMessage, normalizeMessages } from "./otel-messages";
import type { OtelSpan, SpanCategory } from "./otel-types";
import { type ArgumentsNote, classifyArguments, isRec, type Rec, str, unflattenIndexed } from "./otel-values";

/** Vercel AI SDK `experimental_telemetry` operations (`ai.operationId`): one model call, a tool call, a whole call (the agent). */
const AI_SDK_LLM = /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/;
const AI_SDK_AGENT = /^ai\.(generateText|streamText|generateObject|streamObject)$/;

/**
 * Category from OpenInference `openinference.span.kind`, GenAI `gen_ai.operation.name`, or the
 * Vercel AI SDK's `ai.operationId` (ai-sdk.dev, "Telemetry": `ai.generateText.doGenerate` and the
 * like are model calls, `ai.toolCall` a tool, `ai.generateText` and the like an agent's call).
 */
export function categoryFromAttributes(attrs: Rec): { category: SpanCategory; kind: string } | null {
  const aiOp = str(attrs["ai.operationId"]);
  if (aiOp && (AI_SDK_LLM.test(aiOp) || aiOp === "ai.toolCall" || AI_SDK_AGENT.test(aiOp))) {
    return { category: AI_SDK_LLM.test(aiOp) ? "llm" : aiOp === "ai.toolCall" ? "tool" : "agent", kind: aiOp };
  }
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

/**
 * The Vercel AI SDK's prompt messages (`ai.prompt.messages`: its language-model prompt, content a
 * string or parts `text`, `tool-call` {toolCallId, toolName, input|args}, `tool-result`
 * {toolCallId, toolName, output|result}) as chat messages: assistant tool calls, one tool message
 * per result; other parts (images, files) kept as they are.
 */
function aiSdkPrompt(v: unknown): unknown[] | null {
  if (!Array.isArray(v)) return null;
  const out: unknown[] = [];
  for (const m of v) {
    if (!isRec(m) || typeof m.role !== "string") continue;
    if (!Array.isArray(m.content)) {
      out.push({ role: m.role, content: m.content ?? null });
      continue;
    }
    const texts: unknown[] = [];
    const calls: unknown[] = [];
    for (const p of m.content) {
      if (!isRec(p)) continue;
      if (p.type === "tool-call") calls.push({ id: p.toolCallId, type: "function", function: { name: p.toolName, arguments: p.input ?? p.args ?? null } });
      else if (p.type === "tool-result") {
        const o = isRec(p.output) && "value" in p.output ? p.output.value : (p.output ?? p.result ?? null);
        out.push({ role: "tool", tool_call_id: p.toolCallId, content: typeof o === "string" ? o : JSON.stringify(o) });
      } else texts.push(p);
    }
    if (texts.length || calls.length) out.push({ role: m.role, content: texts.length ? texts : null, ...(calls.length ? { tool_calls: calls } : {}) });
  }
  return out;
}

/** The Vercel AI SDK's response (`ai.response.text`, `ai.response.toolCalls`) as one assistant message, or null. */
export function aiSdkResponse(attrs: Rec): unknown[] | null {
  const text = attrs["ai.response.text"];
  const calls = Array.isArray(attrs["ai.response.toolCalls"]) ? (attrs["ai.response.toolCalls"] as unknown[]) : [];
  if (typeof text !== "string" && calls.length === 0) return null;
  const toolCalls = calls.filter(isRec).map((c) => ({ id: c.toolCallId, type: "function", function: { name: c.toolName, arguments: c.input ?? c.args ?? null } }));
  return [{ role: "assistant", content: typeof text === "string" && text !== "" ? text : null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }];
}

export function inputMessagesOf(s: OtelSpan, un: Rec): ChatMessage[] | null {
  const oi = un["llm.input_messages"];
  if (Array.isArray(oi)) return normalizeMessages(oi, "user");
  const ai = aiSdkPrompt(s.attributes["ai.prompt.messages"]);
  if (ai) return normalizeMessages(ai, "user");
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

export function outputMessagesOf(s: OtelSpan, un: Rec): ChatMessage[] | null {
  const oi = un["llm.output_messages"];
  if (Array.isArray(oi)) return normalizeMessages(oi, "assistant");
  const ai = s.attributes["ai.operationId"] !== undefined ? aiSdkResponse(s.attributes) : null;
  if (ai) return normalizeMessages(ai, "assistant");
  const ga = s.attributes["gen_ai.output.messages"];
  if (ga !== undefined && ga !== null) return normalizeMessages(ga, "assistant");
  if (s.output !== null && s.output !== undefined) return normalizeMessages(s.output, "assistant");
  const ev = s.events.filter((e) => e.name === "gen_ai.choice");
  if (ev.length > 0) return normalizeMessages(ev.map((e) => e.attributes), "assistant");
  return null;
}

export function toolNameOf(s: OtelSpan): string {
  return (
    str(s.attributes["tool.name"]) ??
    str(s.attributes["gen_ai.tool.name"]) ??
    str(s.attributes["ai.toolCall.name"]) ??
    s.name.replace(/^execute_tool\s+/, "")
  );
}

/** A tool span's arguments: the parsed object, or the raw text verbatim with a note (classifyArguments). */
export function toolArgumentsOf(s: OtelSpan): { value: unknown; note?: ArgumentsNote } {
  if (s.rawArguments !== undefined) return classifyArguments(s.rawArguments);
  if (s.input !== null && s.input !== undefined) return classifyArguments(s.input);
  return classifyArguments(s.attributes["gen_ai.tool.call.arguments"] ?? s.attributes["tool_call.function.arguments"] ?? null);
}

export function toolCallIdAttr(s: OtelSpan): string | null {
  return (
    str(s.attributes["gen_ai.tool.call.id"]) ??
    str(s.attributes["tool_call.id"]) ??
    str(s.attributes["tool.call.id"]) ??
    str(s.attributes["ai.toolCall.id"]) ??
    null
  );
}

function invocationParams(s: OtelSpan): Rec {
  const p = s.attributes["llm.invocation_parameters"];
  return isRec(p) ? p : {};
}

export function requestModelOf(s: OtelSpan): string | null {
  return (
    str(s.attributes["gen_ai.request.model"]) ??
    str(invocationParams(s).model) ??
    str(s.attributes["llm.model_name"]) ??
    s.model
  );
}

export function temperatureOf(s: OtelSpan): number | undefined {
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

export function toolsOf(s: OtelSpan, un: Rec): unknown[] | undefined {
  const oi = un["llm.tools"];
  if (Array.isArray(oi) && oi.length > 0)
    return oi.map((t) => (isRec(t) && isRec(t.tool) ? (t.tool.json_schema ?? t.tool) : t));
  const ga = s.attributes["gen_ai.tool.definitions"];
  if (Array.isArray(ga) && ga.length > 0) return ga;
  return undefined;
}

/** Span attributes naming the agent (the AI SDK's `functionId` is on every span of a call). */
export const AGENT_NAME_KEYS = ["gen_ai.agent.name", "agent_name", "agent.name", "ai.telemetry.functionId"];

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

export const nsToMs = (ns: bigint): number => Math.round(Number(ns) / 1000) / 1000;

export const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

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
  [/^ai$/, "vercel-ai-sdk"],
];
const GENERIC_SCOPE = /^(langfuse-sdk|opentelemetry|io\.opentelemetry|logfire)/i;

export function masOf(spansInOrder: readonly OtelSpan[]): { mas: string | null; scope: OtelSpan["scope"] } {
  for (const s of spansInOrder) {
    if (!s.scope) continue;
    const hit = MAS_BY_SCOPE.find(([re]) => re.test(s.scope!.name));
    if (hit) return { mas: hit[1], scope: s.scope };
  }
  const other = spansInOrder.find((s) => s.scope && !GENERIC_SCOPE.test(s.scope.name));
  return other?.scope ? { mas: other.scope.name, scope: other.scope } : { mas: null, scope: null };
}

// ---------------------------------------------------------------------------------------------
// Per-span readings used by several phases of traceToCase
// ---------------------------------------------------------------------------------------------

/** What traceToCase reads once per span: attributes with indexed keys as arrays, LLM messages. */
export interface SpanReadings {
  /** Each span's attributes with `a.0.b` keys unflattened into arrays (unflattenIndexed). */
  unflat: Map<string, Rec>;
  /** Each LLM span's input messages (null: none readable); only LLM spans have an entry. */
  inMsgs: Map<string, ChatMessage[] | null>;
  /** Each LLM span's output messages (null: none readable); only LLM spans have an entry. */
  outMsgs: Map<string, ChatMessage[] | null>;
}

/** Read every span's unflattened attributes and every LLM span's input and output messages. */
export function readSpans(spans: readonly OtelSpan[]): SpanReadings {
  const unflat = new Map(spans.map((s) => [s.id, unflattenIndexed(s.attributes)]));
  const inMsgs = new Map<string, ChatMessage[] | null>();
  const outMsgs = new Map<string, ChatMessage[] | null>();
  for (const s of spans) {
    if (s.category !== "llm") continue;
    inMsgs.set(s.id, inputMessagesOf(s, unflat.get(s.id)!));
    outMsgs.set(s.id, outputMessagesOf(s, unflat.get(s.id)!));
  }
  return { unflat, inMsgs, outMsgs };
}
