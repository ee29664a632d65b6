/**
 * The tools of the reference MAS: their OpenAI function schemas and the client side of the
 * HTTP tool gateway (`POST <SYMTRACE_TOOL_URL>/<toolName>` with a JSON arguments body →
 * JSON observation). Tool calls are executed one at a time in the order the model listed
 * them, so the boundary order is deterministic (replay matches records in order).
 */
import type { AssistantMessage, ChatMessage, ToolCall, ToolSchema } from "./llm";
import { log } from "./log";

export type ToolName = "search_docs" | "fetch_page" | "calculator";

export const TOOL_SCHEMAS: Record<ToolName, ToolSchema> = {
  search_docs: {
    type: "function",
    function: {
      name: "search_docs",
      description: "Full-text search over the Lindenbrook city parks website. Returns the best matching pages (path, title, snippet).",
      parameters: { type: "object", properties: { query: { type: "string", description: "search words" } }, required: ["query"], additionalProperties: false },
    },
  },
  fetch_page: {
    type: "function",
    function: {
      name: "fetch_page",
      description: "Fetch one page of the Lindenbrook city parks website by its path (e.g. 'prices') and return its text.",
      parameters: { type: "object", properties: { path: { type: "string", description: "page path as returned by search_docs" } }, required: ["path"], additionalProperties: false },
    },
  },
  calculator: {
    type: "function",
    function: {
      name: "calculator",
      description: "Evaluate an arithmetic expression with + - * / % ^ and parentheses, e.g. '2*6 + 3*3'.",
      parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"], additionalProperties: false },
    },
  },
};

/** The schemas for a list of tool names, in that order. */
export function toolSchemas(names: readonly ToolName[]): ToolSchema[] {
  return names.map((n) => TOOL_SCHEMAS[n]);
}

/**
 * Call one tool through the gateway. Non-2xx answers with a JSON body are returned as the
 * observation (the model sees the error); transport failures and non-JSON bodies throw.
 */
export async function callTool(toolUrl: string, name: string, args: unknown): Promise<unknown> {
  const res = await fetch(`${toolUrl.replace(/\/+$/, "")}/${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(args ?? {}),
  });
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`tool ${name}: HTTP ${res.status} with a non-JSON body: ${text.slice(0, 200)}`);
  }
}

/**
 * Execute the tool calls of one assistant message sequentially (in listed order) and return
 * the `role: "tool"` messages to append. Calls to tools outside `allowed` and calls with
 * unparsable arguments are answered locally with an error observation (no gateway call).
 */
export async function executeToolCalls(toolUrl: string, msg: AssistantMessage, allowed: readonly string[], agent: string): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  for (const tc of msg.tool_calls ?? []) out.push({ role: "tool", tool_call_id: tc.id, content: JSON.stringify(await executeOne(toolUrl, tc, allowed, agent)) });
  return out;
}

async function executeOne(toolUrl: string, tc: ToolCall, allowed: readonly string[], agent: string): Promise<unknown> {
  const name = tc.function.name;
  if (!allowed.includes(name)) return { status: "failed", error: { type: "ToolNotAvailable", message: `${agent} has no tool named ${name}` } };
  let args: unknown;
  try {
    args = tc.function.arguments.trim() === "" ? {} : JSON.parse(tc.function.arguments);
  } catch {
    return { status: "failed", error: { type: "InvalidArguments", message: `arguments of ${name} are not valid JSON` } };
  }
  log(agent, `→ ${name} ${JSON.stringify(args)}`);
  return callTool(toolUrl, name, args);
}
