/**
 * One chat-completions call to the experiment's configured OpenAI-compatible endpoint (the critic
 * agent of Critic-Agent, the LLM reproduction judge), and `usage` accounting of recorded LLM
 * responses (plain and streamed). Node only (fetch).
 */
import type { ReplayBundle } from "../../bundle";
import { assistantOf, isStreamedResponse } from "../../replay";
import type { TokenCounts } from "./methods/types";

/** A chat message of a request this module sends. */
export interface SimpleMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Thrown by {@link chatOnce} for an unreachable endpoint, an HTTP error, a non-JSON body or a reply without text. */
export class ChatCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChatCallError";
  }
}

export const ZERO_TOKENS: TokenCounts = { prompt: 0, completion: 0, total: 0 };

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

/** Token counts of one usage object (`prompt_tokens`, `completion_tokens`, `total_tokens`; total defaults to their sum). */
export function tokensOfUsage(u: unknown): TokenCounts {
  if (!u || typeof u !== "object") return { ...ZERO_TOKENS };
  const o = u as Record<string, unknown>;
  const prompt = num(o.prompt_tokens);
  const completion = num(o.completion_tokens);
  const total = typeof o.total_tokens === "number" ? num(o.total_tokens) : prompt + completion;
  return { prompt, completion, total };
}

/**
 * Token counts of one recorded LLM response: its `usage`, or for a recorded stream the usage
 * chunk (`stream_options.include_usage`); zero when the response carries none.
 */
export function tokensOfResponse(response: unknown): TokenCounts {
  if (isStreamedResponse(response)) {
    for (const e of [...response.events].reverse()) {
      if (e.data === "[DONE]") continue;
      try {
        const chunk = JSON.parse(e.data) as { usage?: unknown };
        if (chunk && chunk.usage) return tokensOfUsage(chunk.usage);
      } catch {
        /* not JSON */
      }
    }
    return { ...ZERO_TOKENS };
  }
  return tokensOfUsage(response && typeof response === "object" ? (response as { usage?: unknown }).usage : null);
}

/** Sum of token counts. */
export function addTokens(...ts: TokenCounts[]): TokenCounts {
  return ts.reduce((a, t) => ({ prompt: a.prompt + t.prompt, completion: a.completion + t.completion, total: a.total + t.total }), { ...ZERO_TOKENS });
}

/**
 * Calls and tokens of the live records of a bundle: the last `live` records (a replay's records
 * after its verified prefix; a new recording: all). Calls count LLM and tool records; tokens come
 * from the LLM records' `usage`.
 */
export function countLive(bundle: ReplayBundle, live: number = bundle.records.length): { calls: number; tokens: TokenCounts } {
  const recs = live > 0 ? bundle.records.slice(Math.max(0, bundle.records.length - live)) : [];
  return { calls: recs.length, tokens: addTokens(...recs.filter((r) => r.boundary === "llm").map((r) => tokensOfResponse(r.response))) };
}

/**
 * One non-streaming chat-completions call.
 * @param upstream base URL ending in /v1
 * @returns the assistant text and the response's token usage
 * @throws ChatCallError (message names the endpoint and what went wrong); an AbortError when `signal` aborts
 */
export async function chatOnce(
  upstream: string,
  body: { model: string; messages: SimpleMessage[]; temperature?: number },
  o: { signal?: AbortSignal; timeoutMs?: number; apiKey?: string } = {},
): Promise<{ text: string; tokens: TokenCounts }> {
  const url = `${upstream.replace(/\/+$/, "")}/chat/completions`;
  const signals = [o.signal, o.timeoutMs && Number.isFinite(o.timeoutMs) ? AbortSignal.timeout(o.timeoutMs) : undefined].filter((x): x is AbortSignal => !!x);
  const apiKey = o.apiKey ?? process.env.OPENAI_API_KEY;
  let status: number;
  let text: string;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({ temperature: 0, ...body }),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
    status = res.status;
    text = await res.text();
  } catch (e) {
    if (o.signal?.aborted) throw e;
    if ((e as Error).name === "TimeoutError") throw new ChatCallError(`${url} did not answer within ${o.timeoutMs} ms`);
    throw new ChatCallError(`${url} unreachable: ${(e as Error).message.split("\n")[0]}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ChatCallError(`${url} answered HTTP ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  if (status >= 400) {
    const err = (json as { error?: { message?: unknown } })?.error?.message;
    throw new ChatCallError(`${url} answered HTTP ${status}: ${typeof err === "string" ? err : text.slice(0, 200)}`);
  }
  const a = assistantOf(json);
  const content = typeof a?.message.content === "string" ? a.message.content : null;
  if (content === null || content.trim() === "") throw new ChatCallError(`${url} answered HTTP ${status} without assistant text`);
  return { text: content, tokens: tokensOfUsage((json as { usage?: unknown }).usage) };
}
