/**
 * The OpenAI-compatible proxy and the tool gateway (Node http; seeds/000 §3 Boundary Logging and
 * Result Injection). Both hand every boundary request to a lib/replay session and do what its
 * `Step` says: forward live (and record), return a recorded (or substituted: a proposed correction
 * standing in for a model call) response, or refuse (divergence / prefix verified).
 *
 *   LLM proxy   GET  /v1/models                   recorded list (replay), upstream (record), or config.model
 *               POST /v1/chat/completions         boundary "llm", protocol openai-chat; `stream: true` = server-sent events
 *               POST /v1/responses                boundary "llm", protocol openai-responses (-> <upstream>/responses)
 *               POST /v1/embeddings               boundary "llm", protocol openai-embeddings (-> <upstream>/embeddings)
 *               POST /v1/messages                 boundary "llm", protocol anthropic-messages (-> <anthropicUpstream>/v1/messages)
 *               any other route                   boundary "llm", protocol unknown-route: recorded as a failed
 *                                                 call (HTTP 404, request `{ method, path, body }`), never forwarded
 *   tool gateway POST /<toolName>  (JSON args)     boundary "tool", request `{ tool, arguments }`
 *               POST /mcp                         MCP Streamable HTTP gateway (./mcp.ts): tools/list, tools/call
 * The routes also answer without the `/v1` prefix. ANTHROPIC_BASE_URL is the proxy's root
 * (`anthropicUrl`, the Anthropic SDK appends `/v1/messages`). The `x-symtrace-agent` request
 * header names the calling agent (lib/replay agents.ts rule 1); it is not forwarded.
 *
 * Streaming: upstream SSE is parsed with eventsource-parser; every event is written to the MAS as
 * soon as it arrives and stored in order (`{ stream: true, events: [{ data, event?, id? }] }`).
 * An error event inside the stream (ProtocolAdapter.streamError) fails the call; a MAS that closes
 * the connection before the answer ended fails it at that moment (`ClientAborted`: the upstream
 * is aborted, only the events written before the close are stored); lib/replay/README.md.
 * A replayed stream is written event by event (one write per event, yielding to the event loop
 * between events), never re-chunked or buffered into one write.
 *
 * Refusals use HTTP 400 (which OpenAI SDKs do not retry) with
 * `{ error: { type: "symtrace_divergence" | "symtrace_prefix_verified", message } }`.
 */
import http from "node:http";
import { text as readText } from "node:stream/consumers";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createParser } from "eventsource-parser";
import { formatSseEvent, isStreamedResponse, protocolAdapter, type BoundaryOutcome, type BoundarySession, type DivergenceReport, type ProtocolName, type SseEvent, type Step, type TargetResolution } from "../lib/replay";
import { handleMcp, McpUpstream } from "./mcp";
import { fetchErrorText } from "./fetch-error";
import { beginWhenReady } from "./wait";

/** Why a session stopped the run (the CLI then stops the MAS). */
export type ProxyStop =
  | { kind: "diverged"; report: DivergenceReport }
  | { kind: "prefix-verified"; verified: number; target: TargetResolution }
  /** Partial rollout: the MAS asked for a live LLM call past `maxLiveLlm`; it is refused and the run ends. */
  | { kind: "rollout-limit"; verified: number; liveLlm: number };

/** Options of `startBoundaryProxy`. */
export interface BoundaryProxyOptions {
  /** The record or replay session every boundary request goes through. */
  session: BoundarySession;
  /** Live LLM endpoint, an OpenAI base URL ending in `/v1` (requests go to `<upstream>/chat/completions`). */
  upstream?: string;
  /** Live tool server base URL (requests go to `<toolUpstream>/<toolName>`). */
  toolUpstream?: string;
  /**
   * Live Anthropic base URL, without `/v1` (requests go to `<anthropicUpstream>/v1/messages`).
   * Default: `upstream` with a trailing `/v1` removed (one local server speaking both).
   */
  anthropicUpstream?: string;
  /** Live MCP server (Streamable HTTP endpoint URL) behind `<toolUrl>/mcp`. */
  mcpUpstream?: string;
  /** `/v1/models` body to serve (replay: the recorded one). */
  models?: unknown;
  /** Model id listed by `/v1/models` when there is neither `models` nor an upstream. */
  defaultModel?: string;
  /** Called once, when the session stops the run. */
  onStop?: (stop: ProxyStop) => void;
  /** Upstream request timeout in ms (default 600000). */
  timeoutMs?: number;
  /** Replay: longest wait for a concurrent agent's recorded predecessor before `reordered` (ms, default 3000; proxy/wait.ts). */
  reorderWaitMs?: number;
}

