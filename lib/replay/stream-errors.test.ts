/** Errors reported inside a stream, per protocol (stream-errors.ts, `ProtocolAdapter.streamError`). */
import { describe, expect, test } from "vitest";
import type { SseEvent } from "./openai";
import { protocolAdapter } from "./protocols";
import { anthropicStreamError, chatStreamError, responsesStreamError } from "./stream-errors";

const ev = (data: unknown, event?: string): SseEvent => ({ data: typeof data === "string" ? data : JSON.stringify(data), ...(event ? { event } : {}) });
const chunk = (content: string) => ev({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] });

describe("chatStreamError", () => {
  test("a data chunk with a top-level error: its type (else code) and message", () => {
    expect(chatStreamError([chunk("a"), ev({ error: { type: "server_error", code: null, message: "boom" } })])).toEqual({ type: "server_error", message: "boom" });
    expect(chatStreamError([ev({ error: { code: "rate_limit_exceeded", message: "slow down" } })])).toEqual({ type: "rate_limit_exceeded", message: "slow down" });
    expect(chatStreamError([ev({ error: "plain text" })])).toEqual({ type: "stream_error", message: "plain text" });
  });
  test("an event named error, JSON or not", () => {
    expect(chatStreamError([ev({ message: "bad", type: "invalid_request_error" }, "error")])).toEqual({ type: "invalid_request_error", message: "bad" });
    expect(chatStreamError([ev("upstream fell over", "error")])).toEqual({ type: "stream_error", message: "upstream fell over" });
  });
  test("a normal stream (chunks, finish, usage, [DONE]) has none", () => {
    expect(chatStreamError([chunk("a"), ev({ object: "chat.completion.chunk", choices: [], usage: { total_tokens: 3 } }), ev("[DONE]")])).toBeNull();
    expect(chatStreamError([])).toBeNull();
  });
});

describe("responsesStreamError", () => {
  test("type: error (code and message at the top level, or nested in error)", () => {
    expect(responsesStreamError([ev({ type: "response.created", response: { status: "in_progress" } }), ev({ type: "error", code: "server_error", message: "overloaded", param: null }, "error")])).toEqual({ type: "server_error", message: "overloaded" });
    expect(responsesStreamError([ev({ type: "error", error: { type: "invalid_request_error", code: "bad_input", message: "no" } })])).toEqual({ type: "invalid_request_error", message: "no" });
    expect(responsesStreamError([ev({ type: "error", code: null, message: "unknown" })])).toEqual({ type: "error", message: "unknown" });
  });
  test("response.failed: the error in response.error", () => {
    expect(responsesStreamError([ev({ type: "response.failed", response: { status: "failed", error: { code: "rate_limit_exceeded", message: "Rate limit reached" } } }, "response.failed")])).toEqual({ type: "rate_limit_exceeded", message: "Rate limit reached" });
    expect(responsesStreamError([ev({ type: "response.failed", response: { status: "failed", error: null } })])).toEqual({ type: "response_failed", message: "the response failed (response.failed)" });
  });
  test("a completed or incomplete response is no error (response.error null)", () => {
    expect(responsesStreamError([ev({ type: "response.output_text.delta", delta: "hi" }), ev({ type: "response.completed", response: { status: "completed", error: null } })])).toBeNull();
    expect(responsesStreamError([ev({ type: "response.incomplete", response: { status: "incomplete", error: null, incomplete_details: { reason: "max_output_tokens" } } })])).toBeNull();
  });
});

describe("anthropicStreamError", () => {
  test("event: error with the upstream's error type and message", () => {
    const events = [
      ev({ type: "message_start", message: { id: "m", content: [] } }, "message_start"),
      ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial ans" } }, "content_block_delta"),
      ev({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error"),
    ];
    expect(anthropicStreamError(events)).toEqual({ type: "overloaded_error", message: "Overloaded" });
    // the type field alone (no event name) counts too
    expect(anthropicStreamError([ev({ type: "error", error: { type: "api_error", message: "Internal" } })])).toEqual({ type: "api_error", message: "Internal" });
  });
  test("a complete message stream has none", () => {
    expect(anthropicStreamError([ev({ type: "message_start" }, "message_start"), ev({ type: "message_delta", delta: { stop_reason: "end_turn" } }, "message_delta"), ev({ type: "message_stop" }, "message_stop")])).toBeNull();
  });
});

test("ProtocolAdapter.streamError is the protocol's rule", () => {
  const anthropicErr = [ev({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error")];
  expect(protocolAdapter("anthropic-messages").streamError(anthropicErr)).toEqual({ type: "overloaded_error", message: "Overloaded" });
  expect(protocolAdapter(null).streamError([ev({ error: { type: "server_error", message: "x" } })])).toEqual({ type: "server_error", message: "x" });
  expect(protocolAdapter("openai-responses").streamError([ev({ type: "response.failed", response: { error: { code: "c", message: "m" } } })])).toEqual({ type: "c", message: "m" });
  expect(protocolAdapter("openai-embeddings").streamError([ev({ data: [] })])).toBeNull();
});
