/**
 * The I/O of lib/attribution's LLM attributors: an OpenAI-compatible endpoint through the `openai`
 * SDK (the proxy's chat-completions protocol), every call cached on disk like the judge's
 * (lib/services/symptoms-judge.ts): `<dir>/<sha256 of the RFC 8785 canonical request>.json` =
 * `{ key, model, request, reply, usage }`, written atomically. A cached request is never sent
 * again; its recorded usage is reported (`cached: true`), so tokens per case do not depend on
 * the cache.
 *
 * Environment: SYMTRACE_ATTRIBUTION_UPSTREAM (base URL ending in /v1), SYMTRACE_ATTRIBUTION_MODEL,
 * SYMTRACE_ATTRIBUTION_API_KEY (optional), SYMTRACE_ATTRIBUTION_CACHE_DIR (default
 * data/judge-cache/attribution); each falls back to its SYMTRACE_JUDGE_* twin.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { canonicalJson, sha256Tagged } from "../../bundle";
import type { AttributionLlm, LlmReply, LlmRequest } from "../../attribution";

export interface AttributionLlmSettings {
  upstream: string | null;
  model: string | null;
  apiKey: string | null;
  cacheDir: string;
}

/** Settings from the environment (empty = unset). @throws Error naming a variable that is not a URL */
export function attributionLlmSettings(env: NodeJS.ProcessEnv = process.env): AttributionLlmSettings {
  const get = (k: string) => (env[`SYMTRACE_ATTRIBUTION_${k}`] || env[`SYMTRACE_JUDGE_${k}`] || null) as string | null;
  const upstream = get("UPSTREAM");
  if (upstream !== null && !/^https?:\/\/\S+$/.test(upstream)) throw new Error(`bad environment: SYMTRACE_ATTRIBUTION_UPSTREAM must be an http(s) URL ending in /v1, got ${JSON.stringify(upstream)}`);
  return { upstream, model: get("MODEL"), apiKey: get("API_KEY"), cacheDir: path.resolve(env.SYMTRACE_ATTRIBUTION_CACHE_DIR || (env.SYMTRACE_JUDGE_CACHE_DIR ? path.join(env.SYMTRACE_JUDGE_CACHE_DIR, "attribution") : "data/judge-cache/attribution")) };
}

/** sha256 (hex) of the canonical request: the cache key. */
export function attributionCacheKey(request: LlmRequest): string {
  return sha256Tagged(canonicalJson(request)).slice("sha256:".length);
}

export interface CachedAttributionLlm extends AttributionLlm {
  stats: { httpCalls: number; cacheHits: number };
}

/**
 * A cached OpenAI-compatible client.
 * @throws (from complete) the SDK's error when the endpoint fails; nothing is cached then
 */
export function createAttributionLlm(o: { upstream: string; model: string; apiKey?: string | null; cacheDir: string }): CachedAttributionLlm {
  const client = new OpenAI({ baseURL: o.upstream, apiKey: o.apiKey || "none", maxRetries: 2 });
  const stats = { httpCalls: 0, cacheHits: 0 };
  return {
    model: o.model,
    stats,
    async complete(request): Promise<LlmReply> {
      const key = attributionCacheKey(request);
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
      const res = await client.chat.completions.create({ model: request.model, temperature: request.temperature, messages: request.messages });
      const text = res.choices[0]?.message?.content ?? "";
      const usage = { prompt: res.usage?.prompt_tokens ?? 0, completion: res.usage?.completion_tokens ?? 0 };
      mkdirSync(o.cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, model: request.model, request, reply: text, usage }) + "\n");
      renameSync(tmp, file);
      return { text, usage, cached: false };
    },
  };
}
