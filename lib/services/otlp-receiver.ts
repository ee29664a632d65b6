/**
 * The OTLP/HTTP trace receiver (issue 16 item 1): `POST /v1/traces` and
 * `POST /api/public/otel/v1/traces` (app/v1/traces/route.ts, app/api/public/otel/v1/traces/route.ts)
 * both call {@link receiveOtlpTraces}; tests and the benchmark mount it behind a plain node http
 * server (`otlpNodeHandler`).
 *
 * Order of checks, each refusal writing nothing:
 * 1. Content-Type `application/x-protobuf` or `application/json` (else 415);
 * 2. API key with scope `traces:write` (`Authorization: Bearer <key>` or Basic) (else 401);
 * 3. body at most SYMTRACE_OTLP_MAX_BYTES (default 32 MiB), before and after gzip (else 413);
 * 4. `Content-Encoding` gzip or none (else 415); a body that does not decode: 400;
 * 5. the body (as received, decompressed) and one row per accepted span are stored in one
 *    transaction (lib/db storeOtlpBatch), then 200 with an
 *    ExportTraceServiceResponse (protobuf for protobuf requests, JSON for JSON), carrying
 *    `partial_success {rejected_spans, error_message}` when some spans were refused (bad ids, no
 *    start time). A database failure answers 503 (the exporter retries).
 * Failure bodies are google.rpc.Status `{code, message}` in the request's encoding (OTLP spec,
 * "Failures").
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { gunzipSync } from "node:zlib";
import { apiKeyFromHeaders, storeOtlpBatch, touchApiKey, verifyApiKey, type Db } from "../db";
import { readEnv, type Env } from "../env";
import { encodeExportResponse, encodeStatus, indexJsonRequest, indexProtobufRequest, OtlpDecodeError } from "../otlp/codec";

/** Default body limit: 32 MiB (SYMTRACE_OTLP_MAX_BYTES overrides). */
export const DEFAULT_OTLP_MAX_BYTES = 32 * 1024 * 1024;

/** The receiver's body limit in bytes. */
export function otlpMaxBytes(env: Env = readEnv()): number {
  return env.SYMTRACE_OTLP_MAX_BYTES ?? DEFAULT_OTLP_MAX_BYTES;
}

type Kind = "protobuf" | "json";

// google.rpc.Code values used in Status bodies.
const RPC = { INVALID_ARGUMENT: 3, UNAUTHENTICATED: 16, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14 } as const;

function reply(kind: Kind, status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  const b = encodeStatus(kind, code, message);
  return new Response(b.body as BodyInit, { status, headers: { "content-type": b.contentType, ...headers } });
}

class TooLarge extends Error {}

/** Read a body stream, stopping (and throwing TooLarge) past `limit` bytes. */
async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts, total);
}

/** Message for partial_success: how many spans were refused and the first reasons (with JSON paths). */
function rejectionMessage(rejected: Array<{ path: string; message: string }>): string {
  const shown = rejected.slice(0, 5).map((r) => `${r.path}: ${r.message}`);
  return `${rejected.length} span(s) rejected: ${shown.join("; ")}${rejected.length > shown.length ? "; ..." : ""}`;
}

/**
 * Handle one OTLP/HTTP ExportTraceServiceRequest.
 * @param db the database the spans are staged in
 * @param req the request (Web `Request`: Next.js route handler or {@link otlpNodeHandler})
 * @param o.maxBytes body limit (default {@link otlpMaxBytes})
 * @returns the OTLP response (200 / 400 / 401 / 413 / 415 / 503); never throws
 */
