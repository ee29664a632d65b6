/**
 * Anthropic SDK (`@anthropic-ai/sdk` 1.15.0): a single agent in a tool-use loop — the loop of
 * Anthropic's tool-use docs: call `messages.create` with tools, run every `tool_use` block
 * in-process, send the `tool_result` blocks back, until `stop_reason` is not `tool_use`.
 *
 *   node --import tsx examples/anthropic/main.ts            # plain responses
 *   node --import tsx examples/anthropic/main.ts --stream   # messages.stream(...) + finalMessage()
 *
 * Reads only the standard variables ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, and the task from
 * SYMTRACE_TASK. Prints `{"final": ...}`.
 */
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic();
const stream = process.argv.includes("--stream");

const tools: Anthropic.Tool[] = [
  {
    name: "get_weather",
    description: "Get the current weather in a given location",
    input_schema: {
      type: "object",
      properties: { location: { type: "string", description: "The city and country, e.g. Oslo, Norway" } },
      required: ["location"],
    },
  },
  {
    name: "get_time",
    description: "Get the current local time in a given location",
    input_schema: {
      type: "object",
      properties: { location: { type: "string", description: "The city and country" } },
      required: ["location"],
    },
  },
];

function runTool(name: string, input: { location?: string }): string {
  if (name === "get_weather") return `It is 12°C and raining in ${input.location}.`;
  if (name === "get_time") return `It is 14:05 in ${input.location}.`;
  throw new Error(`unknown tool ${name}`);
}

const task = process.env.SYMTRACE_TASK || "What is the weather and the local time in Oslo right now?";
const messages: Anthropic.MessageParam[] = [{ role: "user", content: task }];
const system = "You are a helpful assistant. Use the tools to answer questions about places.";

for (let turn = 0; turn < 8; turn++) {
  const params = { model: "claude-sonnet-4-5", max_tokens: 1024, system, tools, messages };
  const response = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
  messages.push({ role: "assistant", content: response.content });
  if (response.stop_reason !== "tool_use") {
    const text = response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
    console.log(JSON.stringify({ final: text }));
    break;
  }
  const results: Anthropic.ToolResultBlockParam[] = response.content
    .filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")
    .map((b) => ({ type: "tool_result", tool_use_id: b.id, content: runTool(b.name, b.input as { location?: string }) }));
  messages.push({ role: "user", content: results });
}