/** A running proxy + gateway pair. */
export interface BoundaryProxy {
  /** OpenAI base URL for the MAS (`http://127.0.0.1:<port>/v1`): OPENAI_BASE_URL. */
  llmUrl: string;
  /** Tool gateway base URL (`http://127.0.0.1:<port>`): SYMTRACE_TOOL_URL. */
  toolUrl: string;
  /** Anthropic base URL for the MAS (`http://127.0.0.1:<port>`, the LLM proxy's root): ANTHROPIC_BASE_URL. */
  anthropicUrl: string;
  /** MCP Streamable HTTP endpoint of the gateway (`<toolUrl>/mcp`): SYMTRACE_MCP_URL. */
  mcpUrl: string;
  /** The `/v1/models` body last fetched from the upstream (record mode), to store in the bundle. */
  readonly modelsSeen: unknown;
  /** Boundary requests still in flight. */
  readonly inFlight: number;
  /** Resolves when no boundary request is in flight. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body ?? null);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function apiError(res: http.ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { error: { message, type, param: null, code: type } });
}

const tick = () => new Promise<void>((r) => setImmediate(r));

/** Write a stored stream event by event (one write per event). */
async function writeStream(res: http.ServerResponse, events: SseEvent[], httpStatus: number): Promise<void> {
  res.writeHead(httpStatus, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  for (const e of events) {
    if (res.destroyed) return;
    if (!res.write(formatSseEvent(e))) await new Promise<void>((r) => res.once("drain", () => r()));
    await tick();
  }
  res.end();
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

const trimSlash = (u: string) => u.replace(/\/+$/, "");


/** LLM routes (path without a `/v1` prefix) -> protocol and upstream path. */
const LLM_ROUTES: Record<string, { protocol: ProtocolName; path: string; anthropic?: true }> = {
  "/chat/completions": { protocol: "openai-chat", path: "/chat/completions" },
  "/responses": { protocol: "openai-responses", path: "/responses" },
  "/embeddings": { protocol: "openai-embeddings", path: "/embeddings" },
  "/messages": { protocol: "anthropic-messages", path: "/v1/messages", anthropic: true },
};

/** Request headers passed on to a live upstream (authentication and API versions). */
const FORWARDED_HEADERS = ["authorization", "x-api-key", "anthropic-version", "anthropic-beta", "openai-beta", "openai-organization", "openai-project"];

/**
 * Start the LLM proxy and the tool gateway on free ports of 127.0.0.1.
 * @returns their URLs, `idle()` and `close()`
 * @throws Error when a port cannot be bound
 */
/** An upstream body as JSON, or `{ raw }` when it is not JSON (kept as received). */
function jsonOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text };
  }
}