export async function receiveOtlpTraces(db: Db, req: Request, o: { maxBytes?: number } = {}): Promise<Response> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const kind: Kind | null = type === "application/x-protobuf" || type === "application/protobuf" ? "protobuf" : type === "application/json" ? "json" : null;
  if (!kind) return reply("json", 415, RPC.INVALID_ARGUMENT, `unsupported Content-Type "${type}": send application/x-protobuf or application/json (OTLP/HTTP)`);

  const key = apiKeyFromHeaders(req.headers);
  const verified = key ? await verifyApiKey(db, key).catch(() => null) : null;
  if (!verified) {
    return reply(kind, 401, RPC.UNAUTHENTICATED, key ? "invalid or revoked API key" : "missing API key: send Authorization: Bearer <key> (create one with `npm run symtrace -- apikey create --name <n>` or on the admin page)", {
      "www-authenticate": 'Bearer realm="symtrace-otlp"',
    });
  }

  const limit = o.maxBytes ?? otlpMaxBytes();
  const tooLarge = () => reply(kind, 413, RPC.RESOURCE_EXHAUSTED, `request body larger than ${limit} bytes (SYMTRACE_OTLP_MAX_BYTES); lower the exporter's batch size`);
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (declared > limit) return tooLarge();
  let raw: Buffer;
  try {
    raw = await readLimited(req.body, limit);
  } catch (e) {
    if (e instanceof TooLarge) return tooLarge();
    return reply(kind, 400, RPC.INVALID_ARGUMENT, `could not read the body: ${(e as Error).message}`);
  }

  const encoding = (req.headers.get("content-encoding") ?? "").trim().toLowerCase();
  let body: Buffer = raw;
  if (encoding === "gzip") {
    try {
      body = gunzipSync(raw, { maxOutputLength: limit });
    } catch (e) {
      if (e instanceof RangeError || (e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return tooLarge();
      return reply(kind, 400, RPC.INVALID_ARGUMENT, `Content-Encoding gzip, but the body is not valid gzip: ${(e as Error).message}`);
    }
  } else if (encoding !== "" && encoding !== "identity") {
    return reply(kind, 415, RPC.INVALID_ARGUMENT, `unsupported Content-Encoding "${encoding}": use gzip or none`);
  }

  let decoded;
  try {
    decoded = kind === "protobuf" ? indexProtobufRequest(body) : indexJsonRequest(body.toString("utf8"));
  } catch (e) {
    if (e instanceof OtlpDecodeError) return reply(kind, 400, RPC.INVALID_ARGUMENT, e.message);
    return reply(kind, 400, RPC.INVALID_ARGUMENT, `undecodable body: ${(e as Error).message}`);
  }

  try {
    await storeOtlpBatch(db, { kind, body, keys: decoded.keys });
  } catch (e) {
    console.error(`OTLP receiver: could not store ${decoded.keys.length} span(s): ${(e as Error).message}`);
    return reply(kind, 503, RPC.UNAVAILABLE, "the spans could not be stored; retry later", { "retry-after": "2" });
  }
  // After the spans are committed (a refused request writes nothing); best effort.
  if (verified.touch) await touchApiKey(db, verified.id).catch(() => undefined);
  const r = encodeExportResponse(kind, decoded.rejected.length, decoded.rejected.length ? rejectionMessage(decoded.rejected) : "");
  return new Response(r.body as BodyInit, { status: 200, headers: { "content-type": r.contentType } });
}

/**
 * A node `http` request listener serving the receiver at `/v1/traces` and
 * `/api/public/otel/v1/traces` (tests, the benchmark, the kill test's child process); other
 * paths get 404. The same {@link receiveOtlpTraces} as the app's route handlers.
 */
export function otlpNodeHandler(db: Db, o: { maxBytes?: number } = {}) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method !== "POST" || (url.pathname !== "/v1/traces" && url.pathname !== "/api/public/otel/v1/traces")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        req.on("data", (c: Buffer) => controller.enqueue(new Uint8Array(c.buffer, c.byteOffset, c.byteLength)));
        req.on("end", () => controller.close());
        req.on("error", (e) => controller.error(e));
      },
      cancel() {
        req.resume();
      },
    });
    const request = new Request(url, { method: "POST", headers, body, duplex: "half" } as RequestInit);
    void receiveOtlpTraces(db, request, o).then(async (r) => {
      const buf = Buffer.from(await r.arrayBuffer());
      res.writeHead(r.status, Object.fromEntries(r.headers.entries())).end(buf);
    });
  };
}
