/**
 * Calibrated MAS (issue 13 item 8): the small two-agent system of the calibrated world
 * (lib/testing/calibrated/, README there). A *Clerk* (tool `lookup`) finds the catalogue fact the
 * task needs and reports it as one `FACT: …` line; a *Solver* (tools `lookup`, `calculator`)
 * computes the answer from the task and the Clerk's report and ends with `Final answer: <amount>`.
 * Same conventions as the other reference MAS (mas/README.md): deterministic requests, the LLM at
 * OPENAI_BASE_URL, tools at SYMTRACE_TOOL_URL, `{"final": "..."}` on stdout, exit 0/1/2.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:4401/v1 SYMTRACE_TOOL_URL=http://127.0.0.1:4402 \
 *     node --import tsx mas/calibrated.ts "<task>"
 *
 * SYMTRACE_MODEL defaults to "calibrated-model" (the world's model name) instead of "scripted-model".
 * SYMTRACE_MAS_TIMING_FILE (benchmarks): the process appends its lifetime in ms to that file at exit.
 *
 * LLM requests per run: 4–6; tool calls: 2–4 (README of the world).
 */
import { appendFileSync } from "node:fs";
import type { RunContext } from "./lib/agent";
import type { ChatMessage, ToolSchema } from "./lib/llm";
import { log } from "./lib/log";
import { isMain, runMas } from "./lib/main";
import { callTool, TOOL_SCHEMAS } from "./lib/tools";

const LOOKUP: ToolSchema = {
  type: "function",
  function: {
    name: "lookup",
    description: "Look up one catalogue item by its sku (e.g. 'K-417'). Returns its name, unit price (or price tiers) and currency.",
    parameters: { type: "object", properties: { sku: { type: "string", description: "the item's sku" } }, required: ["sku"], additionalProperties: false },
  },
};

export interface CalibratedAgent {
  name: "Clerk" | "Solver";
  system: string;
  tools: ToolSchema[];
  maxSteps: number;
}

export const CLERK: CalibratedAgent = {
  name: "Clerk",
  system: "You are the Clerk of a two-agent team. Role: find the catalogue fact the task needs with the lookup tool and report it as one line 'FACT: unit price of <sku> = <price> EUR.'. Do not compute totals.",
  tools: [LOOKUP],
  maxSteps: 4,
};

export const SOLVER: CalibratedAgent = {
  name: "Solver",
  system: "You are the Solver of a two-agent team. Role: compute what the task asks from the Clerk's report with the calculator tool (you may verify a fact with lookup) and end with 'Final answer: <amount>'.",
  tools: [LOOKUP, TOOL_SCHEMAS.calculator],
  maxSteps: 6,
};

/** Run one agent's tool loop (sequential tool calls, in listed order) until it answers with text. */
async function runAgent(ctx: RunContext, agent: CalibratedAgent, prompt: string): Promise<string> {
  const messages: ChatMessage[] = [{ role: "system", content: agent.system }, { role: "user", content: prompt }];
  const allowed = new Set(agent.tools.map((t) => t.function.name));
  for (let step = 0; step < agent.maxSteps; step++) {
    const msg = await ctx.llm.complete(agent.name, messages, agent.tools);
    messages.push(msg);
    if (!msg.tool_calls) return msg.content ?? "";
    for (const tc of msg.tool_calls) {
      let obs: unknown;
      if (!allowed.has(tc.function.name)) obs = { status: "failed", error: { type: "ToolNotAvailable", message: `${agent.name} has no tool named ${tc.function.name}` } };
      else {
        let args: unknown;
        try {
          args = tc.function.arguments.trim() === "" ? {} : JSON.parse(tc.function.arguments);
        } catch {
          args = null;
        }
        obs = args === null ? { status: "failed", error: { type: "InvalidArguments", message: `arguments of ${tc.function.name} are not valid JSON` } } : await callTool(ctx.toolUrl, tc.function.name, args);
      }
      messages.push({ role: "tool", tool_call_id: tc.id, content: JSON.stringify(obs) });
    }
  }
  throw new Error(`${agent.name} did not finish within ${agent.maxSteps} LLM calls`);
}

/** The whole run: Clerk, then Solver; returns the Solver's answer text. */
export async function runCalibrated(task: string, ctx: RunContext): Promise<string> {
  log("Calibrated", "task for Clerk");
  const report = (await runAgent(ctx, CLERK, `Task: ${task}`)).trim();
  log("Calibrated", "task for Solver");
  return (await runAgent(ctx, SOLVER, `Task: ${task}\n\nClerk's report:\n${report}`)).trim();
}

/** The model name this MAS sends unless SYMTRACE_MODEL says otherwise (the calibrated world's, lib/testing/calibrated/world.ts CALIBRATED_MODEL). */
export const CALIBRATED_DEFAULT_MODEL = "calibrated-model";

if (isMain(import.meta.url) && !process.env.SYMTRACE_MODEL?.trim()) process.env.SYMTRACE_MODEL = CALIBRATED_DEFAULT_MODEL;
// Benchmark hook (scripts/bench-experiments.ts): "<lifetime ms> <start epoch ms>" (since its start,
// performance.timeOrigin), appended as one line to SYMTRACE_MAS_TIMING_FILE at exit.
const timingFile = isMain(import.meta.url) ? process.env.SYMTRACE_MAS_TIMING_FILE?.trim() : undefined;
if (timingFile) process.on("exit", () => appendFileSync(timingFile, `${performance.now().toFixed(1)} ${performance.timeOrigin.toFixed(1)}\n`));
runMas(import.meta.url, "calibrated", (cfg, ctx) => runCalibrated(cfg.task, ctx));