export async function startBoundaryProxy(opts: BoundaryProxyOptions): Promise<BoundaryProxy> {
  const { session } = opts;
  let stopped = false;
  let modelsSeen: unknown = undefined;
  let inFlight = 0;
  let waiters: (() => void)[] = [];
  const timeoutMs = opts.timeoutMs ?? 600_000;

  const enter = () => inFlight++;
  const leave = () => {
    inFlight--;
    if (inFlight === 0) {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    }
  };

  /** Why a request is refused, in words; notifies `onStop` once. */
  const refusal = (step: Extract<Step, { kind: "diverged" | "stopped" }>): { type: string; message: string } => {
    notifyStop(step);
    if (step.kind === "diverged") return { type: "symtrace_divergence", message: `symtrace replay stopped at the first divergence: ${step.report.message}` };
    if (step.status === "rollout-limit") return { type: "symtrace_rollout_limit", message: `symtrace partial rollout: ${step.liveLlm} live LLM steps done, the run is stopped here` };
    return { type: "symtrace_prefix_verified", message: `symtrace replay verified the prefix (${step.verified} records) and stopped at the target ${step.target!.boundaryNodeId} (no live upstream)` };
  };

  /** Refuse a request the session stopped on; notify once. */
  const refuse = (res: http.ServerResponse, step: Extract<Step, { kind: "diverged" | "stopped" }>) => {
    const r = refusal(step);
    apiError(res, 400, r.type, r.message);
  };

  const notifyStop = (step: Extract<Step, { kind: "diverged" | "stopped" }>) => {
    if (!stopped) {
      stopped = true;
      opts.onStop?.(
        step.kind === "diverged"
          ? { kind: "diverged", report: step.report }
          : step.status === "rollout-limit"
            ? { kind: "rollout-limit", verified: step.verified, liveLlm: step.liveLlm }
            : { kind: "prefix-verified", verified: step.verified, target: step.target! },
      );
    }
  };

  /** Serve a recorded response; a stream as the client asked for it (`streamEventsFor`: no usage chunk unless requested). */
  const serveRecorded = async (res: http.ServerResponse, step: Extract<Step, { kind: "recorded" | "substituted" }>, request?: unknown, protocol?: ProtocolName) => {
    if (isStreamedResponse(step.response)) await writeStream(res, request === undefined ? step.response.events : protocolAdapter(protocol).streamEventsFor(step.response.events, request), step.httpStatus);
    else sendJson(res, step.httpStatus, step.response);
  };

  const anthropicBase = opts.anthropicUpstream ?? (opts.upstream ? trimSlash(opts.upstream).replace(/\/v1$/, "") : undefined);
  const mcpUpstream = opts.mcpUpstream ? new McpUpstream(opts.mcpUpstream, timeoutMs) : null;

  async function liveLlm(req: http.IncomingMessage, res: http.ServerResponse, step: Extract<Step, { kind: "live" }>, route: { protocol: ProtocolName; path: string; anthropic?: true }) {
    const t0 = performance.now();
    const base = route.anthropic ? anthropicBase : opts.upstream;
    if (!base) {
      const message = route.anthropic ? "no live Anthropic upstream configured (--anthropic-upstream or --upstream)" : "no live LLM upstream configured (--upstream)";
      session.complete(step.ticket, { response: { error: { message, type: "symtrace_no_upstream" } }, httpStatus: 502, error: { type: "NoUpstream", message } });
      return apiError(res, 502, "symtrace_no_upstream", message);
    }
    const headers: Record<string, string> = { "content-type": "application/json", accept: String(req.headers.accept ?? "application/json") };
    for (const h of FORWARDED_HEADERS) if (req.headers[h]) headers[h] = String(req.headers[h]);
    // The boundary is completed once: normally after the upstream answered, or at the moment the
    // MAS closes its connection before the answer ended (ClientAborted: the upstream is aborted,
    // only the events written before the close are recorded).
    let completed = false;
    const complete = (outcome: BoundaryOutcome) => {
      if (completed) return;
      completed = true;
      session.complete(step.ticket, outcome);
    };
    const abortUpstream = new AbortController();
    let streamed: { events: SseEvent[]; status: number } | null = null;
    const onClose = () => {
      if (res.writableEnded || completed) return;
      const message = streamed ? `the MAS closed the stream after ${streamed.events.length} events` : "the MAS closed the connection before the proxy answered";
      complete({
        response: streamed ? { stream: true, events: [...streamed.events] } : { error: { message, type: "symtrace_client_aborted" } },
        httpStatus: streamed ? streamed.status : 499,
        latencyMs: performance.now() - t0,
        error: { type: "ClientAborted", message },
      });
      abortUpstream.abort();
    };
    // The MAS's FIN (`end` on the socket) is seen at once; `close` on the response only once a
    // later write fails, i.e. after one more event was written to nobody.
    const socket = req.socket;
    res.on("close", onClose);
    socket.on("end", onClose);
    res.once("close", () => socket.off("end", onClose));
    let up: Response;
    try {
      up = await fetch(`${trimSlash(base)}${route.path}`, { method: "POST", headers, body: JSON.stringify(step.forward), signal: AbortSignal.any([abortUpstream.signal, AbortSignal.timeout(timeoutMs)]) });
    } catch (e) {
      if (completed) return; // the MAS went away (recorded by onClose)
      const message = `upstream unreachable: ${fetchErrorText(e)}`;
      complete({ response: { error: { message, type: "symtrace_upstream_error" } }, httpStatus: 502, latencyMs: performance.now() - t0, error: { type: "UpstreamUnreachable", message } });
      return apiError(res, 502, "symtrace_upstream_error", message);
    }
    const ctype = up.headers.get("content-type") ?? "";
    if (ctype.includes("text/event-stream") && up.body) {
      const events: SseEvent[] = [];
      streamed = { events, status: up.status };
      res.writeHead(up.status, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      res.flushHeaders();
      const parser = createParser({
        onEvent: (ev) => {
          if (completed) return; // the MAS closed the stream: nothing more is written or recorded
          const e: SseEvent = { data: ev.data };
          if (ev.event !== undefined) e.event = ev.event;
          if (ev.id !== undefined) e.id = ev.id;
          events.push(e);
          res.write(formatSseEvent(e));
        },
      });
      const decoder = new TextDecoder();
      let error: { type: string; message: string } | null = null;
      try {
        for await (const chunk of up.body as unknown as AsyncIterable<Uint8Array>) {
          if (completed) break;
          parser.feed(decoder.decode(chunk, { stream: true }));
        }
        parser.feed(decoder.decode());
      } catch (e) {
        error = { type: "StreamError", message: (e as Error).message };
      }
      if (completed) return;
      // An error the upstream reported inside the stream (HTTP 200) fails the call like a broken stream.
      error = protocolAdapter(route.protocol).streamError(events) ?? error;
      complete({ response: { stream: true, events }, httpStatus: up.status, latencyMs: performance.now() - t0, error });
      res.end();
      return;
    }
    let text: string;
    try {
      text = await up.text();
    } catch (e) {
      if (completed) return;
      throw e;
    }
    if (completed) return;
    const body = jsonOrRaw(text);
    const error = up.status >= 400 ? { type: `http_${up.status}`, message: text.slice(0, 500) } : null;
    complete({ response: body, httpStatus: up.status, latencyMs: performance.now() - t0, error });
    if (typeof body === "object" && body !== null && "raw" in body) {
      res.writeHead(up.status, { "content-type": ctype || "text/plain" });
      res.end(text);
    } else sendJson(res, up.status, body);
  }

  async function liveTool(res: http.ServerResponse, tool: string, step: Extract<Step, { kind: "live" }>) {
    const t0 = performance.now();
    const args = (step.forward as { arguments?: unknown }).arguments ?? {};
    if (!opts.toolUpstream) {
      const message = `no live tool upstream configured (--tool-upstream) for tool "${tool}"`;
      const body = { status: "failed", error: { type: "NoToolUpstream", message } };
      session.complete(step.ticket, { response: body, httpStatus: 502, error: body.error });
      return sendJson(res, 502, body);
    }
    try {
      const up = await fetch(`${trimSlash(opts.toolUpstream)}/${encodeURIComponent(tool)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(args),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await up.text();
      const body = jsonOrRaw(text);
      session.complete(step.ticket, { response: body, httpStatus: up.status, latencyMs: performance.now() - t0, error: up.status >= 400 ? { type: `http_${up.status}`, message: text.slice(0, 500) } : null });
      sendJson(res, up.status, body);
    } catch (e) {
      const body = { status: "failed", error: { type: "ToolUnreachable", message: `tool upstream unreachable: ${fetchErrorText(e)}` } };
      session.complete(step.ticket, { response: body, httpStatus: 502, latencyMs: performance.now() - t0, error: body.error });
      sendJson(res, 502, body);
    }
  }

  /**
   * A route the proxy does not know: a failed llm boundary (protocol unknown-route, request
   * `{ method, path, body? }`, HTTP 404), never forwarded, so the bundle shows what the MAS tried.
   */
  async function unknownRoute(req: http.IncomingMessage, res: http.ServerResponse, p: string, agent: string | null) {
    const text = await readText(req);
    const request: Record<string, unknown> = { method: req.method ?? "GET", path: p };
    if (text.trim()) request.body = jsonOrRaw(text);
    const message = `unknown route ${req.method} ${p} (the proxy serves /v1/chat/completions, /v1/responses, /v1/embeddings, /v1/messages, /v1/models)`;
    const step = await beginWhenReady(session, { boundary: "llm", request, protocol: "unknown-route", agent }, opts.reorderWaitMs);
    if (step.kind === "recorded" || step.kind === "substituted") return serveRecorded(res, step);
    if (step.kind !== "live") return refuse(res, step);
    const body = { error: { message, type: "not_found", param: null, code: "not_found" } };
    session.complete(step.ticket, { response: body, httpStatus: 404, error: { type: "UnknownRoute", message } });
    return sendJson(res, 404, body);
  }

  const llmServer = http.createServer((req, res) => {
    enter();
    void (async () => {
      const p = (req.url ?? "/").split("?")[0].replace(/\/+$/, "");
      if (req.method === "GET" && (p === "/v1/models" || p === "/models")) {
        if (opts.models !== undefined) return sendJson(res, 200, opts.models);
        if (opts.upstream && session.mode === "record") {
          try {
            const up = await fetch(`${trimSlash(opts.upstream)}/models`, { headers: req.headers.authorization ? { authorization: String(req.headers.authorization) } : {} });
            const body = await up.json();
            if (up.ok) modelsSeen = body;
            return sendJson(res, up.status, body);
          } catch (e) {
            return apiError(res, 502, "symtrace_upstream_error", `upstream unreachable: ${fetchErrorText(e)}`);
          }
        }
        return sendJson(res, 200, { object: "list", data: [{ id: opts.defaultModel ?? "symtrace-replay", object: "model", created: 0, owned_by: "symtrace" }] });
      }
      const route = LLM_ROUTES[p.replace(/^\/v1(?=\/)/, "")];
      const agentHeader = req.headers["x-symtrace-agent"];
      const agent = typeof agentHeader === "string" && agentHeader.trim() ? agentHeader.trim() : null;
      if (!route || req.method !== "POST") return unknownRoute(req, res, p, agent);
      let body: unknown;
      try {
        body = JSON.parse(await readText(req));
      } catch {
        return apiError(res, 400, "invalid_request_error", "request body is not valid JSON");
      }
      const step = await beginWhenReady(session, { boundary: "llm", request: body, protocol: route.protocol, agent }, opts.reorderWaitMs);
      // A substituted response (the proposed correction, issue 14 item 4) is served like a recorded one.
      if (step.kind === "recorded" || step.kind === "substituted") return serveRecorded(res, step, body, route.protocol);
      if (step.kind === "live") return liveLlm(req, res, step, route);
      return refuse(res, step);
    })()
      .catch((e: unknown) => {
        if (!res.headersSent) apiError(res, 500, "symtrace_proxy_error", (e as Error).message);
        else res.destroy();
      })
      .finally(leave);
  });

  const toolServer = http.createServer((req, res) => {
    enter();
    void (async () => {
      const p = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/^\/+|\/+$/g, "");
      if (p === "mcp") return handleMcp(req, res, await readText(req), { session, upstream: mcpUpstream, onRefused: (step) => refusal(step).message });
      if (req.method !== "POST" || !p || p.includes("/")) return sendJson(res, 404, { status: "failed", error: { type: "UnknownRoute", message: "use POST <gateway>/<toolName> with JSON arguments" } });
      const text = await readText(req);
      let args: unknown;
      try {
        args = text.trim() ? JSON.parse(text) : {};
      } catch {
        return sendJson(res, 400, { status: "failed", error: { type: "BadArguments", message: "tool arguments are not valid JSON" } });
      }
      const step = await beginWhenReady(session, { boundary: "tool", request: { tool: p, arguments: args } }, opts.reorderWaitMs);
      if (step.kind === "recorded" || step.kind === "substituted") return serveRecorded(res, step);
      if (step.kind === "live") return liveTool(res, p, step);
      return refuse(res, step);
    })()
      .catch((e: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { status: "failed", error: { type: "ProxyError", message: (e as Error).message } });
        else res.destroy();
      })
      .finally(leave);
  });

  const llmPort = await listen(llmServer);
  const toolPort = await listen(toolServer);
  return {
    llmUrl: `http://127.0.0.1:${llmPort}/v1`,
    toolUrl: `http://127.0.0.1:${toolPort}`,
    anthropicUrl: `http://127.0.0.1:${llmPort}`,
    mcpUrl: `http://127.0.0.1:${toolPort}/mcp`,
    get modelsSeen() {
      return modelsSeen;
    },
    get inFlight() {
      return inFlight;
    },
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
    close: async () => {
      const closeOne = (s: http.Server) =>
        new Promise<void>((r) => {
          s.close(() => r());
          s.closeAllConnections();
        });
      await Promise.all([closeOne(llmServer), closeOne(toolServer)]);
    },
  };
}
