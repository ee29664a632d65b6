/**
 * The MCP gateway (issue 21 item 3): tools served over the Model Context Protocol's Streamable
 * HTTP transport (modelcontextprotocol.io/specification/2025-06-18/basic/transports, stateless
 * server: no `Mcp-Session-Id`), recorded and replayed as tool boundaries. The MAS's MCP client
 * points at `<tool gateway>/mcp` (SYMTRACE_MCP_URL); the gateway answers `initialize`, `ping` and
 * `notifications/*` itself and puts every `tools/list` and `tools/call` through the session:
 *
 *   tools/list  -> boundary "tool", request `{ mcp: "tools/list" }` (+ `cursor`)
 *   tools/call  -> boundary "tool", request `{ tool: <name>, arguments, mcp: "tools/call" }`
 *                  (the `tool`/`arguments` shape of the HTTP gateway, so a call an LLM response
 *                  named links to it as usual)
 *
 * The stored response is the JSON-RPC payload without envelope: `{ result }` or `{ error }`. A
 * `tools/call` result with `isError: true` or a JSON-RPC error marks the tool_result failed. Live
 * calls go to `mcpUpstream` (an MCP Streamable HTTP endpoint) through a minimal client that
 * initializes once, keeps its session id, and reads `application/json` or `text/event-stream`
 * answers. A refused request (divergence, prefix verified) gets a JSON-RPC error (-32000).
 * Other methods: -32601 (method not found). Answers are `application/json` (allowed by the spec).
 */
import { fetchErrorText } from "./fetch-error";
import type http from "node:http";
import { createParser } from "eventsource-parser";
import type { BoundarySession, Step } from "../lib/replay";
import { beginWhenReady } from "./wait";

/** Protocol versions the gateway accepts in `initialize` (the client's is echoed when listed). */
export const MCP_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON-RPC answer payload, without `jsonrpc` / `id`. */
export type RpcPayload = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

/** Minimal MCP Streamable HTTP client for the live upstream. */
export class McpUpstream {
  private sessionId: string | null = null;
  private version: string = MCP_PROTOCOL_VERSIONS[1];
  private init: Promise<void> | null = null;
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  private async post(message: Rec): Promise<{ payload: RpcPayload | null; headers: Headers }> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.sessionId) headers["mcp-session-id"] = this.sessionId;
    if (this.init) headers["mcp-protocol-version"] = this.version;
    const res = await fetch(this.url, { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(this.timeoutMs) });
    if (res.status === 202 || !("id" in message)) {
      await res.body?.cancel();
      return { payload: null, headers: res.headers };
    }
    const text = await res.text();
    if (!res.ok) return { payload: { error: { code: -32000, message: `MCP upstream HTTP ${res.status}: ${text.slice(0, 300)}` } }, headers: res.headers };
    const messages: unknown[] = [];
    if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
      const parser = createParser({ onEvent: (e) => messages.push(safeJson(e.data)) });
      parser.feed(text);
    } else {
      const v = safeJson(text);
      messages.push(...(Array.isArray(v) ? v : [v]));
    }
    const answer = messages.find((m) => isRec(m) && m.id === message.id && ("result" in m || "error" in m)) as Rec | undefined;
    if (!answer) return { payload: { error: { code: -32000, message: "MCP upstream sent no answer to the request" } }, headers: res.headers };
    return { payload: "error" in answer ? { error: answer.error as { code: number; message: string } } : { result: answer.result }, headers: res.headers };
  }

  private ensureInit(): Promise<void> {
    this.init ??= (async () => {
      const id = this.nextId++;
      const { payload, headers } = await this.post({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: this.version, capabilities: {}, clientInfo: { name: "symtrace-mcp-gateway", version: "1" } } });
      if (!payload || "error" in payload) throw new Error(`MCP upstream initialize failed: ${payload && "error" in payload ? payload.error.message : "no answer"}`);
      this.sessionId = headers.get("mcp-session-id");
      const v = isRec(payload.result) ? payload.result.protocolVersion : undefined;
      if (typeof v === "string") this.version = v;
      await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    })();
    return this.init;
  }

  /** One request to the upstream. @throws Error when it cannot be reached or initialized */
  async request(method: string, params: unknown): Promise<RpcPayload> {
    await this.ensureInit();
    const { payload } = await this.post({ jsonrpc: "2.0", id: this.nextId++, method, ...(params === undefined ? {} : { params }) });
    return payload ?? { error: { code: -32000, message: "MCP upstream sent no answer" } };
  }
}

