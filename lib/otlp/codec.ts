/**
 * OTLP/HTTP trace payloads -> one flat list of OTLP/JSON spans (the shape lib/importers
 * otel-otlp.ts reads), and the standard responses back.
 *
 * Protobuf bodies (`application/x-protobuf`) are decoded by protobufjs from the official
 * opentelemetry-proto definitions (see `protoDir`; no hand-written wire parsing); JSON
 * bodies (`application/json`) follow the OTLP/JSON encoding (trace/span ids as hex strings, enums
 * as integers, 64-bit integers as decimal strings or numbers). Both are normalized to the same
 * OTLP/JSON span objects, so a stored span reads the same whichever encoding carried it.
 *
 * Pure: no database, no Next.js. Spec: https://opentelemetry.io/docs/specs/otlp/ (OTLP/HTTP,
 * partial success, failures).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import protobuf from "protobufjs";

/**
 * Directory holding `opentelemetry/proto/...` (override: SYMTRACE_OTLP_PROTO_DIR): the official
 * opentelemetry-proto definitions (proto v0.19 wire format: scope_spans), vendored unchanged in
 * `lib/otlp/proto/` (data files, Apache-2.0; where they come from: `lib/otlp/proto/SOURCE.md`).
 */
export function protoDir(): string {
  const env = process.env.SYMTRACE_OTLP_PROTO_DIR;
  if (env) return env;
  return path.join(process.cwd(), "lib", "otlp", "proto");
}

interface Codec {
  request: protobuf.Type;
  response: protobuf.Type;
  status: protobuf.Type;
}

let codec: Codec | null = null;

/**
 * The protobufjs types of the official definitions, loaded once per process.
 * @throws Error naming the directory when the .proto files are missing
 */
export function otlpCodec(): Codec {
  if (codec) return codec;
  const dir = protoDir();
  const entry = "opentelemetry/proto/collector/trace/v1/trace_service.proto";
  if (!existsSync(path.join(/*turbopackIgnore: true*/ dir, entry))) throw new Error(`OTLP definitions not found: ${path.join(dir, entry)} (set SYMTRACE_OTLP_PROTO_DIR)`);
  const root = new protobuf.Root();
  // Imports are written relative to the repository root of opentelemetry-proto.
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(/*turbopackIgnore: true*/ dir, target));
  root.loadSync(entry, { keepCase: false });
  // Partial success (OTLP spec, proto v0.20+: `ExportTraceServiceResponse { ExportTracePartialSuccess
  // partial_success = 1; }`, `ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }`)
  // is newer than the published .proto files: add the two fields when they are missing.
  const response = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");
  if (!response.fields.partialSuccess) {
    const partial = new protobuf.Type("ExportTracePartialSuccess").add(new protobuf.Field("rejectedSpans", 1, "int64")).add(new protobuf.Field("errorMessage", 2, "string"));
    (response.parent as protobuf.Namespace).add(partial);
    response.add(new protobuf.Field("partialSuccess", 1, "ExportTracePartialSuccess"));
  }
  root.resolveAll();
  // google.rpc.Status (googleapis google/rpc/status.proto: code = 1, message = 2; `details`
  // omitted): the body of an OTLP/HTTP failure response.
  const status = new protobuf.Type("Status").add(new protobuf.Field("code", 1, "int32")).add(new protobuf.Field("message", 2, "string"));
  new protobuf.Root().define("google.rpc").add(status);
  codec = {
    request: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"),
    response: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse"),
    status,
  };
  return codec;
}

export type Rec = Record<string, unknown>;

/** One accepted span, in OTLP/JSON form, with the resource and scope it came with. */
export interface DecodedSpan {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  /** OTLP/JSON span object (hex ids, decimal-string times, integer enums). */
  span: Rec;
  /** OTLP/JSON `resource` of its ResourceSpans (`{}` when absent). */
  resource: Rec;
  /** OTLP/JSON `scope` of its ScopeSpans (`{}` when absent). */
  scope: Rec;
}

/** A span the receiver refused (counted in partial_success), with the path of the reason. */
export interface RejectedSpan {
  path: string;
  message: string;
}

export interface DecodedRequest {
  spans: DecodedSpan[];
  rejected: RejectedSpan[];
}

