/**
 * Multimodal requests through the proxy (issue 10 item 6): a vision call made with the openai SDK
 * is recorded with every content part exactly as sent (the image part included), and replaying
 * the recording with the same request matches it (served from the recording, no divergence).
 */
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { validateBundle } from "../lib/bundle";
import { RecordSession, ReplaySession } from "../lib/replay";
import { startScriptedOpenAI } from "../lib/testing/scripted-openai";
import { startBoundaryProxy } from "./index";

// A 1x1 PNG plus padding bytes, base64: an image part as a vision client sends it.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const content = [
  { type: "text", text: "What is in this picture?" },
  { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
  { type: "image_url", image_url: { url: "https://example.org/cat.jpg" } },
] as const;

describe("vision request through the proxy", () => {
  test("every content part is recorded exactly, and replay of the same request matches", async () => {
    const upstream = await startScriptedOpenAI({ respond: () => ({ content: "a red pixel" }) });
    const rec = new RecordSession({ id: "vision-rec", task: { prompt: "describe the picture" } });
    const p1 = await startBoundaryProxy({ session: rec, upstream: upstream.url });
    const ask = (url: string) =>
      new OpenAI({ baseURL: url, apiKey: "k", maxRetries: 0 }).chat.completions.create({
        model: "scripted-model",
        messages: [{ role: "user", content: content as unknown as OpenAI.Chat.ChatCompletionContentPart[] }],
      });
    try {
      const live = await ask(p1.llmUrl);
      expect(live.choices[0].message.content).toBe("a red pixel");
    } finally {
      await p1.close();
    }
    // the upstream got the image parts
    expect(upstream.requests[0].messages[0].content).toEqual(content);
    const bundle = rec.toBundle({ final: "a red pixel" });
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    const request = bundle.records[0].request as { messages: Array<{ content: unknown }> };
    expect(request.messages[0].content).toEqual(content);

    // replay: same request, served from the recording, no divergence
    const rep = new ReplaySession({ source: bundle });
    let stopped: unknown = null;
    const p2 = await startBoundaryProxy({ session: rep, onStop: (s) => (stopped = s) });
    try {
      const replayed = await ask(p2.llmUrl);
      expect(replayed.choices[0].message.content).toBe("a red pixel");
    } finally {
      await p2.close();
      await upstream.close();
    }
    expect(stopped).toBeNull();
    expect(upstream.requests).toHaveLength(1);
  });
});
