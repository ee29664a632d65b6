/**
 * Recording defects D2 and D1 (user trial): a stream that fails in the middle, and a stream the
 * MAS abandons. The MAS is the real `openai` / `@anthropic-ai/sdk` client; the upstream a
 * test-only scripted SSE server (lib/testing/scripted-sse.ts), no real model.
 *
 * D2: an error event after HTTP 200 (Anthropic `event: error`, a chat chunk with a top-level
 * `error`, Responses `type: "error"` and `response.failed`) was recorded as a successful call with
 * an agent_action holding the partial text. Now: llm_call status error with the upstream's error
 * type and message, a failed boundary for `record`, no agent_action; the replay serves the same
 * events (the SDK throws again) without divergence.
 * D1: a stream the MAS aborted was read to its end and recorded as complete and successful, its
 * end observed after the MAS's next call began. Now: the proxy aborts the upstream, records the
 * events written before the close, and completes the call then with `ClientAborted`.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession, type SseEvent } from "../lib/replay";
import { startScriptedSse, type ScriptedSse, type SseAnswer } from "../lib/testing/scripted-sse";
import { waitFor } from "../lib/testing/wait-for";
import { failedBoundaryCount } from "../cli/replay";
import { startBoundaryProxy } from ".";

let upstream: ScriptedSse | null = null;
afterEach(async () => {
  await upstream?.close();
  upstream = null;
});

const j = (v: unknown) => JSON.stringify(v);
const ev = (data: unknown, event?: string): SseEvent => ({ data: typeof data === "string" ? data : j(data), ...(event ? { event } : {}) });

const chatChunk = (content: string) => ev({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "scripted", choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const chatDone = () => ev({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "scripted", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });

const ANTHROPIC_EVENTS: SseEvent[] = [
  ev({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "scripted", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 0 } } }, "message_start"),
  ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
  ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial ans" } }, "content_block_delta"),
  ev({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error"),
];
const CHAT_EVENTS: SseEvent[] = [chatChunk("Partial"), chatChunk(" ans"), ev({ error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } })];
const responseObj = (status: string, extra: Record<string, unknown> = {}) => ({ id: "resp_1", object: "response", created_at: 1, status, model: "scripted", output: [], error: null, ...extra });
const RESPONSES_ERROR_EVENTS: SseEvent[] = [
  ev({ type: "response.created", sequence_number: 0, response: responseObj("in_progress") }, "response.created"),
  ev({ type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: "Partial ans" }, "response.output_text.delta"),
  ev({ type: "error", sequence_number: 2, code: "server_error", message: "The model is overloaded", param: null }, "error"),
];
const RESPONSES_FAILED_EVENTS: SseEvent[] = [
  ev({ type: "response.created", sequence_number: 0, response: responseObj("in_progress") }, "response.created"),
  ev({ type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: "Partial ans" }, "response.output_text.delta"),
  ev({ type: "response.failed", sequence_number: 2, response: responseObj("failed", { error: { code: "rate_limit_exceeded", message: "Rate limit reached" } }) }, "response.failed"),
];

type Mas = (baseURL: string, anthropicURL: string) => Promise<void>;
const chatMas: Mas = async (baseURL) => {
  const sdk = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 });
  for await (const c of await sdk.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "hi" }], stream: true })) void c;
};
const responsesMas: Mas = async (baseURL) => {
  const sdk = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 });
  for await (const e of await sdk.responses.create({ model: "scripted", input: "hi", stream: true })) {
    // What an application does with these events (the Agents SDK throws on both).
    if (e.type === "error") throw new Error(`stream error ${e.code}: ${e.message}`);
    if (e.type === "response.failed") throw new Error(`response failed: ${e.response.error?.message}`);
  }
};
const anthropicMas: Mas = async (_baseURL, anthropicURL) => {
  const sdk = new Anthropic({ baseURL: anthropicURL, apiKey: "k", maxRetries: 0 });
  for await (const e of await sdk.messages.create({ model: "scripted", max_tokens: 64, messages: [{ role: "user", content: "hi" }], stream: true })) void e;
};

/** Run `mas` through a record proxy; returns the bundle and what the MAS threw. */
async function record(answer: (path: string, body: unknown, n: number) => SseAnswer, mas: Mas): Promise<{ bundle: ReplayBundle; thrown: unknown }> {
  upstream = await startScriptedSse(answer);
  const session = new RecordSession({ id: "test/stream-errors", task: { prompt: "hi" } });
  const proxy = await startBoundaryProxy({ session, upstream: `${upstream.url}/v1`, anthropicUpstream: upstream.url });
  let thrown: unknown = null;
  try {
    await mas(proxy.llmUrl, proxy.anthropicUrl).catch((e: unknown) => (thrown = e));
    await proxy.idle();
    return { bundle: session.toBundle({}), thrown };
  } finally {
    await proxy.close();
  }
}

