/**
 * OpenAI Embeddings (`POST /v1/embeddings`): the named normalization `openai-embeddings-v1`.
 * Request `{ model, input: string | string[] | token arrays, encoding_format?, dimensions?, user? }`,
 * response `{ object: "list", data: [{ object: "embedding", index, embedding }], model, usage }`.
 * An embeddings call is an `llm` boundary (a model call) with no agent_action: it produces a
 * vector, not a message, and takes no guidance. Pure.
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Name of the embeddings normalization. */
export const OPENAI_EMBEDDINGS_V1 = "openai-embeddings-v1";

/** Dropped by `openai-embeddings-v1`: `user` (the end-user id, no effect on the vector). */
export const OPENAI_EMBEDDINGS_V1_DROPPED = ["user"] as const;
const DROPPED = new Set<string>(OPENAI_EMBEDDINGS_V1_DROPPED);

/** `openai-embeddings-v1`: a shallow copy without {@link OPENAI_EMBEDDINGS_V1_DROPPED} and `undefined` values. */
export function normalizeEmbeddingsRequest(request: unknown): unknown {
  if (!isRec(request)) return request;
  const out: Rec = {};
  for (const [k, v] of Object.entries(request)) if (v !== undefined && !DROPPED.has(k)) out[k] = v;
  return out;
}

/** Inputs of an embeddings request (a string or a single token array counts as one). */
export function embeddingsInputCount(request: unknown): number {
  if (!isRec(request)) return 0;
  const i = request.input;
  if (typeof i === "string") return 1;
  if (Array.isArray(i)) return i.length > 0 && typeof i[0] === "number" ? 1 : i.length;
  return 0;
}
