/**
 * OpenAI Agents SDK (`@openai/agents` 0.14.3): a triage agent that hands off to a specialist,
 * which answers with an in-process tool — written the way the SDK's docs write it.
 *
 *   node --import tsx examples/openai-agents/main.ts                    # Responses API (the SDK's default)
 *   node --import tsx examples/openai-agents/main.ts --stream           # ... streamed
 *   node --import tsx examples/openai-agents/main.ts --chat-completions # Chat Completions API
 *
 * Reads only the standard variables: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_DEFAULT_MODEL,
 * OPENAI_AGENTS_DISABLE_TRACING (set it to 1 unless you want traces sent to OpenAI), and the
 * task from SYMTRACE_TASK (default below). With the Responses API the follow-up question is
 * sent with `previousResponseId` (the server keeps the conversation). Prints `{"final": ...}`.
 */
import { Agent, run, setOpenAIAPI, tool } from "@openai/agents";
import { z } from "zod";

const args = process.argv.slice(2);
const chatCompletions = args.includes("--chat-completions");
const stream = args.includes("--stream");
if (chatCompletions) setOpenAIAPI("chat_completions");

const getWeather = tool({
  name: "get_weather",
  description: "Get the current weather for a given city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `The weather in ${city} is sunny, 21°C.`,
});

const convertCurrency = tool({
  name: "convert_currency",
  description: "Convert an amount of money from one currency to another",
  parameters: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
  execute: async ({ amount, from, to }) => `${amount} ${from} is ${(amount * 1.08).toFixed(2)} ${to}.`,
});

const weatherAgent = new Agent({
  name: "Weather Agent",
  instructions: "You provide weather information. Use the get_weather tool, then answer in one sentence.",
  handoffDescription: "Handles questions about the weather",
  tools: [getWeather],
});

const currencyAgent = new Agent({
  name: "Currency Agent",
  instructions: "You convert currencies. Use the convert_currency tool, then answer in one sentence.",
  handoffDescription: "Handles questions about money and currency exchange",
  tools: [convertCurrency],
});

const triageAgent = Agent.create({
  name: "Triage Agent",
  instructions: "You are a helpful assistant. Hand off weather questions to the Weather Agent and currency questions to the Currency Agent.",
  handoffs: [weatherAgent, currencyAgent],
});

const task = process.env.SYMTRACE_TASK || "What is the weather in Paris today?";

async function ask(agent: Agent, input: string, previousResponseId?: string) {
  if (stream) {
    const result = await run(agent, input, { stream: true, previousResponseId });
    for await (const chunk of result.toTextStream()) process.stderr.write(chunk);
    await result.completed;
    process.stderr.write("\n");
    return result;
  }
  return run(agent, input, { previousResponseId });
}

const first = await ask(triageAgent, task);
let final = String(first.finalOutput ?? "");
if (!chatCompletions) {
  // A follow-up turn on the server-side conversation (Responses API: previous_response_id).
  const second = await ask(first.lastAgent ?? triageAgent, "Thanks. Should I take an umbrella?", first.lastResponseId);
  final = String(second.finalOutput ?? "");
}
console.log(JSON.stringify({ final }));
