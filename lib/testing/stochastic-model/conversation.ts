/**
 * Test support for the seeded stochastic model server (see ./server.ts): the protocol-neutral
 * view of one model request. Each wire protocol the server speaks (OpenAI Chat Completions,
 * OpenAI Responses, Anthropic Messages) is read into a {@link Conversation}: the system text,
 * the turns so far (user text, assistant text, tool calls, tool results), the tools offered and
 * the tool choice. The policy (./policy.ts) decides on that view only, so every protocol gets
 * the same agent behaviour.
 *
 * Parsers throw `Error` naming the field when the body is not the protocol's shape (the server
 * answers HTTP 400 with that message).
 */

/** One turn of the conversation, protocol-neutral. */
export type Turn =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; name?: string }
  | { kind: "call"; id: string; name: string; arguments: string }
  | { kind: "result"; id: string; text: string };

/** A tool offered to the model: name, description, JSON Schema of its arguments. */
export interface OfferedTool {
  name: string;
  description: string;
  parameters: unknown;
}

/** `auto` (default), `none`, `required` (must call some tool) or one named tool. */
export type ToolChoice = { type: "auto" } | { type: "none" } | { type: "required" } | { type: "tool"; name: string };

export interface Conversation {
  /** System prompt / instructions (all system and developer texts joined by a blank line). */
  system: string;
  turns: Turn[];
  tools: OfferedTool[];
  toolChoice: ToolChoice;
  /** Whether several tool calls may be issued in one reply. */
  parallelToolCalls: boolean;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Text of string content or of text parts (`text`, `input_text`, `output_text`). */
export function partsText(content: unknown): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((p) => (typeof p === "string" ? p : isObj(p) && typeof p.text === "string" ? p.text : isObj(p) && p.type === "tool_result" ? partsText(p.content) : ""))
    .join("");
}

function choiceFromOpenAI(v: unknown): ToolChoice {
  if (v === "none") return { type: "none" };
  if (v === "required") return { type: "required" };
  if (isObj(v)) {
    const fn = isObj(v.function) ? v.function : v;
    if (typeof fn.name === "string") return { type: "tool", name: fn.name };
  }
  return { type: "auto" };
}

/** OpenAI Chat Completions body → conversation. @throws when `messages` is not an array */
export function fromChatCompletions(body: Json): Conversation {
  if (!Array.isArray(body.messages)) throw new Error("`messages` must be an array");
  const system: string[] = [];
  const turns: Turn[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isObj(m)) throw new Error(`messages[${i}] must be an object`);
    const text = partsText(m.content);
    if (m.role === "system" || m.role === "developer") system.push(text);
    else if (m.role === "user") turns.push({ kind: "user", text });
    else if (m.role === "assistant") {
      if (text) turns.push({ kind: "assistant", text, ...(typeof m.name === "string" ? { name: m.name } : {}) });
      for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const fn = isObj(tc) && isObj(tc.function) ? tc.function : {};
        turns.push({ kind: "call", id: String((tc as Json).id ?? ""), name: String(fn.name ?? ""), arguments: String(fn.arguments ?? "{}") });
      }
    } else if (m.role === "tool" || m.role === "function") turns.push({ kind: "result", id: String(m.tool_call_id ?? ""), text });
  }
  const tools: OfferedTool[] = (Array.isArray(body.tools) ? body.tools : []).filter(isObj).map((t) => {
    const fn = isObj(t.function) ? t.function : t;
    return { name: String(fn.name ?? ""), description: String(fn.description ?? ""), parameters: fn.parameters ?? {} };
  });
  return { system: system.join("\n\n"), turns, tools, toolChoice: choiceFromOpenAI(body.tool_choice), parallelToolCalls: body.parallel_tool_calls !== false };
}

/**
 * OpenAI Responses input items → turns (messages, `function_call`, `function_call_output`).
 * System/developer messages among the items go to `system`.
 */
export function responsesItemsToTurns(items: unknown[], system: string[]): Turn[] {
  const turns: Turn[] = [];
  for (const [i, it] of items.entries()) {
    if (!isObj(it)) throw new Error(`input[${i}] must be an object`);
    const type = it.type ?? "message";
    if (type === "message") {
      const text = partsText(it.content);
      if (it.role === "system" || it.role === "developer") system.push(text);
      else if (it.role === "assistant") turns.push({ kind: "assistant", text });
      else turns.push({ kind: "user", text });
    } else if (type === "function_call") turns.push({ kind: "call", id: String(it.call_id ?? ""), name: String(it.name ?? ""), arguments: String(it.arguments ?? "{}") });
    else if (type === "function_call_output") turns.push({ kind: "result", id: String(it.call_id ?? ""), text: partsText(it.output) });
    // reasoning and other item types carry nothing the policy reads
  }
  return turns;
}

/**
 * OpenAI Responses body → conversation; `history` = the items of the `previous_response_id`
 * chain (input and output of each earlier response, oldest first), already resolved by the server.
 */
export function fromResponses(body: Json, history: unknown[]): Conversation {
  const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : body.input;
  if (!Array.isArray(input)) throw new Error("`input` must be a string or an array of items");
  const system: string[] = typeof body.instructions === "string" ? [body.instructions] : [];
  const turns = responsesItemsToTurns([...history, ...input], system);
  const tools: OfferedTool[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t): t is Json => isObj(t) && t.type === "function")
    .map((t) => ({ name: String(t.name ?? ""), description: String(t.description ?? ""), parameters: t.parameters ?? {} }));
  return { system: system.join("\n\n"), turns, tools, toolChoice: choiceFromOpenAI(body.tool_choice), parallelToolCalls: body.parallel_tool_calls !== false };
}

/** Anthropic Messages body → conversation. @throws when `messages` is not an array */
export function fromAnthropic(body: Json): Conversation {
  if (!Array.isArray(body.messages)) throw new Error("`messages` must be an array");
  const system = partsText(body.system);
  const turns: Turn[] = [];
  for (const [i, m] of body.messages.entries()) {
    if (!isObj(m)) throw new Error(`messages[${i}] must be an object`);
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
    for (const b of blocks.filter(isObj)) {
      if (b.type === "text") turns.push(m.role === "assistant" ? { kind: "assistant", text: String(b.text ?? "") } : { kind: "user", text: String(b.text ?? "") });
      else if (b.type === "tool_use") turns.push({ kind: "call", id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: JSON.stringify(b.input ?? {}) });
      else if (b.type === "tool_result") turns.push({ kind: "result", id: String(b.tool_use_id ?? ""), text: partsText(b.content) });
    }
  }
  const tools: OfferedTool[] = (Array.isArray(body.tools) ? body.tools : [])
    .filter((t): t is Json => isObj(t) && typeof t.name === "string" && (t.type === undefined || t.type === "custom"))
    .map((t) => ({ name: String(t.name), description: String(t.description ?? ""), parameters: t.input_schema ?? {} }));
  const tc = isObj(body.tool_choice) ? body.tool_choice : {};
  const toolChoice: ToolChoice =
    tc.type === "none" ? { type: "none" } : tc.type === "any" ? { type: "required" } : tc.type === "tool" && typeof tc.name === "string" ? { type: "tool", name: tc.name } : { type: "auto" };
  return { system, turns, tools, toolChoice, parallelToolCalls: tc.disable_parallel_tool_use !== true };
}
