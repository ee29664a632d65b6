/**
 * The I/O of lib/attribution's LLM attributors: the configured endpoint in one of the provider
 * protocols the proxy speaks — OpenAI Chat Completions (default) or the OpenAI Responses API
 * through the `openai` SDK, or Anthropic Messages through `@anthropic-ai/sdk` — every call cached
 * on disk like the judge's (lib/services/symptoms-judge.ts): `<dir>/<sha256 of the RFC 8785
 * canonical request>.json` = `{ key, model, protocol, request, reply, usage }`, written atomically.
 * A cached request is never sent again; its recorded usage is reported (`cached: true`), so tokens
 * per case do not depend on the cache. The key is the request itself for chat (caches written
 * before protocols existed stay valid) and `{protocol, ...request}` for the others.
 *
 * Environment: SYMTRACE_ATTRIBUTION_UPSTREAM (base URL ending in /v1; for Anthropic the SDK's
 * base is this URL without its /v1), SYMTRACE_ATTRIBUTION_MODEL, SYMTRACE_ATTRIBUTION_API_KEY
 * (optional), SYMTRACE_ATTRIBUTION_PROTOCOL (chat | responses | anthropic; default chat),
 * SYMTRACE_ATTRIBUTION_CACHE_DIR (default data/judge-cache/attribution); each falls back to its
 * SYMTRACE_JUDGE_* twin.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { canonicalJson, sha256Tagged } from "../../bundle";
import type { AttributionLlm, LlmReply, LlmRequest } from "../../attribution";

/** The provider protocols an attributor can speak (the ones the proxy records). */
export const ATTRIBUTION_PROTOCOLS = ["chat", "responses", "anthropic"] as const;
export type AttributionProtocol = (typeof ATTRIBUTION_PROTOCOLS)[number];

export interface AttributionLlmSettings {
  upstream: string | null;
  model: string | null;
  apiKey: string | null;
  protocol: AttributionProtocol;
  cacheDir: string;
}

/** @throws Error naming `where` when `p` is not one of ATTRIBUTION_PROTOCOLS */
export function parseAttributionProtocol(p: string, where: string): AttributionProtocol {
  if ((ATTRIBUTION_PROTOCOLS as readonly string[]).includes(p)) return p as AttributionProtocol;
  throw new Error(`${where} must be ${ATTRIBUTION_PROTOCOLS.join(", ")}; got ${JSON.stringify(p)}`);
}

/** Settings from the environment (empty = unset). @throws Error naming a variable that is not a URL */
export function attributionLlmSettings(env: NodeJS.ProcessEnv = process.env): AttributionLlmSettings {
  const get = (k: string) => (env[`SYMTRACE_ATTRIBUTION_${k}`] || env[`SYMTRACE_JUDGE_${k}`] || null) as string | null;
  const upstream = get("UPSTREAM");
  if (upstream !== null && !/^https?:\/\/\S+$/.test(upstream)) throw new Error(`bad environment: SYMTRACE_ATTRIBUTION_UPSTREAM must be an http(s) URL ending in /v1, got ${JSON.stringify(upstream)}`);
  const protocol = parseAttributionProtocol(get("PROTOCOL") ?? "chat", "bad environment: SYMTRACE_ATTRIBUTION_PROTOCOL");
  return { upstream, model: get("MODEL"), apiKey: get("API_KEY"), protocol, cacheDir: path.resolve(env.SYMTRACE_ATTRIBUTION_CACHE_DIR || (env.SYMTRACE_JUDGE_CACHE_DIR ? path.join(env.SYMTRACE_JUDGE_CACHE_DIR, "attribution") : "data/judge-cache/attribution")) };
}

/** sha256 (hex) of the canonical request (with its protocol unless chat): the cache key. */
export function attributionCacheKey(request: LlmRequest, protocol: AttributionProtocol = "chat"): string {
  return sha256Tagged(canonicalJson(protocol === "chat" ? request : { protocol, ...request })).slice("sha256:".length);
}

type Sender = (request: LlmRequest) => Promise<{ text: string; usage: { prompt: number; completion: number } }>;

/** One HTTP call in `protocol`: system messages become the instructions / system prompt. */
function senderFor(protocol: AttributionProtocol, upstream: string, apiKey: string): Sender {
  const system = (r: LlmRequest) => r.messages.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
  const users = (r: LlmRequest) => r.messages.filter((m) => m.role !== "system").map((m) => ({ role: "user" as const, content: m.content }));
  if (protocol === "anthropic") {
    const client = new Anthropic({ baseURL: upstream.replace(/\/v1\/?$/, ""), apiKey, maxRetries: 2 });
    return async (r) => {
      const sys = system(r);
      // No temperature: the Messages API of @anthropic-ai/sdk 1.15 has no such parameter.
      const res = await client.messages.create({ model: r.model, max_tokens: 4096, ...(sys ? { system: sys } : {}), messages: users(r) });
      const text = res.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      return { text, usage: { prompt: res.usage?.input_tokens ?? 0, completion: res.usage?.output_tokens ?? 0 } };
    };
  }
  const client = new OpenAI({ baseURL: upstream, apiKey, maxRetries: 2 });
  if (protocol === "responses") {
    return async (r) => {
      const sys = system(r);
      const res = await client.responses.create({ model: r.model, temperature: r.temperature, ...(sys ? { instructions: sys } : {}), input: users(r) });
      return { text: res.output_text ?? "", usage: { prompt: res.usage?.input_tokens ?? 0, completion: res.usage?.output_tokens ?? 0 } };
    };
  }
  return async (r) => {
    const res = await client.chat.completions.create({ model: r.model, temperature: r.temperature, messages: r.messages });
    return { text: res.choices[0]?.message?.content ?? "", usage: { prompt: res.usage?.prompt_tokens ?? 0, completion: res.usage?.completion_tokens ?? 0 } };
  };
}

export interface CachedAttributionLlm extends AttributionLlm {
  stats: { httpCalls: number; cacheHits: number };
}

/**
 * A cached client of the endpoint in `o.protocol` (default chat).
 * @throws (from complete) the SDK's error when the endpoint fails; nothing is cached then
 */
export function createAttributionLlm(o: { upstream: string; model: string; apiKey?: string | null; protocol?: AttributionProtocol; cacheDir: string }): CachedAttributionLlm {
  const protocol = o.protocol ?? "chat";
  const send = senderFor(protocol, o.upstream, o.apiKey || "none");
  const stats = { httpCalls: 0, cacheHits: 0 };
  return {
    model: o.model,
    stats,
    async complete(request): Promise<LlmReply> {
      const key = attributionCacheKey(request, protocol);
      const file = path.join(o.cacheDir, `${key}.json`);
      try {
        const c = JSON.parse(readFileSync(file, "utf8")) as { reply?: unknown; usage?: { prompt?: number; completion?: number } };
        if (typeof c.reply === "string") {
          stats.cacheHits++;
          return { text: c.reply, usage: { prompt: c.usage?.prompt ?? 0, completion: c.usage?.completion ?? 0 }, cached: true };
        }
      } catch {
        /* not cached */
      }
      stats.httpCalls++;
      const { text, usage } = await send(request);
      mkdirSync(o.cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, model: request.model, protocol, request, reply: text, usage }) + "\n");
      renameSync(tmp, file);
      return { text, usage, cached: false };
    },
  };
}
