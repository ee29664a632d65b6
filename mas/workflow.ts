/**
 * Workflow MAS (in the style of a sequential CrewAI crew).
 * A fixed pipeline of role agents — Researcher → Analyst → Writer — each given the task,
 * its own assignment and the reports of the earlier roles as context. Each role runs the
 * shared agent loop (LLM call, tool calls — possibly several in parallel from one assistant
 * message — tool results back, until it answers); the Writer's answer is the final answer.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 SYMTRACE_TOOL_URL=http://127.0.0.1:9000 \
 *     node --import tsx mas/workflow.ts "your task"
 */
import { runToolLoop, type AgentSpec, type RunContext } from "./lib/agent";
import { log } from "./lib/log";
import { runMas } from "./lib/main";

export interface CrewStep {
  agent: AgentSpec;
  assignment: string;
}

export const CREW: CrewStep[] = [
  {
    agent: {
      name: "Researcher",
      system:
        "You are the Researcher of a crew. Role: find every fact needed for the task on the Lindenbrook city parks website with search_docs and fetch_page (you may fetch several pages at once). Report the facts as a short markdown section with the source page paths. Do not compute totals.",
      tools: ["search_docs", "fetch_page"],
    },
    assignment: "Research the facts needed to answer the task.",
  },
  {
    agent: {
      name: "Analyst",
      system: "You are the Analyst of a crew. Role: derive the numbers the task asks for from the Researcher's facts. Use the calculator tool for every computation and report the result as 'TOTAL = <number>' with the expression used.",
      tools: ["calculator"],
    },
    assignment: "Compute what the task asks for from the facts above.",
  },
  {
    agent: {
      name: "Writer",
      system: "You are the Writer of a crew. Role: write the final answer to the task from the crew's reports, in one or two sentences, using only facts present in the reports.",
      tools: [],
    },
    assignment: "Write the final answer to the task.",
  },
];

export async function runWorkflow(task: string, ctx: RunContext, crew: CrewStep[] = CREW): Promise<string> {
  const reports: Array<{ role: string; text: string }> = [];
  for (const step of crew) {
    log("Workflow", `task for ${step.agent.name}`);
    const context = reports.map((r) => `${r.role}'s report:\n${r.text}`).join("\n\n");
    const prompt = [`Task: ${task}`, context, `Your assignment: ${step.assignment}`].filter(Boolean).join("\n\n");
    const { text } = await runToolLoop(ctx, step.agent, [{ role: "user", content: prompt }]);
    reports.push({ role: step.agent.name, text: text.trim() });
  }
  return reports[reports.length - 1].text;
}

runMas(import.meta.url, "workflow", (cfg, ctx) => runWorkflow(cfg.task, ctx));
