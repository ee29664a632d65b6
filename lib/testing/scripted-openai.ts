/**
 * A scripted, local, OpenAI-compatible chat-completions server for tests.
 *
 * It never calls a real model: every `POST /v1/chat/completions` is answered by a
 * caller-supplied `respond(req, n)` function, so a test fully controls (and can assert on)
 * what a multi-agent system (MAS) or the replay proxy sees. It binds 127.0.0.1 on a free
 * port and speaks the wire format of the OpenAI API closely enough for the official
 * `openai` SDK (streaming and non-streaming) and plain `fetch` clients:
 *
 * - `POST /v1/chat/completions` with `stream` absent/false → one `chat.completion` JSON object
 *   (`id`, `object`, `created`, `model`, `choices[0].message{role,content,refusal,tool_calls?}`,
 *   `choices[0].finish_reason`, `usage{prompt_tokens,completion_tokens,total_tokens}`).
 * - `POST /v1/chat/completions` with `stream: true` → `text/event-stream` of
 *   `data: {chat.completion.chunk}\n\n` events: a role chunk, the content split into several
 *   chunks, each tool call as OpenAI streams it (first delta carries `index`, `id`, `type`,
 *   `function.name` and empty `arguments`; later deltas carry `index` + argument fragments),
 *   a final chunk with `finish_reason`, an optional usage chunk (`stream_options.include_usage`)
 *   and `data: [DONE]`.
 * - `GET /v1/models` → `{ object: "list", data: [{ id, object: "model", created, owned_by }] }`.
 *
 * Everything in a response is deterministic (ids are `chatcmpl-scripted-<n>` and
 * `call_<n>_<i>`, `created` is a fixed epoch + n), so recorded responses are byte-stable.
 */
import { listenOnLoopback } from "./listen";
import http from "node:http";
import { text as readText } from "node:stream/consumers";

/** One tool call as it appears in an assistant message (OpenAI wire shape). */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One chat message as sent by the client (OpenAI wire shape, loosely typed). */
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool" | string;
  /** Text, null (assistant with only tool calls) or content parts (`[{ type: "text", text }]`). */
  content?: string | null | Array<{ type: string; text?: string; [k: string]: unknown }>;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [k: string]: unknown;
}

