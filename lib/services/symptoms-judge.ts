/**
 * The I/O side of the semantic judge of lib/symptoms: an OpenAI-compatible endpoint through the
 * `openai` SDK, with every call cached on disk by the sha256 of its canonical request (RFC 8785),
 * so running detection again makes no HTTP call.
 *
 * Environment: SYMTRACE_JUDGE_UPSTREAM (base URL ending in /v1), SYMTRACE_JUDGE_MODEL,
 * SYMTRACE_JUDGE_API_KEY (optional), SYMTRACE_JUDGE_CACHE_DIR (default data/judge-cache).
 * Cache file: `<dir>/<64 hex>.json` = `{ key, model, request, reply }`, written atomically
 * (temp file + rename).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { z } from "zod";
import { canonicalJson, sha256Tagged } from "../bundle";
import type { JudgeRequest, SymptomJudge } from "../symptoms";

const judgeEnvSchema = z.object({
  SYMTRACE_JUDGE_UPSTREAM: z.string().url("SYMTRACE_JUDGE_UPSTREAM must be a URL ending in /v1").optional(),
  SYMTRACE_JUDGE_MODEL: z.string().min(1).optional(),
  SYMTRACE_JUDGE_API_KEY: z.string().optional(),
  SYMTRACE_JUDGE_CACHE_DIR: z.string().optional(),
});

/** A bad judge variable (`variable` names it). */
export class JudgeSettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = "JudgeSettingsError";
  }
}

/**
 * Judge settings from the environment; `null` upstream/model when not configured (an empty
 * variable counts as unset).
 * @throws JudgeSettingsError naming a bad variable
 */
export function judgeSettings(source: NodeJS.ProcessEnv = process.env) {
  const set = Object.fromEntries(Object.keys(judgeEnvSchema.shape).map((k) => [k, source[k] === "" ? undefined : source[k]]));
  const r = judgeEnvSchema.safeParse(set);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new JudgeSettingsError(String(i.path[0]), `bad environment: ${String(i.path[0])}: ${i.message}`);
  }
  return {
    upstream: r.data.SYMTRACE_JUDGE_UPSTREAM ?? null,
    model: r.data.SYMTRACE_JUDGE_MODEL ?? null,
    apiKey: r.data.SYMTRACE_JUDGE_API_KEY ?? null,
    cacheDir: path.resolve(r.data.SYMTRACE_JUDGE_CACHE_DIR ?? "data/judge-cache"),
  };
}

/** A judge that counts its HTTP calls and cache hits. */
export interface CachedJudge extends SymptomJudge {
  stats: { httpCalls: number; cacheHits: number };
}

/** sha256 (hex, no tag) of the canonical JSON of a judge request: the cache key. */
export function judgeCacheKey(request: JudgeRequest): string {
  return sha256Tagged(canonicalJson(request)).slice("sha256:".length);
}

/**
 * An OpenAI-compatible judge with a file cache.
 * @param opts.upstream base URL ending in /v1; opts.model the judge model; opts.apiKey optional
 * @throws (from complete) the SDK's error when the endpoint fails; nothing is cached then
 */
export function createOpenAiJudge(opts: { upstream: string; model: string; apiKey?: string | null; cacheDir: string }): CachedJudge {
  const client = new OpenAI({ baseURL: opts.upstream, apiKey: opts.apiKey || "none", maxRetries: 1 });
  const stats = { httpCalls: 0, cacheHits: 0 };
  return {
    model: opts.model,
    stats,
    async complete(request) {
      const key = judgeCacheKey(request);
      const file = path.join(opts.cacheDir, `${key}.json`);
      try {
        const cached = JSON.parse(readFileSync(file, "utf8")) as { reply?: unknown };
        if (typeof cached.reply === "string") {
          stats.cacheHits++;
          return cached.reply;
        }
      } catch {
        /* not cached */
      }
      stats.httpCalls++;
      const res = await client.chat.completions.create({ model: request.model, temperature: request.temperature, messages: request.messages });
      const reply = res.choices[0]?.message?.content ?? "";
      mkdirSync(opts.cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, model: request.model, request, reply }) + "\n");
      renameSync(tmp, file);
      return reply;
    },
    forget(request) {
      rmSync(path.join(opts.cacheDir, `${judgeCacheKey(request)}.json`), { force: true });
    },
  };
}