/** The body could not be decoded at all (HTTP 400, nothing written). */
export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OtlpDecodeError";
  }
}

const HEX = /^[0-9a-fA-F]*$/;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

function b64ToHex(v: unknown): string {
  return typeof v === "string" && v !== "" ? Buffer.from(v, "base64").toString("hex") : "";
}

/** protobufjs object (ids base64) -> OTLP/JSON ids (hex). Mutates and returns `sp`. */
function idsToHex(sp: Rec): Rec {
  for (const k of ["traceId", "spanId", "parentSpanId"]) if (k in sp) sp[k] = b64ToHex(sp[k]);
  if (Array.isArray(sp.links)) {
    for (const l of sp.links) if (isRec(l)) for (const k of ["traceId", "spanId"]) if (k in l) l[k] = b64ToHex(l[k]);
  }
  return sp;
}

/** Walk `{resourceSpans}` (OTLP/JSON) and split it into accepted and rejected spans. */
function collect(value: Rec, where: string): DecodedRequest {
  const spans: DecodedSpan[] = [];
  const rejected: RejectedSpan[] = [];
  const rss = value.resourceSpans ?? [];
  if (!Array.isArray(rss)) throw new OtlpDecodeError(`${where}: resourceSpans is not an array`);
  rss.forEach((rs, ri) => {
    const rPath = `$.resourceSpans[${ri}]`;
    if (!isRec(rs)) throw new OtlpDecodeError(`${where}: ${rPath} is not an object`);
    const resource = isRec(rs.resource) ? rs.resource : {};
    const sss = rs.scopeSpans ?? [];
    if (!Array.isArray(sss)) throw new OtlpDecodeError(`${where}: ${rPath}.scopeSpans is not an array`);
    sss.forEach((ss, si) => {
      const sPath = `${rPath}.scopeSpans[${si}]`;
      if (!isRec(ss)) throw new OtlpDecodeError(`${where}: ${sPath} is not an object`);
      const scope = isRec(ss.scope) ? ss.scope : {};
      const list = ss.spans ?? [];
      if (!Array.isArray(list)) throw new OtlpDecodeError(`${where}: ${sPath}.spans is not an array`);
      list.forEach((sp, pi) => {
        const path = `${sPath}.spans[${pi}]`;
        if (!isRec(sp)) {
          rejected.push({ path, message: "span is not an object" });
          return;
        }
        const traceId = typeof sp.traceId === "string" ? sp.traceId.toLowerCase() : "";
        const spanId = typeof sp.spanId === "string" ? sp.spanId.toLowerCase() : "";
        if (traceId.length !== 32 || !HEX.test(traceId) || /^0+$/.test(traceId)) {
          rejected.push({ path: `${path}.traceId`, message: "traceId must be 16 bytes (32 hex digits), not all zero" });
          return;
        }
        if (spanId.length !== 16 || !HEX.test(spanId) || /^0+$/.test(spanId)) {
          rejected.push({ path: `${path}.spanId`, message: "spanId must be 8 bytes (16 hex digits), not all zero" });
          return;
        }
        const start = sp.startTimeUnixNano;
        if (!(typeof start === "string" ? /^\d+$/.test(start) && !/^0+$/.test(start) : typeof start === "number" && Number.isInteger(start) && start > 0)) {
          rejected.push({ path: `${path}.startTimeUnixNano`, message: "startTimeUnixNano is missing or not a positive integer" });
          return;
        }
        sp.traceId = traceId;
        sp.spanId = spanId;
        if (typeof sp.parentSpanId === "string") sp.parentSpanId = sp.parentSpanId.toLowerCase();
        spans.push({ traceId, spanId, span: sp, resource, scope });
      });
    });
  });
  return { spans, rejected };
}

/**
 * Decode an ExportTraceServiceRequest in protobuf into OTLP/JSON spans (used at assembly).
 * @param body the (already decompressed) request bytes
 * @returns accepted spans and rejected ones (an id of the wrong length or all zeros, no start time)
 * @throws OtlpDecodeError when the bytes are not a valid ExportTraceServiceRequest
 */