/** Replay the bundle with `mas`: the divergence report (null = none) and what the MAS threw. */
async function replay(bundle: ReplayBundle, mas: Mas): Promise<{ divergence: unknown; thrown: unknown }> {
  const session = new ReplaySession({ source: JSON.parse(JSON.stringify(bundle)) as ReplayBundle });
  const proxy = await startBoundaryProxy({ session });
  let thrown: unknown = null;
  try {
    await mas(proxy.llmUrl, proxy.anthropicUrl).catch((e: unknown) => (thrown = e));
    await proxy.idle();
    return { divergence: session.end(), thrown };
  } finally {
    await proxy.close();
  }
}

describe("D2: an error event inside a stream fails the call", () => {
  test.each([
    ["anthropic event: error", ANTHROPIC_EVENTS, anthropicMas, { type: "overloaded_error", message: "Overloaded" }, /Overloaded/],
    ["chat chunk with a top-level error", CHAT_EVENTS, chatMas, { type: "server_error", message: "The server had an error while processing your request." }, /server had an error/],
    ["responses type: error", RESPONSES_ERROR_EVENTS, responsesMas, { type: "server_error", message: "The model is overloaded" }, /overloaded/],
    ["responses response.failed", RESPONSES_FAILED_EVENTS, responsesMas, { type: "rate_limit_exceeded", message: "Rate limit reached" }, /Rate limit reached/],
  ] as const)("%s: llm_call error with the upstream's type and message, no agent_action, a failed boundary; replays", async (_name, events, mas, error, thrownRe) => {
    const { bundle, thrown } = await record(() => ({ events: [...events] }), mas);
    expect(String(thrown)).toMatch(thrownRe); // the MAS got no message
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    const llm = bundle.graph.nodes.find((n) => n.type === "llm_call")!;
    expect(llm.status).toBe("error");
    expect(llm.error).toEqual(error);
    expect(bundle.records[0].meta).toMatchObject({ error });
    expect((bundle.records[0].response as { events: SseEvent[] }).events).toEqual(events); // the whole stream, error event included
    expect(bundle.graph.nodes.filter((n) => n.type === "agent_action")).toEqual([]);
    expect(failedBoundaryCount(bundle)).toBe(1);

    const r = await replay(bundle, mas);
    expect(r.divergence).toBeNull();
    expect(String(r.thrown)).toMatch(thrownRe);
  });

  test("a stream without an error event is still a success with its agent_action", async () => {
    const ok = [chatChunk("Hello"), chatChunk(" there"), chatDone(), ev("[DONE]")];
    const { bundle, thrown } = await record(() => ({ events: ok }), chatMas);
    expect(thrown).toBeNull();
    expect(bundle.graph.nodes.find((n) => n.type === "llm_call")!.status).toBe("success");
    expect(bundle.graph.nodes.filter((n) => n.type === "agent_action").map((n) => n.content)).toEqual([{ role: "assistant", content: "Hello there" }]);
    expect(failedBoundaryCount(bundle)).toBe(0);
  });
});

