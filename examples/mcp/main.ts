/**
 * An MCP client agent (`@modelcontextprotocol/sdk` 1.32.2 client over Streamable HTTP + the
 * Anthropic SDK 1.15.0), the way the MCP quickstart's TypeScript client is written: list the
 * server's tools, offer them to the model, run each `tool_use` through `callTool`, loop.
 *
 *   node --import tsx examples/mcp/main.ts
 *
 * The MCP endpoint: SYMTRACE_MCP_URL (set by `symtrace record` / `replay`: SymTrace's MCP gateway,
 * which forwards to `--mcp-upstream`), else MCP_SERVER_URL, else http://127.0.0.1:3364/mcp. Also
 * reads ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and the task from SYMTRACE_TASK. Prints `{"final": ...}`.
 */
import Anthropic from "@anthropic-ai/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const mcp = new Client({ name: "city-guide-client", version: "1.0.0" });
await mcp.connect(new StreamableHTTPClientTransport(new URL(process.env.SYMTRACE_MCP_URL || process.env.MCP_SERVER_URL || "http://127.0.0.1:3364/mcp")));
const { tools: mcpTools } = await mcp.listTools();
const tools: Anthropic.Tool[] = mcpTools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema as Anthropic.Tool.InputSchema }));

const anthropic = new Anthropic();
const task = process.env.SYMTRACE_TASK || "I am in Bergen tonight: what is the forecast, and where should I eat?";
const messages: Anthropic.MessageParam[] = [{ role: "user", content: task }];
let final = "";
for (let turn = 0; turn < 8; turn++) {
  const response = await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 1000, messages, tools });
  messages.push({ role: "assistant", content: response.content });
  if (response.stop_reason !== "tool_use") {
    final = response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    break;
  }
  const results: Anthropic.ToolResultBlockParam[] = [];
  for (const block of response.content) {
    if (block.type !== "tool_use") continue;
    const result = await mcp.callTool({ name: block.name, arguments: block.input as Record<string, unknown> });
    const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("");
    results.push({ type: "tool_result", tool_use_id: block.id, content: text, is_error: result.isError === true });
  }
  messages.push({ role: "user", content: results });
}
await mcp.close();
console.log(JSON.stringify({ final }));
