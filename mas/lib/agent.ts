/**
 * Agents and the shared agent loop of the reference MAS.
 * An agent is a name, a system prompt and a set of tools; `runToolLoop` lets it call the LLM,
 * execute the tool calls it requests through the tool gateway (sequentially, in order), feed
 * the results back as `role: "tool"` messages and repeat until it answers with text.
 */
import type { AssistantMessage, ChatMessage, Llm } from "./llm";
import { executeToolCalls, toolSchemas, type ToolName } from "./tools";

export interface AgentSpec {
  name: string;
  system: string;
  tools: readonly ToolName[];
}

export interface RunContext {
  llm: Llm;
  toolUrl: string;
}

/** One LLM turn of `agent` over `history` (its system prompt is prepended). */
export function agentTurn(ctx: RunContext, agent: AgentSpec, history: readonly ChatMessage[]): Promise<AssistantMessage> {
  return ctx.llm.complete(agent.name, [{ role: "system", content: agent.system }, ...history], toolSchemas(agent.tools));
}

/** Execute the tool calls of `msg` on behalf of `executor` with `agent`'s tools; returns the tool messages. */
export function runToolCalls(ctx: RunContext, agent: AgentSpec, msg: AssistantMessage, executor = agent.name): Promise<ChatMessage[]> {
  return executeToolCalls(ctx.toolUrl, msg, agent.tools, executor);
}

/**
 * Run `agent` on `history` until it replies without tool calls (at most `maxSteps` LLM calls).
 * Returns its final text and the full history (input + assistant and tool messages).
 */
export async function runToolLoop(ctx: RunContext, agent: AgentSpec, history: ChatMessage[], maxSteps = 8): Promise<{ text: string; messages: ChatMessage[] }> {
  const messages = [...history];
  for (let step = 0; step < maxSteps; step++) {
    const msg = await agentTurn(ctx, agent, messages);
    messages.push(msg);
    if (!msg.tool_calls) return { text: msg.content ?? "", messages };
    messages.push(...(await runToolCalls(ctx, agent, msg)));
  }
  throw new Error(`${agent.name} did not finish within ${maxSteps} LLM calls`);
}