/** A tool definition in the request `tools` param. */
export interface ChatToolDef {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

/** The JSON body of a `POST /v1/chat/completions` request (unknown keys kept). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatToolDef[];
  tool_choice?: unknown;
  temperature?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  [k: string]: unknown;
}

/**
 * What the scripted "model" answers.
 * - `content`: assistant text (may be omitted/empty when there are tool calls).
 * - `toolCalls`: tool calls; `arguments` is JSON-encoded unless it already is a string;
 *   `id` defaults to `call_<n>_<i>` (n = request index, i = call index).
 * - `finishReason`: defaults to `"tool_calls"` when there are tool calls, else `"stop"`.
 */
export interface ScriptedReply {
  content?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
  finishReason?: string;
}

/** `respond(req, n)`: `n` is the 0-based index of this request on this server. */
export type ScriptedResponder = (req: ChatRequest, n: number) => ScriptedReply;

export interface ScriptedOpenAIOptions {
  respond: ScriptedResponder;
  /** Model ids listed by `GET /v1/models`; default `["scripted-model"]`. */
  models?: string[];
  /** TCP port on 127.0.0.1; default 0 (a free port). @throws when the port is in use */
  port?: number;
  /**
   * Answer every request with `Connection: close` (no keep-alive). For servers under heavy
   * concurrent load: a client reusing a keep-alive socket the server is just closing sees
   * "fetch failed"; closing after each response rules that race out. Default false.
   */
  closeConnections?: boolean;
}

export interface ScriptedOpenAI {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:41234/v1` (use as OPENAI_BASE_URL). */
  url: string;
  /** Every parsed chat-completions request body, in arrival order. */
  requests: ChatRequest[];
  /** The raw request body text of every chat-completions request (for byte-level comparisons). */
  rawRequests: string[];
  close(): Promise<void>;
}

const CREATED_BASE = 1_700_000_000;

/** Text of a message's content (string or text parts), "" for null/absent. */
export function messageText(m: ChatMessage | undefined): string {
  if (!m || m.content == null) return "";
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

function approxTokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}

function splitChunks(s: string, parts: number): string[] {
  if (s.length === 0) return [];
  const size = Math.max(1, Math.ceil(s.length / parts));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

interface Normalized {
  content: string | null;
  toolCalls: ChatToolCall[];
  finishReason: string;
}

function normalizeReply(reply: ScriptedReply, n: number): Normalized {
  const toolCalls: ChatToolCall[] = (reply.toolCalls ?? []).map((tc, i) => ({
    id: tc.id ?? `call_${n}_${i}`,
    type: "function",
    function: { name: tc.name, arguments: typeof tc.arguments === "string" ? tc.arguments : JSON.stringify(tc.arguments ?? {}) },
  }));
  const content = reply.content !== undefined && reply.content !== "" ? reply.content : toolCalls.length > 0 ? null : (reply.content ?? "");
  return { content, toolCalls, finishReason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop") };
}

function usageOf(req: ChatRequest, r: Normalized) {
  const prompt_tokens = approxTokens(JSON.stringify(req.messages ?? []));
  const completion_tokens = approxTokens((r.content ?? "") + r.toolCalls.map((t) => t.function.name + t.function.arguments).join(""));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function apiError(res: http.ServerResponse, status: number, message: string, type = "invalid_request_error") {
  sendJson(res, status, { error: { message, type, param: null, code: null } });
}

function completionJson(req: ChatRequest, r: Normalized, n: number) {
  const message: Record<string, unknown> = { role: "assistant", content: r.content, refusal: null };
  if (r.toolCalls.length > 0) message.tool_calls = r.toolCalls;
  return {
    id: `chatcmpl-scripted-${n}`,
    object: "chat.completion",
    created: CREATED_BASE + n,
    model: req.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finishReason }],
    usage: usageOf(req, r),
    system_fingerprint: null,
  };
}

/** The SSE chunk objects (without `data:` framing) for one streamed completion. */
function completionChunks(req: ChatRequest, r: Normalized, n: number): unknown[] {
  const base = { id: `chatcmpl-scripted-${n}`, object: "chat.completion.chunk", created: CREATED_BASE + n, model: req.model, system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const out: unknown[] = [chunk({ role: "assistant", content: r.content === null ? null : "", refusal: null })];
  for (const piece of splitChunks(r.content ?? "", 3)) out.push(chunk({ content: piece }));
  r.toolCalls.forEach((tc, index) => {
    out.push(chunk({ tool_calls: [{ index, id: tc.id, type: "function", function: { name: tc.function.name, arguments: "" } }] }));
    for (const piece of splitChunks(tc.function.arguments, 3)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, r.finishReason));
  if (req.stream_options?.include_usage) out.push({ ...base, choices: [], usage: usageOf(req, r) });
  return out;
}

/**
 * Start the scripted server on 127.0.0.1 (port `opts.port`, default a free one).
 *
 * @example
 *   const srv = await startScriptedOpenAI({ respond: scriptFromTurns([{ content: "hi" }]) });
 *   const client = new OpenAI({ baseURL: srv.url, apiKey: "test" });
 *   ...; await srv.close();
 *
 * If `respond` throws, the request gets HTTP 500 `{ error: { message, type: "server_error" } }`.
 */
export async function startScriptedOpenAI(opts: ScriptedOpenAIOptions): Promise<ScriptedOpenAI> {
  const requests: ChatRequest[] = [];
  const rawRequests: string[] = [];
  const models = opts.models ?? ["scripted-model"];

  const server = http.createServer((req, res) => {
    if (opts.closeConnections) res.shouldKeepAlive = false;
    void (async () => {
      const path = (req.url ?? "/").split("?")[0].replace(/\/+$/, "");
      if (req.method === "GET" && path === "/v1/models") {
        sendJson(res, 200, { object: "list", data: models.map((id) => ({ id, object: "model", created: CREATED_BASE, owned_by: "symtrace-scripted" })) });
        return;
      }
      if (path !== "/v1/chat/completions") return apiError(res, 404, `unknown route ${req.method} ${path}`);
      if (req.method !== "POST") return apiError(res, 405, "use POST");
      const raw = await readText(req);
      let body: ChatRequest;
      try {
        body = JSON.parse(raw) as ChatRequest;
      } catch {
        return apiError(res, 400, "request body is not valid JSON");
      }
      if (!body || typeof body !== "object" || !Array.isArray(body.messages)) return apiError(res, 400, "`messages` must be an array");
      const n = requests.length;
      requests.push(body);
      rawRequests.push(raw);
      let r: Normalized;
      try {
        r = normalizeReply(opts.respond(body, n), n);
      } catch (e) {
        return apiError(res, 500, `scripted responder failed: ${e instanceof Error ? e.message : String(e)}`, "server_error");
      }
      if (body.stream) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...(opts.closeConnections ? {} : { connection: "keep-alive" }) });
        for (const c of completionChunks(body, r, n)) res.write(`data: ${JSON.stringify(c)}\n\n`);
        res.end("data: [DONE]\n\n");
      } else {
        sendJson(res, 200, completionJson(body, r, n));
      }
    })().catch((e: unknown) => {
      if (!res.headersSent) apiError(res, 500, e instanceof Error ? e.message : String(e), "server_error");
      else res.destroy();
    });
  });

  const port = await listenOnLoopback(server, opts.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    rawRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A responder that returns `turns[n]` for the n-th request (0-based) and throws (→ HTTP 500)
 * once the script is exhausted. Pure in `n`: the same script gives the same replies per server.
 */
export function scriptFromTurns(turns: ScriptedReply[]): ScriptedResponder {
  return (_req, n) => {
    if (n >= turns.length) throw new Error(`script exhausted: request #${n} but only ${turns.length} scripted turn(s)`);
    return turns[n];
  };
}

