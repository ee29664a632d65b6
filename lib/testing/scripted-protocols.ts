/**
 * A SCRIPTED local model server for tests (never a real model): one deterministic weather-agent
 * script spoken over four provider protocols, so the proxy's recording and replay of each can be
 * tested with the official SDK clients (`openai` 6, `@anthropic-ai/sdk`). Binds 127.0.0.1 on a
 * free port.
 *
 *   POST /v1/chat/completions  chat completions (plain or `stream: true`)
 *   POST /v1/responses         Responses API (plain or a stream of response.* events); keeps
 *                              the responses it created, so `previous_response_id` works, and
 *                              answers 400 `previous_response_not_found` for an id it never made
 *   POST /v1/messages          Anthropic Messages (plain or message_start … message_stop events)
 *   POST /v1/embeddings        a vector per input (its length and character sum)
 *
 * The script: when the request offers a hand-off tool (`transfer_to_<agent>`, chat and Responses)
 * and the conversation holds no hand-off result yet, the model calls it (`{}`); else, while the
 * conversation holds no tool result, it calls `get_weather` with
 * `{"city": <the last word of the first user text>}`; once it holds one, it answers
 * "Weather report: <tool output>" (plus " [guided: <text>]" when the last user text follows the
 * tool result: guidance). A chat request offering tools but not get_weather and holding no tool
 * result (a supervisor after the hand-back) repeats the last assistant text. Hand-off results
 * (`transfer_*` calls) are not tool results. Ids count per server (`resp_<n>`, `call_<n>`, `msg_<n>`, `toolu_<n>`).
 * Every request body is kept in `received` for assertions.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { text as readText } from "node:stream/consumers";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** A running scripted server. */
export interface ScriptedProtocols {
  /** OpenAI base URL (`http://127.0.0.1:<port>/v1`). */
  url: string;
  /** Anthropic base URL (`http://127.0.0.1:<port>`). */
  anthropicUrl: string;
  received: { path: string; body: Rec }[];
  close(): Promise<void>;
}

function textOf(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : isRec(p) && typeof p.content === "string" ? p.content : "")).join("");
  return "";
}

type Turn = { kind: "user" | "tool" | "handoff"; text: string };

/** Names of the function tools a chat / Responses request offers. */
function toolNames(body: Rec): string[] {
  return (Array.isArray(body.tools) ? body.tools : []).map((t) => (isRec(t) ? (isRec(t.function) ? t.function.name : t.name) : null)).filter((n): n is string => typeof n === "string");
}

/** The script's decision from the conversation as plain turns. */
function decide(turns: Turn[], tools: string[] = [], lastAssistant: string | null = null): { call: { city: string }; name?: string } | { text: string } {
  const handoff = tools.find((t) => t.startsWith("transfer_to_"));
  if (handoff && !turns.some((t) => t.kind === "handoff")) return { call: {} as { city: string }, name: handoff };
  const tool = turns.findIndex((t) => t.kind === "tool");
  // A supervisor after the hand-back (it has no get_weather): repeat the sub-agent's answer.
  if (tool < 0 && tools.length && !tools.includes("get_weather")) return { text: lastAssistant ?? "done" };
  if (tool < 0) {
    const first = turns.find((t) => t.kind === "user")?.text ?? "";
    const city = first.trim().split(/\s+/).pop()?.replace(/[?.!]$/, "") || "Nowhere";
    return { call: { city } };
  }
  const lastUser = [...turns].reverse().find((t) => t.kind === "user");
  const guided = lastUser && turns.lastIndexOf(lastUser) > tool ? ` [guided: ${lastUser.text}]` : "";
  return { text: `Weather report: ${turns[tool].text}${guided}` };
}

