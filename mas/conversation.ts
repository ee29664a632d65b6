/**
 * Conversation MAS (in the style of an AG2 two-agent chat).
 * A UserProxy opens the chat with the task; the LLM-backed Assistant and the executing
 * UserProxy then alternate. When the Assistant requests tool calls, the UserProxy executes
 * them (sequentially, in order) and replies with the results; when the Assistant replies with
 * text, the UserProxy sends its default auto-reply. The chat ends when the Assistant's message
 * contains TERMINATE; that message (without TERMINATE) is the final answer.
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 SYMTRACE_TOOL_URL=http://127.0.0.1:9000 \
 *     node --import tsx mas/conversation.ts "your task"
 */
import { agentTurn, runToolCalls, type AgentSpec, type RunContext } from "./lib/agent";
import type { ChatMessage } from "./lib/llm";
import { log } from "./lib/log";
import { runMas } from "./lib/main";

export const ASSISTANT: AgentSpec = {
  name: "Assistant",
  system:
    "You are Assistant, a helpful AI assistant. Solve tasks about the Lindenbrook city parks website step by step with your tools (search_docs, fetch_page, calculator); the user proxy executes your tool calls and returns the results. Use the calculator for arithmetic. When the task is fully solved, reply with the final answer followed by the word TERMINATE.",
  tools: ["search_docs", "fetch_page", "calculator"],
};

export const USER_PROXY_AUTO_REPLY = "Continue. When the task is solved, reply with the final answer followed by TERMINATE.";

export async function runConversation(task: string, ctx: RunContext, maxTurns = 12): Promise<string> {
  const chat: ChatMessage[] = [{ role: "user", content: task }];
  log("UserProxy", `opens the chat: ${task}`);
  for (let turn = 0; turn < maxTurns; turn++) {
    const reply = await agentTurn(ctx, ASSISTANT, chat);
    chat.push(reply);
    if (reply.tool_calls) {
      chat.push(...(await runToolCalls(ctx, ASSISTANT, reply, "UserProxy")));
      continue;
    }
    const text = reply.content ?? "";
    if (text.includes("TERMINATE")) return text.replace(/\bTERMINATE\b/g, "").trim();
    log("UserProxy", "auto-reply");
    chat.push({ role: "user", content: USER_PROXY_AUTO_REPLY });
  }
  throw new Error(`no TERMINATE after ${maxTurns} Assistant turns`);
}

runMas(import.meta.url, "conversation", (cfg, ctx) => runConversation(cfg.task, ctx, cfg.maxRounds));
