/**
 * Issue 21 item 1: the per-protocol pieces of lib/replay (normalizations, q ⊕ Δ, the
 * previous_response_id expansion, where a tool result sits in a request).
 */
import { describe, expect, test } from "vitest";
import { appendAnthropicGuidance } from "./anthropic";
import { normalizeRequest } from "./normalize";
import { appendGuidanceFor, protocolAdapter, toolResultAt } from "./protocols";
import { expandItemReferences, expandPreviousResponse } from "./responses";

describe("named normalizations per protocol", () => {
  test("openai-responses-v1 drops bookkeeping, keeps previous_response_id and input verbatim", () => {
    const q = { model: "m", input: [{ role: "user", content: "x", metadata: 1 }], previous_response_id: "resp_1", store: true, metadata: { a: 1 }, user: "u", prompt_cache_key: "k", prompt_cache_retention: "24h", safety_identifier: "s", stream_options: { include_obfuscation: false }, stream: true };
    expect(normalizeRequest("llm", q, "openai-chat-v1", "openai-responses")).toEqual({ model: "m", input: [{ role: "user", content: "x", metadata: 1 }], previous_response_id: "resp_1", stream: true });
  });
  test("anthropic-messages-v1 drops metadata only", () => {
    expect(normalizeRequest("llm", { model: "c", max_tokens: 5, metadata: { user_id: "u" }, messages: [], system: "s" }, "openai-chat-v1", "anthropic-messages")).toEqual({ model: "c", max_tokens: 5, messages: [], system: "s" });
  });
  test("openai-embeddings-v1 drops user; `none` bundles keep everything", () => {
    expect(normalizeRequest("llm", { model: "e", input: "a", user: "u" }, "openai-chat-v1", "openai-embeddings")).toEqual({ model: "e", input: "a" });
    expect(normalizeRequest("llm", { model: "e", input: "a", user: "u" }, "none", "openai-embeddings")).toEqual({ model: "e", input: "a", user: "u" });
  });
  test("an unknown protocol is a clear error", () => {
    expect(() => normalizeRequest("llm", {}, "openai-chat-v1", "grpc")).toThrow(/unknown protocol "grpc"/);
  });
});

describe("q ⊕ Δ per protocol", () => {
  test("Responses: a user input item at the end (a string input becomes an item first)", () => {
    expect(appendGuidanceFor({ model: "m", input: "hi" }, "G", "openai-responses")).toEqual({ model: "m", input: [{ role: "user", content: "hi" }, { role: "user", content: "G" }] });
  });
  test("Anthropic: a text block after the tool_result blocks of the last user turn", () => {
    const q = { messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "r" }] }] };
    expect(appendAnthropicGuidance(q, "G").messages[1]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "r" }, { type: "text", text: "G" }] });
    expect(appendAnthropicGuidance({ messages: [{ role: "assistant", content: "a" }] }, "G").messages[1]).toEqual({ role: "user", content: "G" });
  });
  test("embeddings take no guidance", () => {
    expect(() => appendGuidanceFor({ input: "x" }, "G", "openai-embeddings")).toThrow(/takes no guidance/);
  });
});

describe("previous_response_id expansion (the live upstream never saw a replayed response)", () => {
  test("a two-step chain is expanded oldest first; an unknown id is left alone", () => {
    const recorded = new Map([
      ["resp_1", { request: { input: "Q" }, response: { id: "resp_1", output: [{ type: "function_call", call_id: "c", name: "f", arguments: "{}" }] } }],
      ["resp_2", { request: { previous_response_id: "resp_1", input: [{ type: "function_call_output", call_id: "c", output: "R" }] }, response: { id: "resp_2", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "A" }] }] } }],
    ]);
    const out = expandPreviousResponse({ model: "m", previous_response_id: "resp_2", input: "next" }, (id) => recorded.get(id) ?? null);
    expect(out).toEqual({
      model: "m",
      input: [
        { role: "user", content: "Q" },
        { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "c", output: "R" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "A" }] },
        { role: "user", content: "next" },
      ],
    });
    const live = { model: "m", previous_response_id: "resp_live", input: [] };
    expect(expandPreviousResponse(live, (id) => recorded.get(id) ?? null)).toBe(live);
  });
});

