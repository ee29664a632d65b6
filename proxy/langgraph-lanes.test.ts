/**
 * Issue 21 items 2–3 with an unmodified framework: a LangGraph.js supervisor
 * (`@langchain/langgraph-supervisor` 1.1.3, `createReactAgent` sub-agent with an in-process tool,
 * `ChatOpenAI` from `@langchain/openai`) recorded through the proxy against a SCRIPTED local model
 * server (lib/testing/scripted-protocols.ts; no real model). Before issue 21 no agent was named.
 * The lanes are the framework's agents: the supervisor's first call (before any hand-off) joins the
 * supervisor lane named by the later `transfer_back_to_supervisor`; the sub-agent is named by
 * `transfer_to_weather_agent`.
 */
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { ChatOpenAI } from "@langchain/openai";
import { expect, test } from "vitest";
import { z } from "zod";
import { validateBundle } from "../lib/bundle";
import { RecordSession } from "../lib/replay";
import { startScriptedProtocols } from "../lib/testing/scripted-protocols";
import { startBoundaryProxy } from ".";

test("LangGraph supervisor: lanes = supervisor and weather_agent; hand-offs and the tool are tool nodes", async () => {
  const model = await startScriptedProtocols();
  const session = new RecordSession({ id: "test/langgraph-supervisor", task: { prompt: "weather" } });
  const proxy = await startBoundaryProxy({ session, upstream: model.url });
  let answer: unknown;
  try {
    const llm = new ChatOpenAI({ model: "scripted", apiKey: "k", configuration: { baseURL: proxy.llmUrl } });
    const getWeather = tool(async ({ city }) => `sunny in ${city}`, { name: "get_weather", description: "Get the weather of a city", schema: z.object({ city: z.string() }) });
    const weatherAgent = createReactAgent({ llm, tools: [getWeather], name: "weather_agent", prompt: "You are a weather expert. Use get_weather." });
    const app = createSupervisor({ agents: [weatherAgent], llm, prompt: "You are a team supervisor managing a weather expert." }).compile();
    const out = await app.invoke({ messages: [{ role: "user", content: "What is the weather in Paris" }] });
    answer = out.messages.at(-1)?.content;
    await proxy.idle();
  } finally {
    await proxy.close();
    await model.close();
  }
  expect(answer).toBe("Weather report: sunny in Paris");
  const b = session.toBundle({ final: answer });
  expect(validateBundle(JSON.parse(JSON.stringify(b))).ok).toBe(true);
  const of = (type: string) => b.graph.nodes.filter((n) => n.type === type);
  expect(of("llm_call").map((n) => n.agent)).toEqual(["supervisor", "weather_agent", "weather_agent", "supervisor"]);
  expect(of("agent_action").map((n) => n.agent)).toEqual(["supervisor", "weather_agent", "weather_agent", "supervisor"]);
  expect(of("tool_call").map((n) => [(n.content as { tool: string }).tool, n.agent])).toEqual([
    ["transfer_to_weather_agent", "supervisor"],
    ["get_weather", "weather_agent"],
  ]);
  expect(of("tool_result").map((n) => n.content)).toEqual(["Successfully transferred to weather_agent", "sunny in Paris"]);
});
