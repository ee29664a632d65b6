/**
 * OpenAI Agents SDK 0.14.3 (examples/openai-agents/main.ts) behind `symtrace record` / `replay`:
 * hand-offs, in-process function tools; Responses API (its default; streamed, and with a
 * `previousResponseId` follow-up) and Chat Completions. Against the seeded stochastic test model.
 * Three replays per LLM node on the streamed Responses run and on Chat Completions, one on the
 * plain Responses run (the same agents and calls, unstreamed), to keep CI time down.
 */
import { node } from "../../lib/testing/framework-harness";
import { frameworkSuite } from "../suite";

const agents = { "Triage Agent": "Hand off weather questions", "Weather Agent": "You provide weather information" };

frameworkSuite({ name: "openai-agents-responses", command: node("examples/openai-agents/main.ts"), agents, tools: ["get_weather"] }, { seed: 11, runs: 1 });
frameworkSuite({ name: "openai-agents-responses-stream", command: node("examples/openai-agents/main.ts", "--stream"), agents, tools: ["get_weather"] }, { seed: 12 });
frameworkSuite({ name: "openai-agents-chat", command: node("examples/openai-agents/main.ts", "--chat-completions", "--stream"), agents, tools: ["get_weather"] }, { seed: 13 });