export function decodeProtobufRequest(body: Uint8Array): DecodedRequest {
  const { request } = otlpCodec();
  let msg: protobuf.Message;
  try {
    msg = request.decode(body);
  } catch (e) {
    throw new OtlpDecodeError(`not a protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
  const obj = request.toObject(msg, { longs: String, enums: Number, bytes: String, defaults: false, arrays: false, oneofs: false }) as Rec;
  for (const rs of Array.isArray(obj.resourceSpans) ? obj.resourceSpans : []) {
    for (const ss of isRec(rs) && Array.isArray(rs.scopeSpans) ? rs.scopeSpans : []) {
      for (const sp of isRec(ss) && Array.isArray(ss.spans) ? ss.spans : []) if (isRec(sp)) idsToHex(sp);
    }
  }
  return collect(obj, "protobuf body");
}

/**
 * Decode an ExportTraceServiceRequest in OTLP/JSON.
 * @param text the (already decompressed) body as UTF-8 text
 * `{}` is the empty request (no spans); an object without `resourceSpans` that has other keys is not
 * a request (OTLP/HTTP spec: the JSON body is an ExportTraceServiceRequest).
 * @throws OtlpDecodeError when it is not JSON, not an object, an object with keys but no
 *   `resourceSpans`, or not shaped like `{resourceSpans: [...]}`
 */
export function decodeJsonRequest(text: string): DecodedRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new OtlpDecodeError(`the body is not JSON: ${(e as Error).message}`);
  }
  if (!isRec(value)) throw new OtlpDecodeError("the JSON body is not an object ExportTraceServiceRequest {resourceSpans: [...]}");
  // `{}` is an empty ExportTraceServiceRequest (no spans, 200). An object with other keys and no
  // `resourceSpans` is not an OTLP request (`{"hello": 1}`): refused, not silently "accepted".
  const keys = Object.keys(value);
  if (!("resourceSpans" in value) && keys.length > 0) {
    const shown = keys.slice(0, 5).map((k) => JSON.stringify(k)).join(", ");
    throw new OtlpDecodeError(`the JSON body is not an ExportTraceServiceRequest: it has no "resourceSpans" (its keys: ${shown}${keys.length > 5 ? ", ..." : ""})`);
  }
  return collect(value, "JSON body");
}

/** Trace and span id (lower-case hex) of one accepted span. */
export interface SpanKey {
  traceId: string;
  spanId: string;
}

/** What the receiver needs from a request: the accepted spans' ids and the rejected spans. */
export interface IndexedRequest {
  keys: SpanKey[];
  rejected: RejectedSpan[];
}

type Bytes = Uint8Array & { toString?(enc: string): string };
const hexOf = (b: Bytes): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const allZero = (b: Uint8Array): boolean => b.every((x) => x === 0);
/** A decoded fixed64 (number, or a Long when long.js is present) is a positive time. */
const positive = (v: unknown): boolean =>
  typeof v === "number" ? v > 0 : typeof v === "object" && v !== null && "low" in v && "high" in v ? (v as { low: number; high: number }).low !== 0 || (v as { low: number; high: number }).high !== 0 : false;

/**
 * The receive path for protobuf: decode and validate, without converting to OTLP/JSON (the body
 * is stored as received and converted at assembly by {@link decodeProtobufRequest}, which applies
 * the same acceptance rules: 16-byte trace id and 8-byte span id, not all zero; a start time).
 * @throws OtlpDecodeError when the bytes are not a valid ExportTraceServiceRequest
 */
export function indexProtobufRequest(body: Uint8Array): IndexedRequest {
  const { request } = otlpCodec();
  let msg: { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ traceId?: Bytes; spanId?: Bytes; startTimeUnixNano?: unknown }> }> }> };
  try {
    msg = request.decode(body) as unknown as typeof msg;
  } catch (e) {
    throw new OtlpDecodeError(`not a protobuf ExportTraceServiceRequest: ${(e as Error).message}`);
  }
  const keys: SpanKey[] = [];
  const rejected: RejectedSpan[] = [];
  (msg.resourceSpans ?? []).forEach((rs, ri) => {
    (rs.scopeSpans ?? []).forEach((ss, si) => {
      (ss.spans ?? []).forEach((sp, pi) => {
        const path = `$.resourceSpans[${ri}].scopeSpans[${si}].spans[${pi}]`;
        const t = sp.traceId;
        const id = sp.spanId;
        if (!t || t.length !== 16 || allZero(t)) rejected.push({ path: `${path}.traceId`, message: "traceId must be 16 bytes (32 hex digits), not all zero" });
        else if (!id || id.length !== 8 || allZero(id)) rejected.push({ path: `${path}.spanId`, message: "spanId must be 8 bytes (16 hex digits), not all zero" });
        else if (!positive(sp.startTimeUnixNano)) rejected.push({ path: `${path}.startTimeUnixNano`, message: "startTimeUnixNano is missing or not a positive integer" });
        else keys.push({ traceId: hexOf(t), spanId: hexOf(id) });
      });
    });
  });
  return { keys, rejected };
}

/** The receive path for OTLP/JSON (same rules as {@link decodeJsonRequest}). */
export function indexJsonRequest(text: string): IndexedRequest {
  const d = decodeJsonRequest(text);
  return { keys: d.spans.map((s) => ({ traceId: s.traceId, spanId: s.spanId })), rejected: d.rejected };
}

/** The accepted spans of a stored request body (OTLP/JSON form), for assembly. */
export function spansOfBody(kind: "protobuf" | "json", body: Uint8Array): DecodedSpan[] {
  return (kind === "protobuf" ? decodeProtobufRequest(body) : decodeJsonRequest(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"))).spans;
}

/**
 * The ExportTraceServiceResponse body for a request of this encoding: empty on full success,
 * `partial_success {rejected_spans, error_message}` when some spans were refused.
 */
export function encodeExportResponse(kind: "protobuf" | "json", rejected: number, errorMessage: string): { body: Uint8Array | string; contentType: string } {
  const partial = rejected > 0 || errorMessage ? { partialSuccess: { rejectedSpans: rejected, errorMessage } } : {};
  if (kind === "json") {
    const json = rejected > 0 || errorMessage ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage } } : {};
    return { body: JSON.stringify(json), contentType: "application/json" };
  }
  const { response } = otlpCodec();
  return { body: response.encode(response.fromObject(partial)).finish(), contentType: "application/x-protobuf" };
}

/** A failure body (google.rpc.Status `{code, message}`) in the request's encoding. */
export function encodeStatus(kind: "protobuf" | "json", code: number, message: string): { body: Uint8Array | string; contentType: string } {
  if (kind === "json") return { body: JSON.stringify({ code, message }), contentType: "application/json" };
  const { status } = otlpCodec();
  return { body: status.encode(status.fromObject({ code, message })).finish(), contentType: "application/x-protobuf" };
}

/** Decode a protobuf ExportTraceServiceResponse (for tests and the benchmark client). */
export function decodeExportResponse(body: Uint8Array): { rejectedSpans: number; errorMessage: string } {
  const { response } = otlpCodec();
  const o = response.toObject(response.decode(body), { longs: Number, defaults: true }) as { partialSuccess?: { rejectedSpans?: number; errorMessage?: string } };
  return { rejectedSpans: Number(o.partialSuccess?.rejectedSpans ?? 0), errorMessage: o.partialSuccess?.errorMessage ?? "" };
}

/** Encode OTLP/JSON `{resourceSpans}` (hex ids) as a protobuf ExportTraceServiceRequest (tests, benchmark). */
export function encodeProtobufRequest(value: { resourceSpans: unknown[] }): Uint8Array {
  const { request } = otlpCodec();
  const hexToB64 = (v: unknown) => (typeof v === "string" ? Buffer.from(v, "hex").toString("base64") : v);
  const copy = JSON.parse(JSON.stringify(value)) as Rec;
  for (const rs of copy.resourceSpans as Rec[]) {
    for (const ss of (rs.scopeSpans as Rec[]) ?? []) {
      for (const sp of (ss.spans as Rec[]) ?? []) {
        for (const k of ["traceId", "spanId", "parentSpanId"]) if (k in sp) sp[k] = hexToB64(sp[k]);
        for (const l of (sp.links as Rec[]) ?? []) for (const k of ["traceId", "spanId"]) if (k in l) l[k] = hexToB64(l[k]);
      }
    }
  }
  return request.encode(request.fromObject(copy)).finish();
}
