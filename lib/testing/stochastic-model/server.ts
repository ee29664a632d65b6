/**
 * A seeded stochastic local model server — TEST SUPPORT, never a real model. Every response says
 * so: the model is `seeded-stochastic-test-model`, every answer text starts with
 * `[seeded-stochastic-test-model]`, and every HTTP response has the header
 * `x-symtrace-test-model: seeded-stochastic`.
 *
 * It speaks the wire protocols the real multi-agent frameworks use, so they run unmodified
 * against it (issue 21 item 6):
 *
 * | route | protocol |
 * |---|---|
 * | `POST /v1/chat/completions` | OpenAI Chat Completions (stream or not, tool calls, `stream_options.include_usage`) |
 * | `POST /v1/responses` | OpenAI Responses (input items, `function_call` / `function_call_output`, `previous_response_id` chains from what this server answered, `stream: true` events) |
 * | `POST /v1/messages` | Anthropic Messages (`tool_use` / `tool_result`, streaming events) |
 * | `POST /v1/embeddings` | OpenAI embeddings (float or base64) |
 * | `GET /v1/models` | the one model |
 *
 * The agent behaviour (call a tool, hand off, answer) is ./policy.ts. What is random, from one
 * pure-rand xoroshiro128+ generator seeded by `seed`: every id (completion, response, message,
 * tool-call ids), filler words and argument values, and the latency of every response
 * (`latencyMs`, uniform) and between stream events (`chunkDelayMs`). The generator advances per
 * request in arrival order, so concurrent clients make different recordings for different seeds
 * and latencies — the jitter the concurrency tests need. Errors: HTTP 400 with
 * `{ error: { message } }` naming the bad field; 404 for an unknown route or an unknown
 * `previous_response_id`.
 */
import { listenOnLoopback } from "../listen";
import http from "node:http";
import { text as readText } from "node:stream/consumers";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { fromAnthropic, fromChatCompletions, fromResponses, type Conversation } from "./conversation";
import { decide, STOCHASTIC_MODEL, type Decision, type Rng } from "./policy";
import {
  anthropicEvents,
  anthropicMessage,
  chatCompletion,
  chatCompletionChunks,
  embeddingsResponse,
  randomId,
  responseEvents,
  responseObject,
  responseOutput,
  withIds,
  type SseEvent,
} from "./wire";

export interface StochasticModelOptions {
  /** Seed of the generator (32-bit integer). Default 1. */
  seed?: number;
  /** Response latency in ms, uniform in [min, max]. Default [2, 25]. */
  latencyMs?: [number, number];
  /** Delay between stream events in ms, uniform in [min, max]. Default [0, 3]. */
  chunkDelayMs?: [number, number];
  /** Embedding dimensions. Default 64. */
  embeddingDims?: number;
  /** TCP port on 127.0.0.1; default 0 (a free port). */
  port?: number;
  /** Called with each request served and the decision taken (for logs). */
  onServe?: (r: ServedRequest, d: Decision) => void;
}

/** One request the server answered (for assertions: which agent got what). */
export interface ServedRequest {
  route: "chat" | "responses" | "messages" | "embeddings";
  body: Record<string, unknown>;
  /** The protocol-neutral view (null for embeddings). */
  conversation: Conversation | null;
}

