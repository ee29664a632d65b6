/**
 * Errors a provider reports INSIDE a streamed answer (HTTP 200, then an error event), per
 * protocol. The proxy asks `ProtocolAdapter.streamError(events)` once the stream has ended; a
 * non-null answer makes the boundary a failed call (llm_call status `error`, no agent_action),
 * because the SDK of the MAS throws on such an event and the MAS gets no message. Pure.
 *
 *   openai-chat        a data chunk with a top-level `error` (`{ error: { type?, code?, message } }`),
 *                      or an SSE event named `error` (both make the openai SDK throw)
 *   openai-responses   a `type: "error"` event (`{ type, code, message }`, or the error nested
 *                      in `error`), a `response.failed` event (the error in `response.error`,
 *                      `{ code, message }`), or a data chunk with a top-level `error`
 *   anthropic-messages an `event: error` / `type: "error"` event (`{ type: "error", error: { type, message } }`)
 * The first error event wins. `type` is the upstream's error type (Responses: its `code`),
 * `message` its message (the raw data when the event is not JSON).
 */
import type { SseEvent } from "./openai";

/** An error reported inside a stream. */
export interface StreamError {
  type: string;
  message: string;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** `{ type, message }` of an error object (`type` / `code`; a bare string is the message). */
function errorOf(err: unknown, fallbackType: string, raw: string): StreamError {
  if (typeof err === "string") return { type: fallbackType, message: err };
  if (!isRec(err)) return { type: fallbackType, message: raw };
  const type = str(err.type) !== "error" ? (str(err.type) ?? str(err.code)) : str(err.code);
  return { type: type ?? fallbackType, message: str(err.message) ?? raw };
}

/** Chat completions (and the generic rule): a top-level `error` in a data chunk, or `event: error`. */
export function chatStreamError(events: readonly SseEvent[]): StreamError | null {
  for (const e of events) {
    if (e.data === "[DONE]") continue;
    const d = parse(e.data);
    if (isRec(d) && d.error !== undefined && d.error !== null) return errorOf(d.error, "stream_error", e.data);
    if (e.event === "error") return errorOf(d, "stream_error", e.data);
  }
  return null;
}

/** Responses API: `type: "error"` events, `response.failed`, or a top-level `error`. */
export function responsesStreamError(events: readonly SseEvent[]): StreamError | null {
  for (const e of events) {
    const d = parse(e.data);
    const type = isRec(d) ? d.type : undefined;
    if (type === "response.failed" || e.event === "response.failed") {
      const r = isRec(d) && isRec(d.response) ? d.response : {};
      const err = isRec(r.error) ? r.error : {};
      return { type: str(err.code) ?? str(err.type) ?? "response_failed", message: str(err.message) ?? "the response failed (response.failed)" };
    }
    if (type === "error" || e.event === "error") {
      const err = isRec(d) && isRec(d.error) ? d.error : d;
      return errorOf(err, "error", e.data);
    }
    if (isRec(d) && d.error !== undefined && d.error !== null && type !== "response.completed" && type !== "response.incomplete") return errorOf(d.error, "stream_error", e.data);
  }
  return null;
}

/** Anthropic Messages: `event: error` (data `{ type: "error", error: { type, message } }`). */
export function anthropicStreamError(events: readonly SseEvent[]): StreamError | null {
  for (const e of events) {
    const d = parse(e.data);
    if (e.event === "error" || (isRec(d) && d.type === "error")) return errorOf(isRec(d) ? d.error : undefined, "error", e.data);
  }
  return null;
}
