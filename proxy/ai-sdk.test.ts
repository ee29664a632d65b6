/**
 * Issue 21 items 1–3 with an unmodified framework: the Vercel AI SDK (`ai` 6, `@ai-sdk/openai`
 * — the Responses API, its default — and `@ai-sdk/anthropic`), one agent with an in-process tool,
 * streamed and not, recorded through the proxy and replayed, against a SCRIPTED local model server
 * (lib/testing/scripted-protocols.ts; no real model). `ANTHROPIC_BASE_URL` is the proxy's root: the
 * AI SDK appends `/messages`, the Anthropic SDK `/v1/messages`; both routes are served. (With
 * `providerOptions.openai.store` on, the AI SDK sends earlier output as `item_reference` inputs;
 * their expansion when a replay goes live is unit-tested in lib/replay/protocols.test.ts — in this
 * default setup it sends full items.)
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { expect, test } from "vitest";
import { z } from "zod";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession } from "../lib/replay";
import { startScriptedProtocols } from "../lib/testing/scripted-protocols";
import { startBoundaryProxy } from ".";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

async function mas(llmUrl: string, anthropicUrl: string, which: "openai" | "anthropic", stream: boolean): Promise<string> {
  const model = which === "openai" ? createOpenAI({ baseURL: llmUrl, apiKey: "k" })("scripted") : createAnthropic({ baseURL: anthropicUrl, apiKey: "k" })("scripted-claude");
  const tools = { get_weather: tool({ description: "Get the weather of a city", inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` }) };
  const args = { model, system: "You are a weather expert.", prompt: "What is the weather in Paris", tools, maxOutputTokens: 256, stopWhen: stepCountIs(4) };
  return stream ? await streamText(args).text : (await generateText(args)).text;
}

async function record(which: "openai" | "anthropic", stream: boolean): Promise<ReplayBundle> {
  const up = await startScriptedProtocols();
  const session = new RecordSession({ id: `test/ai-sdk/${which}/${stream}`, task: { prompt: "weather" } });
  const proxy = await startBoundaryProxy({ session, upstream: up.url });
  try {
    expect(await mas(proxy.llmUrl, proxy.anthropicUrl, which, stream)).toBe("Weather report: sunny in Paris");
    await proxy.idle();
  } finally {
    await proxy.close();
    await up.close();
  }
  return session.toBundle({});
}

test.each([
  ["openai", false],
  ["openai", true],
  ["anthropic", false],
  ["anthropic", true],
] as const)("AI SDK %s stream=%s: recorded (agent, tool nodes), replayed verbatim, and live from the second call", async (which, stream) => {
  const b = await record(which, stream);
  expect(validateBundle(JSON.parse(JSON.stringify(b))).ok).toBe(true);
  expect(b.records.map((r) => r.meta?.protocol)).toEqual(which === "openai" ? ["openai-responses", "openai-responses"] : ["anthropic-messages", "anthropic-messages"]);
  expect(b.graph.nodes.filter((n) => n.type === "llm_call").map((n) => n.agent)).toEqual(["Weather Expert", "Weather Expert"]);
  expect(b.graph.nodes.filter((n) => n.type === "tool_call").map((n) => n.content)).toEqual([{ tool: "get_weather", arguments: { city: "Paris" } }]);

  const whole = new ReplaySession({ source: b });
  const p1 = await startBoundaryProxy({ session: whole });
  try {
    expect(await mas(p1.llmUrl, p1.anthropicUrl, which, stream)).toBe("Weather report: sunny in Paris");
    await p1.idle();
    expect(whole.end()).toBeNull();
  } finally {
    await p1.close();
  }

  const fresh = await startScriptedProtocols();
  const sel = new ReplaySession({ source: b, targetNodeId: b.records[1].nodeId, guidance: "Be brief." });
  const p2 = await startBoundaryProxy({ session: sel, upstream: fresh.url });
  try {
    expect(await mas(p2.llmUrl, p2.anthropicUrl, which, stream)).toBe("Weather report: sunny in Paris [guided: Be brief.]");
    await p2.idle();
  } finally {
    await p2.close();
    await fresh.close();
  }
  expect(fresh.received).toHaveLength(1);
  const sent = JSON.stringify(fresh.received[0].body);
  expect(sent).not.toContain("item_reference");
});