function safeJson(t: string): unknown {
  try {
    return JSON.parse(t);
  } catch {
    return null;
  }
}

/** What the gateway needs from the proxy. */
export interface McpGatewayContext {
  session: BoundarySession;
  upstream: McpUpstream | null;
  /** Tell the proxy the session stopped the run (divergence / prefix verified / rollout limit). */
  onRefused(step: Extract<Step, { kind: "diverged" | "stopped" }>): string;
}

/** The boundary request of an MCP request (null for methods that are not tool boundaries). */
export function mcpBoundaryRequest(method: string, params: unknown): Rec | null {
  const p = isRec(params) ? params : {};
  if (method === "tools/list") return { mcp: "tools/list", ...(p.cursor !== undefined ? { cursor: p.cursor } : {}) };
  if (method === "tools/call") return { tool: typeof p.name === "string" ? p.name : "", arguments: p.arguments ?? {}, mcp: "tools/call" };
  return null;
}

/** Whether a stored MCP answer is a failure (a JSON-RPC error or a tool result with `isError`). */
export function mcpFailure(payload: RpcPayload): { type: string; message: string } | null {
  if ("error" in payload) return { type: "mcp_error", message: `${payload.error.code}: ${payload.error.message}` };
  if (isRec(payload.result) && payload.result.isError === true) {
    const c = Array.isArray(payload.result.content) ? payload.result.content : [];
    const text = c.map((b) => (isRec(b) && typeof b.text === "string" ? b.text : "")).join(" ");
    return { type: "mcp_tool_error", message: text.slice(0, 300) || "tool reported isError" };
  }
  return null;
}

async function answerOne(msg: Rec, ctx: McpGatewayContext): Promise<Rec | null> {
  if (!("id" in msg) || typeof msg.method !== "string") return null; // a notification or a response
  const id = msg.id;
  const reply = (p: RpcPayload): Rec => ({ jsonrpc: "2.0", id, ...p });
  const method = msg.method;
  if (method === "initialize") {
    const asked = isRec(msg.params) ? msg.params.protocolVersion : undefined;
    const version = typeof asked === "string" && (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[1];
    return reply({ result: { protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo: { name: "symtrace-mcp-gateway", version: "1" } } });
  }
  if (method === "ping") return reply({ result: {} });
  const request = mcpBoundaryRequest(method, msg.params);
  if (!request) return reply({ error: { code: -32601, message: `method not found: ${method} (the symtrace MCP gateway serves tools/list and tools/call)` } });
  const step = await beginWhenReady(ctx.session, { boundary: "tool", request });
  if (step.kind === "recorded" || step.kind === "substituted") return reply(step.response as RpcPayload);
  if (step.kind !== "live") return reply({ error: { code: -32000, message: ctx.onRefused(step), data: { type: step.kind === "diverged" ? "symtrace_divergence" : `symtrace_${step.status}` } } });
  let payload: RpcPayload;
  if (!ctx.upstream) payload = { error: { code: -32000, message: "no live MCP upstream configured (--mcp-upstream)" } };
  else {
    try {
      payload = await ctx.upstream.request(method, msg.params);
    } catch (e) {
      payload = { error: { code: -32000, message: `MCP upstream unreachable: ${fetchErrorText(e)}` } };
    }
  }
  ctx.session.complete(step.ticket, { response: payload, httpStatus: 200, error: mcpFailure(payload) });
  return reply(payload);
}

/**
 * Serve one HTTP request to `<gateway>/mcp` (module doc). GET (the optional server stream) and
 * DELETE answer 405, as the spec allows a server without sessions or a stream.
 */
export async function handleMcp(req: http.IncomingMessage, res: http.ServerResponse, body: string, ctx: McpGatewayContext): Promise<void> {
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST", "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "method not allowed: this gateway is stateless and offers no server stream" } }));
    return;
  }
  const parsed = safeJson(body);
  const batch = Array.isArray(parsed);
  const msgs = (batch ? parsed : [parsed]).filter(isRec);
  if (msgs.length === 0) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error: the body is not a JSON-RPC message" } }));
    return;
  }
  const answers: Rec[] = [];
  for (const m of msgs) {
    const a = await answerOne(m, ctx);
    if (a) answers.push(a);
  }
  if (answers.length === 0) {
    res.writeHead(202);
    res.end();
    return;
  }
  const text = JSON.stringify(batch ? answers : answers[0]);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
