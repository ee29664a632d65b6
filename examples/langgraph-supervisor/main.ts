/**
 * LangGraph.js multi-agent supervisor (`@langchain/langgraph` 1.7.3 +
 * `@langchain/langgraph-supervisor` 1.1.3 + `@langchain/openai` 1.4.6): a supervisor routes to a
 * research expert and a math expert, each a ReAct agent with in-process tools — the example of
 * the langgraph-supervisor README, with local tools.
 *
 *   node --import tsx examples/langgraph-supervisor/main.ts
 *
 * Reads only the standard variables OPENAI_BASE_URL and OPENAI_API_KEY (via the `openai` client
 * ChatOpenAI wraps) and the task from SYMTRACE_TASK. The graph is invoked, not streamed: on a
 * streamed call ChatOpenAI counts tokens with tiktoken, which downloads its token table from
 * tiktoken.pages.dev — nothing here fetches from the internet. Prints `{"final": ...}`.
 */
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";

const model = new ChatOpenAI({ model: "gpt-4o", streaming: false });

const add = tool(async ({ a, b }) => a + b, {
  name: "add",
  description: "Add two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

const multiply = tool(async ({ a, b }) => a * b, {
  name: "multiply",
  description: "Multiply two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

const webSearch = tool(
  async ({ query }) =>
    `Results for "${query}": Meta 67,317 employees, Apple 164,000, Amazon 1,551,000, Netflix 14,000, Google 181,269 (2024).`,
  {
    name: "web_search",
    description: "Search the web for information.",
    schema: z.object({ query: z.string() }),
  },
);

const mathAgent = createReactAgent({
  llm: model,
  tools: [add, multiply],
  name: "math_expert",
  prompt: "You are a math expert. Use your tools for every calculation.",
});

const researchAgent = createReactAgent({
  llm: model,
  tools: [webSearch],
  name: "research_expert",
  prompt: "You are a world class researcher with access to web search. Do not do any math.",
});

const workflow = createSupervisor({
  agents: [researchAgent, mathAgent],
  llm: model,
  prompt:
    "You are a team supervisor managing a research expert and a math expert. " +
    "For current events, use research_expert. For math problems, use math_expert.",
});

const app = workflow.compile();
const task = process.env.SYMTRACE_TASK || "What is the combined headcount of the FAANG companies in 2024, and what is it times 2?";
const result = await app.invoke({ messages: [{ role: "user", content: task }] });
const last = result.messages.at(-1);
console.log(JSON.stringify({ final: typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "") }));
