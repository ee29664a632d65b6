import { describe, expect, test } from "vitest";
import { streamEventsFor, wantsStreamUsage, type SseEvent } from "./openai";

// The shape OpenAI streams with stream_options.include_usage: every chunk carries "usage": null,
// then one chunk with empty choices and the usage, then [DONE].
const WITH_USAGE: SseEvent[] = [
  { data: '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}],"usage":null}' },
  { data: '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}' },
  { data: '{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}' },
  { data: "[DONE]" },
];

describe("streamEventsFor: a recorded stream as the replaying client asked for it", () => {
  test.each([
    ["absent", {}, false],
    ["include_usage false", { stream_options: { include_usage: false } }, false],
    ["include_usage true", { stream_options: { include_usage: true } }, true],
    ["stream_options null", { stream_options: null }, false],
  ])("stream_options %s → wantsStreamUsage %s", (_n, req, wants) => {
    expect(wantsStreamUsage({ model: "m", stream: true, ...req })).toBe(wants);
  });

  test("without include_usage: the usage-only chunk is left out and usage:null keys removed; [DONE] kept", () => {
    const out = streamEventsFor(WITH_USAGE, { model: "m", stream: true });
    expect(out.map((e) => e.data)).toEqual([
      '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}',
      '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
      "[DONE]",
    ]);
  });

  test("with include_usage: unchanged, byte for byte; the input is never modified", () => {
    const copy = structuredClone(WITH_USAGE);
    expect(streamEventsFor(WITH_USAGE, { stream_options: { include_usage: true } })).toEqual(WITH_USAGE);
    streamEventsFor(WITH_USAGE, {});
    expect(WITH_USAGE).toEqual(copy);
  });

  test("events that are not JSON, carry no usage key, or an event/id field are kept as they are", () => {
    const ev: SseEvent[] = [{ data: "not json", event: "x", id: "1" }, { data: '{"choices":[{"delta":{"content":"a"}}]}' }, { data: '{"choices":[],"usage":null}' }];
    expect(streamEventsFor(ev, {})).toEqual([ev[0], ev[1], { data: '{"choices":[]}' }]);
  });
});
