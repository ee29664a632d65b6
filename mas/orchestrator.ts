/**
 * Orchestrator-centred MAS (in the style of Magentic-One).
 * An Orchestrator LLM writes a task ledger (facts + plan), then, round by round, updates a
 * progress ledger (a JSON object naming the next speaker and its instruction) and delegates
 * one step to a worker: WebSurfer (search_docs, fetch_page) or Coder (calculator). Worker
 * reports go back into the Orchestrator's history. When the ledger says the request is
 * satisfied, the Orchestrator writes the final answer.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 SYMTRACE_TOOL_URL=http://127.0.0.1:9000 \
 *     node --import tsx mas/orchestrator.ts "your task"
 */
import { agentTurn, runToolLoop, type AgentSpec, type RunContext } from "./lib/agent";
import type { ChatMessage } from "./lib/llm";
import { log } from "./lib/log";
import { runMas } from "./lib/main";

export const ORCHESTRATOR: AgentSpec = {
  name: "Orchestrator",
  system: [
    "You are the Orchestrator of a team of agents that answers questions about the Lindenbrook city parks website.",
    "Team:",
    "- WebSurfer: searches and reads pages of the website (tools search_docs, fetch_page).",
    "- Coder: does exact arithmetic (tool calculator).",
    "You never call tools yourself. You keep a task ledger (facts and plan) and a progress ledger, and delegate one step at a time.",
  ].join("\n"),
  tools: [],
};

export const WORKERS: Record<string, AgentSpec> = {
  WebSurfer: {
    name: "WebSurfer",
    system:
      "You are WebSurfer, a worker agent that reads the Lindenbrook city parks website. Use search_docs to find pages and fetch_page to read them (you may fetch several pages at once). Then report the facts you found as a short markdown section, with the page paths as sources.",
    tools: ["search_docs", "fetch_page"],
  },
  Coder: {
    name: "Coder",
    system: "You are Coder, a worker agent that computes exact numbers. Use the calculator tool for every computation, then report the result as 'TOTAL = <number>' with the expression used.",
    tools: ["calculator"],
  },
};

export const LEDGER_PROMPT =
  "Create the task ledger: list the given facts, the facts to look up, the facts to derive, and a short step-by-step plan that uses the team.";
export const PROGRESS_PROMPT =
  'Update the progress ledger. Reply with only a JSON object: {"is_request_satisfied": boolean, "is_progress_being_made": boolean, "next_speaker": "WebSurfer" | "Coder", "instruction": string, "reason": string}.';
export const FINAL_PROMPT = "The request is satisfied. Give the final answer to the task: only the answer, in one or two sentences.";

export interface ProgressLedger {
  is_request_satisfied: boolean;
  next_speaker?: string;
  instruction?: string;
}

/** Parse the first JSON object in `text` as a progress ledger; null when invalid. */
export function parseProgressLedger(text: string): ProgressLedger | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return null;
  try {
    const v = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
    const sat = v.is_request_satisfied;
    const satisfied = typeof sat === "object" && sat !== null ? (sat as { answer?: unknown }).answer === true : sat === true;
    return { is_request_satisfied: satisfied, next_speaker: typeof v.next_speaker === "string" ? v.next_speaker : undefined, instruction: typeof v.instruction === "string" ? v.instruction : undefined };
  } catch {
    return null;
  }
}

export async function runOrchestrator(task: string, ctx: RunContext, maxRounds = 8): Promise<string> {
  const history: ChatMessage[] = [{ role: "user", content: `Task: ${task}\n\n${LEDGER_PROMPT}` }];
  history.push(await agentTurn(ctx, ORCHESTRATOR, history));
  let next = PROGRESS_PROMPT;
  for (let round = 0; round < maxRounds; round++) {
    history.push({ role: "user", content: next });
    const reply = await agentTurn(ctx, ORCHESTRATOR, history);
    history.push(reply);
    const ledger = parseProgressLedger(reply.content ?? "");
    if (ledger?.is_request_satisfied) {
      history.push({ role: "user", content: FINAL_PROMPT });
      const final = await agentTurn(ctx, ORCHESTRATOR, history);
      return (final.content ?? "").trim();
    }
    const worker = ledger?.next_speaker ? WORKERS[ledger.next_speaker] : undefined;
    if (!ledger || !worker || !ledger.instruction) {
      next = `Your progress ledger was not a valid JSON object with next_speaker WebSurfer or Coder and an instruction. ${PROGRESS_PROMPT}`;
      continue;
    }
    log("Orchestrator", `delegates to ${worker.name}: ${ledger.instruction}`);
    const report = await runToolLoop(ctx, worker, [{ role: "user", content: `Task: ${task}\n\nInstruction from the Orchestrator: ${ledger.instruction}` }]);
    next = `${worker.name} reported:\n${report.text}\n\n${PROGRESS_PROMPT}`;
  }
  throw new Error(`no final answer after ${maxRounds} orchestration rounds`);
}

runMas(import.meta.url, "orchestrator", (cfg, ctx) => runOrchestrator(cfg.task, ctx, cfg.maxRounds));