describe("D1: a stream the MAS abandons", () => {
  const CHUNKS = 15; // + [DONE] = 16 events
  const longStream = (): SseAnswer => ({ events: [...Array.from({ length: CHUNKS - 1 }, (_, i) => chatChunk(`w${i} `)), chatDone(), ev("[DONE]")], delayMs: 60 });
  const shortStream = (): SseAnswer => ({ events: [chatChunk("Second"), chatChunk(" answer"), chatDone(), ev("[DONE]")] });

  /** Reads 3 chunks of the first call, aborts it, then makes a second (streamed) call read to its end. */
  const abortingMas = (seen: { first: string[]; second: string }) => async (baseURL: string) => {
    const sdk = new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 });
    const ac = new AbortController();
    const stream = await sdk.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "Write a long answer." }], stream: true }, { signal: ac.signal });
    try {
      for await (const c of stream) {
        seen.first.push(c.choices[0]?.delta?.content ?? "");
        if (seen.first.length === 3) {
          ac.abort();
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof OpenAI.APIUserAbortError)) throw e;
    }
    for await (const c of await sdk.chat.completions.create({ model: "scripted", messages: [{ role: "user", content: "Now something short." }], stream: true })) seen.second += c.choices[0]?.delta?.content ?? "";
  };

  test("recorded as ClientAborted with the events written before the close; the upstream is aborted; the calls are sequential; replays", async () => {
    const seen = { first: [] as string[], second: "" };
    const { bundle, thrown } = await record((_p, _b, n) => (n === 0 ? longStream() : shortStream()), abortingMas(seen));
    expect(thrown).toBeNull();
    expect(seen.first).toEqual(["w0 ", "w1 ", "w2 "]);
    expect(seen.second).toBe("Second answer");
    // The proxy stopped reading the upstream: it saw the close before writing the whole stream.
    await waitFor("the upstream sees the proxy close the first stream", async () => upstream!.served[0].aborted);
    expect(upstream!.served[0].written).toBeLessThan(CHUNKS + 1);
    expect(upstream!.served[0].ended).toBe(false);

    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    expect(bundle.records).toHaveLength(2);
    const [first, second] = bundle.records;
    expect(first.meta?.error).toEqual({ type: "ClientAborted", message: "the MAS closed the stream after 3 events" });
    expect((first.response as { events: SseEvent[] }).events).toHaveLength(3);
    const llm0 = bundle.graph.nodes.find((n) => n.id === first.nodeId)!;
    expect(llm0.status).toBe("error");
    expect(llm0.error).toEqual({ type: "ClientAborted", message: "the MAS closed the stream after 3 events" });
    const actions = bundle.graph.nodes.filter((n) => n.type === "agent_action");
    expect(actions.map((n) => n.content)).toEqual([{ role: "assistant", content: "Second answer" }]);
    expect(bundle.graph.edges.some((e) => e.from === first.nodeId && e.to === actions[0].id)).toBe(false);
    expect(failedBoundaryCount(bundle)).toBe(1);
    // Observed order: the first call ended before the second began (was {0,2} and {1,3}).
    const o0 = first.meta?.observed as { start: number; end: number };
    const o1 = second.meta?.observed as { start: number; end: number };
    expect(o0.end).toBeLessThan(o1.start);
    expect(second.meta?.error).toBeUndefined();
    expect((second.response as { events: SseEvent[] }).events).toHaveLength(4);

    // Replay: the partial stream is served; the MAS reads its 3 chunks, aborts, and goes on.
    const again = { first: [] as string[], second: "" };
    const r = await replay(bundle, abortingMas(again));
    expect(r.thrown).toBeNull();
    expect(r.divergence).toBeNull();
    expect(again).toEqual(seen);
  });
});