const sse = (res: http.ServerResponse, events: { event?: string; data: unknown }[]) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`);
  res.end();
};
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

/** Start the scripted server (see the module doc). */
export async function startScriptedProtocols(): Promise<ScriptedProtocols> {
  let n = 0;
  const received: { path: string; body: Rec }[] = [];
  const stored = new Map<string, { input: unknown[]; output: unknown[] }>();

  function responses(body: Rec, res: http.ServerResponse) {
    const own: unknown[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : Array.isArray(body.input) ? body.input : [];
    let history: unknown[] = [];
    if (typeof body.previous_response_id === "string") {
      const prev = stored.get(body.previous_response_id);
      if (!prev) return json(res, 400, { error: { message: `Previous response with id '${body.previous_response_id}' not found.`, type: "invalid_request_error", param: "previous_response_id", code: "previous_response_not_found" } });
      history = [...prev.input, ...prev.output];
    }
    const all = [...history, ...own];
    const names = new Map(all.filter((it): it is Rec => isRec(it) && it.type === "function_call").map((it) => [it.call_id, String(it.name)]));
    const turns = all.flatMap((it): Turn[] => (isRec(it) && it.type === "function_call_output" ? [{ kind: names.get(it.call_id)?.startsWith("transfer_") ? "handoff" : "tool", text: textOf(it.output) }] : isRec(it) && it.role === "user" ? [{ kind: "user", text: textOf(it.content) }] : []));
    const d = decide(turns, toolNames(body));
    const i = ++n;
    const id = `resp_${i}`;
    const item = "call" in d ? { id: `fc_${i}`, type: "function_call", status: "completed", call_id: `call_${i}`, name: d.name ?? "get_weather", arguments: JSON.stringify(d.call) } : { id: `msg_${i}`, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: d.text, annotations: [] }] };
    stored.set(id, { input: all, output: [item] });
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    const base = { id, object: "response", created_at: 1_700_000_000 + i, model: body.model, instructions: body.instructions ?? null, previous_response_id: body.previous_response_id ?? null, tools: body.tools ?? [], parallel_tool_calls: true, tool_choice: "auto", temperature: 1, top_p: 1, text: { format: { type: "text" } }, metadata: {}, error: null, incomplete_details: null };
    const done = { ...base, status: "completed", output: [item], usage };
    if (body.stream !== true) return json(res, 200, done);
    let seq = 0;
    const ev = (type: string, rest: Rec) => ({ event: type, data: { type, sequence_number: seq++, ...rest } });
    const events = [ev("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } }), ev("response.in_progress", { response: { ...base, status: "in_progress", output: [], usage: null } })];
    if ("call" in d) {
      const fc = item as Rec;
      events.push(ev("response.output_item.added", { output_index: 0, item: { ...fc, status: "in_progress", arguments: "" } }));
      const args = String(fc.arguments);
      for (const part of [args.slice(0, 5), args.slice(5)]) events.push(ev("response.function_call_arguments.delta", { item_id: fc.id, output_index: 0, delta: part }));
      events.push(ev("response.function_call_arguments.done", { item_id: fc.id, output_index: 0, arguments: args }));
    } else {
      const m = item as Rec;
      events.push(ev("response.output_item.added", { output_index: 0, item: { ...m, status: "in_progress", content: [] } }));
      events.push(ev("response.content_part.added", { item_id: m.id, output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }));
      const t = (d as { text: string }).text;
      for (const part of [t.slice(0, 8), t.slice(8)]) events.push(ev("response.output_text.delta", { item_id: m.id, output_index: 0, content_index: 0, delta: part, logprobs: [] }));
      events.push(ev("response.output_text.done", { item_id: m.id, output_index: 0, content_index: 0, text: t, logprobs: [] }));
      events.push(ev("response.content_part.done", { item_id: m.id, output_index: 0, content_index: 0, part: { type: "output_text", text: t, annotations: [] } }));
    }
    events.push(ev("response.output_item.done", { output_index: 0, item }));
    events.push(ev("response.completed", { response: done }));
    sse(res, events);
  }

  function messages(body: Rec, res: http.ServerResponse) {
    const msgs = Array.isArray(body.messages) ? body.messages : [];
    const turns = msgs.flatMap((m): Turn[] => {
      if (!isRec(m) || m.role !== "user") return [];
      if (typeof m.content === "string") return [{ kind: "user", text: m.content }];
      return (Array.isArray(m.content) ? m.content : []).flatMap((b): Turn[] => (isRec(b) && b.type === "tool_result" ? [{ kind: "tool", text: textOf(b.content) }] : isRec(b) && b.type === "text" ? [{ kind: "user", text: String(b.text) }] : []));
    });
    const d = decide(turns);
    const i = ++n;
    const block = "call" in d ? { type: "tool_use", id: `toolu_${i}`, name: "get_weather", input: d.call } : { type: "text", text: d.text };
    const stop = "call" in d ? "tool_use" : "end_turn";
    const msg = { id: `msg_${i}`, type: "message", role: "assistant", model: body.model, content: [block], stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
    if (body.stream !== true) return json(res, 200, msg);
    const e = (type: string, rest: Rec) => ({ event: type, data: { type, ...rest } });
    const events = [e("message_start", { message: { ...msg, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }), e("ping", {})];
    if (block.type === "tool_use") {
      events.push(e("content_block_start", { index: 0, content_block: { ...block, input: {} } }));
      const j = JSON.stringify(block.input);
      for (const part of [j.slice(0, 4), j.slice(4)]) events.push(e("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: part } }));
    } else {
      events.push(e("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
      const t = String((block as { text: string }).text);
      for (const part of [t.slice(0, 6), t.slice(6)]) events.push(e("content_block_delta", { index: 0, delta: { type: "text_delta", text: part } }));
    }
    events.push(e("content_block_stop", { index: 0 }), e("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }), e("message_stop", {}));
    sse(res, events);
  }

  function chat(body: Rec, res: http.ServerResponse) {
    const msgs = Array.isArray(body.messages) ? body.messages : [];
    const names = new Map<unknown, string>();
    for (const m of msgs) if (isRec(m) && Array.isArray(m.tool_calls)) for (const tc of m.tool_calls) if (isRec(tc) && isRec(tc.function)) names.set(tc.id, String(tc.function.name));
    const turns = msgs.flatMap((m): Turn[] => (isRec(m) && m.role === "tool" ? [{ kind: names.get(m.tool_call_id)?.startsWith("transfer_") ? "handoff" : "tool", text: textOf(m.content) }] : isRec(m) && m.role === "user" ? [{ kind: "user", text: textOf(m.content) }] : []));
    const said = msgs.filter((m): m is Rec => isRec(m) && m.role === "assistant" && typeof m.content === "string" && m.content.length > 0 && !(Array.isArray(m.tool_calls) && m.tool_calls.length)).map((m) => String(m.content));
    const d = decide(turns, toolNames(body), said.at(-1) ?? null);
    const i = ++n;
    const message = "call" in d ? { role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: d.name ?? "get_weather", arguments: JSON.stringify(d.call) } }] } : { role: "assistant", content: d.text };
    const finish = "call" in d ? "tool_calls" : "stop";
    const head = { id: `chatcmpl-${i}`, created: 1_700_000_000 + i, model: body.model };
    if (body.stream !== true) return json(res, 200, { ...head, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    const chunk = (delta: Rec, fr: string | null) => ({ data: { ...head, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: fr }] } });
    const events = [chunk({ role: "assistant", content: "content" in message && message.content ? message.content : "" }, null)];
    if ("tool_calls" in message && message.tool_calls) events.push(chunk({ tool_calls: [{ index: 0, ...message.tool_calls[0] }] }, null));
    events.push(chunk({}, finish), { data: "[DONE]" } as never);
    sse(res, events);
  }

  function embeddings(body: Rec, res: http.ServerResponse) {
    const inputs = typeof body.input === "string" ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : [];
    json(res, 200, { object: "list", model: body.model, data: inputs.map((t, index) => ({ object: "embedding", index, embedding: [t.length, [...t].reduce((a, c) => a + c.charCodeAt(0), 0) / 1000] })), usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } });
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "/").split("?")[0];
      let body: Rec = {};
      try {
        const t = await readText(req);
        body = t ? (JSON.parse(t) as Rec) : {};
      } catch {
        return json(res, 400, { error: { message: "bad json" } });
      }
      received.push({ path, body });
      if (req.method === "POST" && path === "/v1/responses") return responses(body, res);
      if (req.method === "POST" && path === "/v1/messages") return messages(body, res);
      if (req.method === "POST" && path === "/v1/chat/completions") return chat(body, res);
      if (req.method === "POST" && path === "/v1/embeddings") return embeddings(body, res);
      json(res, 404, { error: { message: `scripted server: no route ${req.method} ${path}` } });
    })();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    anthropicUrl: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