export interface StochasticModel {
  /** Base URL ending in `/v1` (OPENAI_BASE_URL). */
  url: string;
  /** Base URL without `/v1` (ANTHROPIC_BASE_URL: the Anthropic SDK appends `/v1/messages`). */
  origin: string;
  requests: ServedRequest[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CREATED_BASE = 1_760_000_000;

/** A pure-rand generator behind the small {@link Rng} interface. */
export function seededRng(seed: number): Rng {
  const g = xoroshiro128plus(seed | 0);
  return { int: (lo, hi) => uniformInt(g, lo, hi) };
}

/**
 * Start the server on 127.0.0.1.
 * @example const m = await startStochasticModel({ seed: 7 }); // OPENAI_BASE_URL=m.url, ANTHROPIC_BASE_URL=m.origin
 */
export async function startStochasticModel(opts: StochasticModelOptions = {}): Promise<StochasticModel> {
  const rng = seededRng(opts.seed ?? 1);
  const [lmin, lmax] = opts.latencyMs ?? [2, 25];
  const [cmin, cmax] = opts.chunkDelayMs ?? [0, 3];
  const dims = opts.embeddingDims ?? 64;
  const requests: ServedRequest[] = [];
  /** Responses API: id → the items of that response's conversation (input chain + its output). */
  const stored = new Map<string, unknown[]>();
  let n = 0;
  const served = (r: ServedRequest, d: Decision) => {
    requests.push(r);
    opts.onServe?.(r, d);
  };

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-symtrace-test-model": "seeded-stochastic" });
    res.end(text);
  };
  const fail = (res: http.ServerResponse, status: number, message: string, anthropic = false) =>
    send(res, status, anthropic ? { type: "error", error: { type: "invalid_request_error", message } } : { error: { message, type: "invalid_request_error", param: null, code: null } });
  const stream = async (res: http.ServerResponse, events: SseEvent[], named: boolean) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "x-symtrace-test-model": "seeded-stochastic" });
    for (const e of events) {
      const data = typeof e.data === "string" ? e.data : JSON.stringify(e.data);
      res.write(`${named && e.event ? `event: ${e.event}\n` : ""}data: ${data}\n\n`);
      const d = rng.int(cmin, cmax);
      if (d > 0) await sleep(d);
    }
    res.end();
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const route = (req.url ?? "/").split("?")[0].replace(/\/+$/, "");
      if (req.method === "GET" && route === "/v1/models") return send(res, 200, { object: "list", data: [{ id: STOCHASTIC_MODEL, object: "model", created: CREATED_BASE, owned_by: "symtrace-test" }] });
      const known = ["/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/embeddings"];
      if (!known.includes(route)) return fail(res, 404, `unknown route ${req.method} ${route} (seeded-stochastic-test-model serves ${known.join(", ")})`);
      if (req.method !== "POST") return fail(res, 405, "use POST");
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(await readText(req)) as Record<string, unknown>;
        if (!body || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
      } catch {
        return fail(res, 400, "request body is not a JSON object", route === "/v1/messages");
      }
      const created = CREATED_BASE + n++;
      await sleep(rng.int(lmin, lmax));

      if (route === "/v1/embeddings") {
        const input = typeof body.input === "string" ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.every((x) => typeof x === "string")) return fail(res, 400, "`input` must be a string or an array of strings");
        requests.push({ route: "embeddings", body, conversation: null });
        return send(res, 200, embeddingsResponse(input, typeof body.dimensions === "number" ? body.dimensions : dims, body.encoding_format === "base64"));
      }

      if (route === "/v1/chat/completions") {
        let conv: Conversation;
        try {
          conv = fromChatCompletions(body);
        } catch (e) {
          return fail(res, 400, (e as Error).message);
        }
        const d = withIds(decide(conv, rng), rng, "call_");
        served({ route: "chat", body, conversation: conv }, d);
        const chars = JSON.stringify(body.messages).length;
        if (body.stream === true) return stream(res, chatCompletionChunks(d, rng, chars, created, (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true), false);
        return send(res, 200, chatCompletion(d, rng, chars, created));
      }

      if (route === "/v1/responses") {
        const prev = body.previous_response_id;
        let history: unknown[] = [];
        if (typeof prev === "string") {
          const h = stored.get(prev);
          if (!h) return send(res, 404, { error: { message: `Previous response with id '${prev}' not found.`, type: "invalid_request_error", param: "previous_response_id", code: "previous_response_not_found" } });
          history = h;
        }
        let conv: Conversation;
        try {
          conv = fromResponses(body, history);
        } catch (e) {
          return fail(res, 400, (e as Error).message);
        }
        const d = withIds(decide(conv, rng), rng, "call_");
        served({ route: "responses", body, conversation: conv }, d);
        const parts = { id: randomId(rng, "resp_", 32), output: responseOutput(d, rng) };
        const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : (body.input as unknown[]);
        if (body.store !== false) stored.set(parts.id, [...history, ...input, ...parts.output]);
        const chars = JSON.stringify(body.input).length + history.length * 50;
        if (body.stream === true) return stream(res, responseEvents(body, parts, rng, chars, created), true);
        return send(res, 200, responseObject(body, parts, "completed", chars, created));
      }

      // /v1/messages (Anthropic)
      let conv: Conversation;
      try {
        conv = fromAnthropic(body);
      } catch (e) {
        return fail(res, 400, (e as Error).message, true);
      }
      const d = withIds(decide(conv, rng), rng, "toolu_");
      served({ route: "messages", body, conversation: conv }, d);
      const chars = JSON.stringify(body.messages).length;
      if (body.stream === true) return stream(res, anthropicEvents(d, rng, chars), true);
      return send(res, 200, anthropicMessage(d, rng, chars));
    })().catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { message: e instanceof Error ? e.message : String(e), type: "server_error" } });
      else res.destroy();
    });
  });

  const port = await listenOnLoopback(server, opts.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
