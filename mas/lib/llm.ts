/**
 * The LLM boundary of the reference MAS: one OpenAI-compatible chat-completions client
 * pointed at OPENAI_BASE_URL. Requests are deterministic: `{ model, messages, tools?,
 * temperature: 0 }` (plus `stream: true` when SYMTRACE_STREAM=1), with no ids, timestamps
 * or random values, so a replay sees byte-identical requests. The SDK does not retry
 * (maxRetries 0 unless SYMTRACE_LLM_RETRIES is set): a retry would be an extra boundary
 * crossing that a recorder would see and a replay would not.
 */
import OpenAI from "openai";
import { log } from "./log";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | AssistantMessage
  | { role: "tool"; tool_call_id: string; content: string };

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface LlmOptions {
  baseUrl: string;
  model: string;
  stream?: boolean;
  apiKey?: string;
  maxRetries?: number;
  /**
   * OpenAI's per-end-user `user` field, sent with every request when set (SYMTRACE_ATTEMPT_SEED).
   * The replay normalization drops it (lib/replay/normalize.ts), so recordings and prefix matching
   * are unaffected; a seeded stochastic endpoint (the calibrated world) keys its samples on it.
   */
  user?: string;
}

export interface Llm {
  readonly model: string;
  /** One chat completion for `agent` (used only for logging). Returns the normalized assistant message. */
  complete(agent: string, messages: ChatMessage[], tools?: ToolSchema[]): Promise<AssistantMessage>;
}

export function createLlm(opts: LlmOptions): Llm {
  const client = new OpenAI({ baseURL: opts.baseUrl, apiKey: opts.apiKey ?? "symtrace-local", maxRetries: opts.maxRetries ?? 0 });
  return {
    model: opts.model,
    async complete(agent, messages, tools) {
      const body = {
        model: opts.model,
        messages: messages as unknown as OpenAI.Chat.ChatCompletionMessageParam[],
        ...(tools && tools.length > 0 ? { tools: tools as OpenAI.Chat.ChatCompletionTool[] } : {}),
        temperature: 0,
        ...(opts.user ? { user: opts.user } : {}),
      };
      const completion = opts.stream ? await client.chat.completions.stream(body).finalChatCompletion() : await client.chat.completions.create(body);
      const choice = completion.choices[0];
      if (!choice) throw new Error(`${agent}: the model returned no choices`);
      const msg = normalizeAssistant(choice.message);
      log(agent, msg.tool_calls ? `requests ${msg.tool_calls.map((t) => t.function.name).join(", ")}` : `says: ${msg.content ?? ""}`);
      return msg;
    },
  };
}

/** Keep only the fields the conversation needs, in a fixed key order. */
export function normalizeAssistant(m: { content?: string | null; tool_calls?: Array<{ id: string; type: string; function?: { name: string; arguments: string } }> }): AssistantMessage {
  const calls = (m.tool_calls ?? []).filter((t) => t.type === "function" && t.function);
  const out: AssistantMessage = { role: "assistant", content: m.content ?? null };
  if (calls.length > 0) out.tool_calls = calls.map((t) => ({ id: t.id, type: "function", function: { name: t.function!.name, arguments: t.function!.arguments } }));
  return out;
}
