/**
 * Issue 21 items 1–3 with an unmodified framework: the OpenAI Agents SDK (`@openai/agents`
 * 0.14.3), a triage agent handing off to a weather agent with an in-process function tool, over
 * the Responses API (its default) and chat completions, streamed and not, through the recording
 * proxy and back through the replay proxy. The model is a SCRIPTED local server
 * (lib/testing/scripted-protocols.ts; no real model). Before issue 21 the Responses run failed
 * with `404 unknown route POST /v1/responses`, and no agent was named.
 */
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { validateBundle, type ReplayBundle } from "../lib/bundle";
import { RecordSession, ReplaySession } from "../lib/replay";
import { startScriptedProtocols, type ScriptedProtocols } from "../lib/testing/scripted-protocols";
import { startBoundaryProxy } from ".";

let model: ScriptedProtocols;
beforeAll(async () => {
  setTracingDisabled(true);
  model = await startScriptedProtocols();
});
afterAll(() => model?.close());

/** The MAS, written the way the Agents SDK docs write a hand-off example. */
async function mas(baseURL: string, api: "responses" | "chat_completions", stream: boolean): Promise<string> {
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: new OpenAI({ baseURL, apiKey: "k", maxRetries: 0 }), useResponses: api === "responses" }) });
  const getWeather = tool({ name: "get_weather", description: "Get the weather of a city", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
  const weatherAgent = new Agent({ name: "Weather Agent", instructions: "You answer weather questions with get_weather.", tools: [getWeather], model: "scripted" });
  const triage = new Agent({ name: "Triage Agent", instructions: "Route the user to the right agent.", handoffs: [weatherAgent], model: "scripted" });
  if (stream) {
    const r = await runner.run(triage, "What is the weather in Paris?", { stream: true });
    await r.completed;
    return String(r.finalOutput);
  }
  return String((await runner.run(triage, "What is the weather in Paris?")).finalOutput);
}

async function record(api: "responses" | "chat_completions", stream: boolean): Promise<{ bundle: ReplayBundle; answer: string }> {
  const session = new RecordSession({ id: `test/agents-sdk/${api}/${stream}`, task: { prompt: "weather" } });
  const proxy = await startBoundaryProxy({ session, upstream: model.url });
  try {
    const answer = await mas(proxy.llmUrl, api, stream);
    await proxy.idle();
    return { bundle: session.toBundle({ final: answer }), answer };
  } finally {
    await proxy.close();
  }
}

describe.each([
  ["responses", false],
  ["responses", true],
  ["chat_completions", false],
  ["chat_completions", true],
] as const)("OpenAI Agents SDK, %s, stream=%s", (api, stream) => {
  test("records, names both agents, has the in-process tool nodes, replays with the prefix verified", async () => {
    const { bundle, answer } = await record(api, stream);
    expect(answer).toBe("Weather report: sunny in Paris");
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    const llm = bundle.graph.nodes.filter((n) => n.type === "llm_call");
    expect(llm).toHaveLength(3);
    expect(bundle.records.every((r) => (r.meta?.protocol ?? "openai-chat") === (api === "responses" ? "openai-responses" : "openai-chat"))).toBe(true);
    // lanes: the triage agent (named from its instructions) and the agent named by the hand-off result
    expect(llm.map((n) => n.agent)).toEqual(["Route the user to", "Weather Agent", "Weather Agent"]);
    // in-process tools: the hand-off and get_weather
    const calls = bundle.graph.nodes.filter((n) => n.type === "tool_call");
    expect(calls.map((n) => (n.content as { tool: string }).tool)).toEqual(["transfer_to_Weather_Agent", "get_weather"]);
    expect(calls.map((n) => n.agent)).toEqual(["Route the user to", "Weather Agent"]);
    const results = bundle.graph.nodes.filter((n) => n.type === "tool_result");
    expect(results.map((n) => n.content)).toEqual([JSON.stringify({ assistant: "Weather Agent" }), "sunny in Paris"]);

    // whole-recording replay, no upstream: the SDK parses every served response the same way
    const whole = new ReplaySession({ source: bundle });
    const p1 = await startBoundaryProxy({ session: whole });
    try {
      expect(await mas(p1.llmUrl, api, stream)).toBe(answer);
      await p1.idle();
      expect(whole.end()).toBeNull();
      expect(whole.verified).toBe(3);
    } finally {
      await p1.close();
    }

    // selective replay from the weather agent's second call with guidance, live on a fresh upstream
    const fresh = await startScriptedProtocols();
    const target = bundle.records[2];
    const sel = new ReplaySession({ source: bundle, targetNodeId: target.nodeId, guidance: "Be brief." });
    const p2 = await startBoundaryProxy({ session: sel, upstream: fresh.url });
    try {
      expect(await mas(p2.llmUrl, api, stream)).toBe("Weather report: sunny in Paris [guided: Be brief.]");
      await p2.idle();
      expect(sel.verified).toBe(2);
      const sent = fresh.received;
      expect(sent).toHaveLength(1);
      expect(JSON.stringify(sent[0].body)).toContain("Be brief.");
      const out = sel.toBundle({ id: `test/agents-sdk/${api}/${stream}/replay`, final: "x" });
      expect(validateBundle(JSON.parse(JSON.stringify(out))).ok).toBe(true);
      expect(out.graph.nodes.find((n) => n.id !== target.nodeId && n.type === "llm_call" && !bundle.graph.nodes.some((s) => s.id === n.id))?.agent).toBe("Weather Agent");
    } finally {
      await p2.close();
      await fresh.close();
    }
  });
});
