/**
 * Request normalization (the bundle v1 spec §Hashing; seeds/000 Appendix A.2): the
 * recorder stores every boundary request already normalized and the replayer applies the same
 * normalization before hashing, so fields that legitimately change between runs of the same
 * logical request never cause a divergence. The normalization is named in
 * `config.replay.normalization`.
 */
import type { Boundary } from "../bundle";
import { ANTHROPIC_MESSAGES_V1, normalizeAnthropicRequest } from "./anthropic";
import { OPENAI_EMBEDDINGS_V1, normalizeEmbeddingsRequest } from "./embeddings";
import { OPENAI_RESPONSES_V1, normalizeResponsesRequest } from "./responses";

/**
 * Normalizations this module knows. `none` is the identity (bundles from other tools). The
 * bundle-level name (`config.replay.normalization`) is the chat one; a record of another protocol
 * (`meta.protocol`) is normalized by that protocol's own named normalization
 * ({@link PROTOCOL_NORMALIZATIONS}), unless the bundle says `none`.
 */
export const NORMALIZATIONS = ["openai-chat-v1", "none", OPENAI_RESPONSES_V1, ANTHROPIC_MESSAGES_V1, OPENAI_EMBEDDINGS_V1, "unknown-route-v1"] as const;
export type NormalizationName = (typeof NORMALIZATIONS)[number];
export const DEFAULT_NORMALIZATION: NormalizationName = "openai-chat-v1";

/**
 * Top-level chat-completions fields dropped by `openai-chat-v1`: per-run identities, client
 * bookkeeping and stream options. Everything else (model, messages, tools, tool_choice,
 * temperature, top_p, max_tokens, response_format, stream, seed, ...) is kept and hashed.
 */
export const OPENAI_CHAT_V1_DROPPED = [
  "user",
  "stream_options",
  "metadata",
  "request_id",
  "store",
  "prompt_cache_key",
  "safety_identifier",
] as const;

const DROPPED = new Set<string>(OPENAI_CHAT_V1_DROPPED);

/** True when `name` is a normalization this module implements. */
export function isNormalizationName(name: unknown): name is NormalizationName {
  return typeof name === "string" && (NORMALIZATIONS as readonly string[]).includes(name);
}

/**
 * Normalize one boundary request.
 * - `llm` + `openai-chat-v1`: a shallow copy of the chat-completions body without the fields in
 *   `OPENAI_CHAT_V1_DROPPED` (top level only; messages are kept verbatim).
 * - `tool` + `openai-chat-v1`: `{ tool, arguments }` as given (the gateway already builds it).
 * - `llm` of another `protocol` (openai-responses, anthropic-messages, openai-embeddings,
 *   unknown-route): that protocol's normalization (responses.ts, anthropic.ts, embeddings.ts;
 *   `unknown-route-v1` is the identity on `{ method, path, body }`).
 * - `none`: the request unchanged.
 * Normalization commutes with `appendGuidance` (it never touches `messages`).
 * @param boundary "llm" | "tool"
 * @param request the request as the MAS sent it (parsed JSON)
 * @param name the normalization (default `openai-chat-v1`)
 * @param protocol the record's protocol (`meta.protocol`; default openai-chat)
 * @returns a new JSON value; the input is not modified
 * @throws Error for an unknown normalization name
 */
export function normalizeRequest(boundary: Boundary, request: unknown, name: string = DEFAULT_NORMALIZATION, protocol?: string | null): unknown {
  if (!isNormalizationName(name)) {
    throw new Error(`unknown request normalization "${name}" (known: ${NORMALIZATIONS.join(", ")})`);
  }
  if (name === "none" || boundary !== "llm") return request;
  if (protocol !== undefined && protocol !== null && protocol !== "openai-chat") {
    const own = PROTOCOL_NORMALIZATIONS[protocol];
    if (!own) throw new Error(`unknown protocol "${protocol}" (known: openai-chat, ${Object.keys(PROTOCOL_NORMALIZATIONS).join(", ")})`);
    return NORMALIZERS[own](request);
  }
  if (name !== "openai-chat-v1") return NORMALIZERS[name](request);
  if (typeof request !== "object" || request === null || Array.isArray(request)) return request;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request as Record<string, unknown>)) {
    if (v !== undefined && !DROPPED.has(k)) out[k] = v;
  }
  return out;
}

/** The named normalization of each non-chat protocol (README "Normalizations per protocol"). */
export const PROTOCOL_NORMALIZATIONS: Record<string, Exclude<NormalizationName, "none" | "openai-chat-v1">> = {
  "openai-responses": OPENAI_RESPONSES_V1,
  "anthropic-messages": ANTHROPIC_MESSAGES_V1,
  "openai-embeddings": OPENAI_EMBEDDINGS_V1,
  "unknown-route": "unknown-route-v1",
};

const NORMALIZERS: Record<Exclude<NormalizationName, "none" | "openai-chat-v1">, (r: unknown) => unknown> = {
  [OPENAI_RESPONSES_V1]: normalizeResponsesRequest,
  [ANTHROPIC_MESSAGES_V1]: normalizeAnthropicRequest,
  [OPENAI_EMBEDDINGS_V1]: normalizeEmbeddingsRequest,
  "unknown-route-v1": (r: unknown) => r,
};
