/**
 * Issue 10 item 10: `stream_options` is normalized away (lib/replay/normalize.ts), so a streamed
 * call recorded WITH `include_usage` matches a replayed request WITHOUT it — and the replay used to
 * serve the recorded usage-only final chunk (`choices: []`) to a client that never asked for it.
 * An unmodified openai SDK streams through the proxy in replay mode (scripted local
 * OpenAI-compatible server as the recording's upstream).
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession } from "../lib/replay";
import { echoPlanner, startScriptedOpenAI, type ScriptedOpenAI } from "../lib/testing/scripted-openai";
import { startBoundaryProxy } from ".";

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
const BODY = { model: "scripted-model", messages: [{ role: "user" as const, content: "Say hello." }], temperature: 0 };
let llm: ScriptedOpenAI;
let withUsage: ReplayBundle;
let recordedChunks: Chunk[];

/** Record one streamed call made with `stream_options`, through the record proxy. */
async function recordStream(streamOptions: { include_usage: boolean } | null): Promise<{ bundle: ReplayBundle; chunks: Chunk[] }> {
  const rec = new RecordSession({ id: "test/usage", task: { prompt: "hi" } });
  const proxy = await startBoundaryProxy({ session: rec, upstream: llm.url });
  const chunks: Chunk[] = [];
  try {
    const sdk = new OpenAI({ baseURL: proxy.llmUrl, apiKey: "k", maxRetries: 0 });
    const stream = await sdk.chat.completions.create({ ...BODY, stream: true, ...(streamOptions ? { stream_options: streamOptions } : {}) });
    for await (const c of stream) chunks.push(c);
  } finally {
    await proxy.close();
  }
  return { bundle: rec.toBundle({}), chunks };
}

/** Replay the bundle's one call through the SDK with the given stream options. */
async function replayStream(bundle: ReplayBundle, streamOptions: { include_usage: boolean } | null): Promise<Chunk[]> {
  const session = new ReplaySession({ source: bundle });
  const proxy = await startBoundaryProxy({ session });
  const got: Chunk[] = [];
  try {
    const sdk = new OpenAI({ baseURL: proxy.llmUrl, apiKey: "other", maxRetries: 0 });
    for await (const c of await sdk.chat.completions.create({ ...BODY, stream: true, ...(streamOptions ? { stream_options: streamOptions } : {}) })) got.push(c);
    expect(session.end()).toBeNull();
  } finally {
    await proxy.close();
  }
  return got;
}

beforeAll(async () => {
  llm = await startScriptedOpenAI({ respond: echoPlanner() });
  ({ bundle: withUsage, chunks: recordedChunks } = await recordStream({ include_usage: true }));
});
afterAll(() => llm?.close());

describe("replay of a streamed call serves what the client asked for (stream_options.include_usage)", () => {
  test("the recording holds the usage-only final chunk", () => {
    const last = recordedChunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ total_tokens: expect.any(Number) });
    expect(withUsage.records[0].request).not.toHaveProperty("stream_options"); // normalized away
  });

  test("a client that did not ask for usage gets no chunk with empty choices, and the same content", async () => {
    const got = await replayStream(withUsage, null);
    expect(got.filter((c) => c.choices.length === 0)).toEqual([]);
    expect(got.every((c) => c.usage === undefined || c.usage === null)).toBe(true);
    expect(got).toEqual(recordedChunks.filter((c) => c.choices.length > 0));
    const text = (cs: Chunk[]) => cs.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    expect(text(got)).toBe(text(recordedChunks));
    expect(text(got).length).toBeGreaterThan(0);
  });

  test("a client that asked for usage still gets it, exactly as recorded", async () => {
    expect(await replayStream(withUsage, { include_usage: true })).toEqual(recordedChunks);
  });

  test("include_usage: false is the same as absent; a recording without usage replays unchanged either way", async () => {
    expect((await replayStream(withUsage, { include_usage: false })).some((c) => c.choices.length === 0)).toBe(false);
    const { bundle: noUsage, chunks } = await recordStream(null);
    expect(chunks.some((c) => c.choices.length === 0)).toBe(false);
    expect(await replayStream(noUsage, null)).toEqual(chunks);
    // Asked for usage, recorded without: nothing to serve (the recording has no usage); documented in lib/replay/README.md.
    expect(await replayStream(noUsage, { include_usage: true })).toEqual(chunks);
  });
});
