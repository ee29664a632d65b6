/**
 * Anthropic SDK 1.15.0 tool loop (examples/anthropic/main.ts) behind `symtrace record` / `replay`
 * over the Anthropic Messages protocol (`tool_use` / `tool_result`), plain and streamed. Against
 * the seeded stochastic test model.
 */
import { node } from "../../lib/testing/framework-harness";
import { frameworkSuite } from "../suite";

const agents = { assistant: "Use the tools to answer questions about places" };
frameworkSuite({ name: "anthropic", command: node("examples/anthropic/main.ts"), agents, tools: ["get_weather", "get_time"] }, { seed: 31 });
frameworkSuite({ name: "anthropic-stream", command: node("examples/anthropic/main.ts", "--stream"), agents, tools: ["get_weather", "get_time"] }, { seed: 32, runs: 1 });