/** One planned tool call for {@link echoPlanner}. */
export interface PlannedCall {
  name: string;
  arguments: unknown;
}

/** What {@link echoPlanner}'s `final` callback sees. */
export interface PlannerContext {
  /** The last user message text in the request. */
  task: string;
  /** Tool observations (role "tool" message texts) in the request, in order. */
  observations: string[];
  req: ChatRequest;
}

/**
 * A deterministic "planner" responder: it looks only at the request messages. It counts the
 * assistant messages that carry `tool_calls` (= plan steps already taken in this
 * conversation) and answers with the next step of `plan` (a step is one call or an array of
 * calls issued in parallel from one assistant message). When every step is done it answers
 * with text: `final(ctx)` or, by default, `"echo: <task>"` followed by the observations.
 * Different conversations (agents) on one server thus each progress independently.
 *
 * @example echoPlanner({ plan: [{ name: "search_docs", arguments: { query: "parks" } }] })
 */
export function echoPlanner(opts: { plan?: Array<PlannedCall | PlannedCall[]>; final?: (ctx: PlannerContext) => string } = {}): ScriptedResponder {
  const plan = opts.plan ?? [];
  return (req) => {
    const msgs = req.messages ?? [];
    const done = msgs.filter((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0).length;
    if (done < plan.length) {
      const step = plan[done];
      return { toolCalls: (Array.isArray(step) ? step : [step]).map((c) => ({ name: c.name, arguments: c.arguments })) };
    }
    const users = msgs.filter((m) => m.role === "user");
    const ctx: PlannerContext = { task: messageText(users[users.length - 1]), observations: msgs.filter((m) => m.role === "tool").map(messageText), req };
    return { content: opts.final ? opts.final(ctx) : [`echo: ${ctx.task}`, ...ctx.observations].join("\n") };
  };
}
