/**
 * Vercel AI SDK (`ai` 6.0.325 + `@ai-sdk/openai` 3.0.141): an orchestrator agent that delegates
 * to two subagents through tools — the "Subagents" pattern of the AI SDK docs. The orchestrator
 * calls both subagent tools in one step, so the AI SDK runs the two subagents in parallel, each
 * with its own in-process tools (the guide search embeds with `embedMany`).
 *
 *   node --import tsx examples/ai-sdk/main.ts
 *
 * Reads only the standard variables OPENAI_BASE_URL and OPENAI_API_KEY (@ai-sdk/openai's
 * defaults) and the task from SYMTRACE_TASK. `openai(...)` uses the Responses API (the
 * provider's default); pass `--chat` to use `openai.chat(...)` (Chat Completions) instead.
 * Prints `{"final": ...}`.
 */
import { openai } from "@ai-sdk/openai";
import { cosineSimilarity, embed, embedMany, stepCountIs, tool, ToolLoopAgent } from "ai";
import { z } from "zod";

const model = process.argv.includes("--chat") ? openai.chat("gpt-4o") : openai("gpt-4o");
const embedder = openai.embedding("text-embedding-3-small");

const GUIDES = [
  "Lisbon: ride tram 28 through Alfama, then watch the sunset at Miradouro da Senhora do Monte.",
  "Lisbon: the Gulbenkian museum and its gardens make a calm rainy-day visit.",
  "Porto: cross the Dom Luis I bridge and taste port wine in Vila Nova de Gaia.",
];

const weatherAgent = new ToolLoopAgent({
  model,
  instructions: "You are a weather researcher. Use the forecast tool and report the forecast in one sentence.",
  tools: {
    forecast: tool({
      description: "Get the weather forecast for a city",
      inputSchema: z.object({ city: z.string().describe("The city to get the forecast for") }),
      execute: async ({ city }) => ({ city, forecast: "sunny", highCelsius: 24 }),
    }),
  },
  stopWhen: stepCountIs(5),
});

const guideAgent = new ToolLoopAgent({
  model,
  instructions: "You are a travel guide researcher. Search the guides and summarise the best tips in one sentence.",
  tools: {
    searchGuides: tool({
      description: "Search the travel guides for tips about a city",
      inputSchema: z.object({ query: z.string().describe("What to look for") }),
      execute: async ({ query }) => {
        const { embeddings } = await embedMany({ model: embedder, values: GUIDES });
        const { embedding } = await embed({ model: embedder, value: query });
        const ranked = GUIDES.map((text, i) => ({ text, score: cosineSimilarity(embedding, embeddings[i]) })).sort((a, b) => b.score - a.score);
        return ranked.slice(0, 2).map((r) => r.text);
      },
    }),
  },
  stopWhen: stepCountIs(5),
});

const orchestrator = new ToolLoopAgent({
  model,
  instructions: "You plan trips. Delegate research to your subagents (call them in parallel), then write a short plan from their findings.",
  tools: {
    researchWeather: tool({
      description: "Ask the weather subagent about the weather at the destination.",
      inputSchema: z.object({ task: z.string().describe("The weather question") }),
      execute: async ({ task }, { abortSignal }) => (await weatherAgent.generate({ prompt: task, abortSignal })).text,
    }),
    researchSights: tool({
      description: "Ask the guide subagent what to see at the destination.",
      inputSchema: z.object({ task: z.string().describe("The sightseeing question") }),
      execute: async ({ task }, { abortSignal }) => (await guideAgent.generate({ prompt: task, abortSignal })).text,
    }),
  },
  stopWhen: stepCountIs(5),
});

const task = process.env.SYMTRACE_TASK || "Plan a day in Lisbon for tomorrow.";
const result = await orchestrator.generate({ prompt: task });
console.log(JSON.stringify({ final: result.text }));