test("item_reference inputs naming recorded output items are replaced by them (AI SDK with store)", () => {
  const fc = { id: "fc_1", type: "function_call", call_id: "c", name: "f", arguments: "{}" };
  const q = { model: "m", input: [{ role: "user", content: "Q" }, { type: "item_reference", id: "fc_1" }, { type: "function_call_output", call_id: "c", output: "R" }, { type: "item_reference", id: "live_9" }] };
  expect(expandItemReferences(q, (id) => (id === "fc_1" ? fc : null)).input).toEqual([{ role: "user", content: "Q" }, fc, { type: "function_call_output", call_id: "c", output: "R" }, { type: "item_reference", id: "live_9" }]);
});

describe("toolResultAt: is a divergent pointer inside a tool result?", () => {
  test.each([
    ["openai-chat", { messages: [{ role: "user", content: "q" }, { role: "tool", tool_call_id: "call_1", content: "r" }] }, "/messages/1/content", "call_1"],
    ["openai-chat", { messages: [{ role: "user", content: "q" }, { role: "tool", tool_call_id: "call_1", content: "r" }] }, "/messages/0/content", null],
    ["openai-responses", { input: [{ type: "function_call_output", call_id: "c9", output: "r" }] }, "/input/0/output", "c9"],
    ["anthropic-messages", { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "r" }] }] }] }, "/messages/0/content/0/content/0/text", "toolu_1"],
  ])("%s %s", (p, q, ptr, id) => {
    expect(toolResultAt(q, ptr, p)?.callId ?? null).toBe(id);
  });
});

describe("the turns a request carries (content edges, issue 21 item 4)", () => {
  test("chat: assistant (tool-call ids, text), tool (its call id), others by text", () => {
    const q = { messages: [{ role: "system", content: "S" }, { role: "user", content: [{ type: "text", text: "U" }] }, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: "c1", content: "R" }] };
    expect(protocolAdapter("openai-chat").turns(q)).toEqual([
      { role: "other", callIds: [], refs: [], text: "S" },
      { role: "other", callIds: [], refs: [], text: "U" },
      { role: "assistant", callIds: ["c1"], refs: [], text: "" },
      { role: "tool", callIds: ["c1"], refs: [], text: "R" },
    ]);
  });
  test("Responses: instructions, previous_response_id, messages, function calls and outputs, item references", () => {
    const q = {
      instructions: "I",
      previous_response_id: "resp_1",
      input: [
        { role: "user", content: [{ type: "input_text", text: "U" }] },
        { type: "message", role: "assistant", id: "msg_1", content: [{ type: "output_text", text: "A" }] },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: [{ type: "input_text", text: "R" }] },
        { type: "item_reference", id: "msg_0" },
      ],
    };
    expect(protocolAdapter("openai-responses").turns(q)).toEqual([
      { role: "other", callIds: [], refs: [], text: "I" },
      { role: "assistant", callIds: [], refs: ["resp_1"], text: "" },
      { role: "other", callIds: [], refs: [], text: "U" },
      { role: "assistant", callIds: [], refs: ["msg_1"], text: "A" },
      { role: "assistant", callIds: ["call_1"], refs: ["fc_1"], text: "" },
      { role: "tool", callIds: ["call_1"], refs: [], text: "R" },
      { role: "assistant", callIds: [], refs: ["msg_0"], text: "" },
    ]);
    expect(protocolAdapter("openai-responses").turns({ input: "just text" })).toEqual([{ role: "other", callIds: [], refs: [], text: "just text" }]);
  });
  test("Anthropic: system, assistant tool_use ids and text, each tool_result block, user text", () => {
    const q = {
      system: [{ type: "text", text: "S" }],
      messages: [
        { role: "user", content: "U" },
        { role: "assistant", content: [{ type: "text", text: "A" }, { type: "tool_use", id: "tu_1", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: [{ type: "text", text: "R" }] }, { type: "text", text: "more" }] },
      ],
    };
    expect(protocolAdapter("anthropic-messages").turns(q)).toEqual([
      { role: "other", callIds: [], refs: [], text: "S" },
      { role: "other", callIds: [], refs: [], text: "U" },
      { role: "assistant", callIds: ["tu_1"], refs: [], text: "A" },
      { role: "tool", callIds: ["tu_1"], refs: [], text: "R" },
      { role: "other", callIds: [], refs: [], text: "more" },
    ]);
  });
  test("embeddings and unknown routes carry nothing", () => {
    expect(protocolAdapter("openai-embeddings").turns({ input: ["a text of some length"] })).toEqual([]);
    expect(protocolAdapter("unknown-route").turns({ method: "POST", path: "/x" })).toEqual([]);
  });
});
