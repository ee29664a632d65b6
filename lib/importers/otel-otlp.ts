/**
 * OTLP/JSON (`{resourceSpans: [{resource, scopeSpans: [{scope, spans}]}]}`) -> the shared span
 * list of otel-spans.ts, one {@link OtelTrace} per traceId.
 *
 * Source: the OTLP/JSON encoding of opentelemetry-proto (trace/span ids as hex strings, 64-bit
 * integers as decimal strings, enums as integers, attributes as `[{key, value: AnyValue}]`), and the
 * OpenInference / OTel GenAI semantic conventions for the attribute names.
 */
import { aiSdkResponse, categoryFromAttributes } from "./otel-span-readings";
import type { OtelSpan, OtelSpanEvent, OtelTrace } from "./otel-types";
import { arr, isRec, parseAttributeValue, sha256Hex, str, type Rec } from "./otel-values";

/** Is this parsed JSON an OTLP/JSON trace export (`{resourceSpans: [...]}`)? */
export function isOtlpJson(value: unknown): boolean {
  return isRec(value) && Array.isArray(value.resourceSpans);
}

/** Decode an OTLP AnyValue (`{stringValue}`, `{intValue: "42"}`, `{arrayValue: {values}}`, ...). */
export function otlpAnyValue(v: unknown): unknown {
  if (!isRec(v)) return v ?? null;
  if ("stringValue" in v) return v.stringValue ?? null;
  if ("boolValue" in v) return v.boolValue ?? null;
  if ("intValue" in v) {
    const x = v.intValue;
    if (typeof x === "string" && /^-?\d+$/.test(x)) {
      const n = Number(x);
      return Number.isSafeInteger(n) ? n : x;
    }
    return x ?? null;
  }
  if ("doubleValue" in v) {
    const x = v.doubleValue;
    const n = typeof x === "string" ? Number(x) : x;
    return typeof n === "number" && Number.isFinite(n) ? n : (x ?? null);
  }
  if ("arrayValue" in v) return arr(isRec(v.arrayValue) ? v.arrayValue.values : null).map(otlpAnyValue);
  if ("kvlistValue" in v) return otlpAttributes(isRec(v.kvlistValue) ? v.kvlistValue.values : null);
  if ("bytesValue" in v) return v.bytesValue ?? null;
  return null;
}

/** Decode an OTLP attribute list `[{key, value}]` into a flat object. */
export function otlpAttributes(list: unknown): Rec {
  const out: Rec = {};
  for (const kv of arr(list)) {
    if (!isRec(kv) || typeof kv.key !== "string") continue;
    out[kv.key] = otlpAnyValue(kv.value);
  }
  return out;
}

const SPAN_KINDS = ["UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
const STATUS_CODES = ["UNSET", "OK", "ERROR"];

const first = (attrs: Rec, keys: string[]): unknown => {
  for (const k of keys) if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== "") return attrs[k];
  return null;
};

function usageOf(a: Rec): Rec | null {
  const num = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined);
  const input = num(a["llm.token_count.prompt"] ?? a["gen_ai.usage.input_tokens"]);
  const output = num(a["llm.token_count.completion"] ?? a["gen_ai.usage.output_tokens"]);
  const total = num(a["llm.token_count.total"]) ?? (input !== undefined && output !== undefined ? input + output : undefined);
  if (input === undefined && output === undefined && total === undefined) return null;
  const u: Rec = {};
  if (input !== undefined) u.input = input;
  if (output !== undefined) u.output = output;
  if (total !== undefined) u.total = total;
  return u;
}

/**
 * Read an OTLP/JSON export into one {@link OtelTrace} per traceId (first-seen order).
 * @param value parsed JSON that passed {@link isOtlpJson}
 * @returns the traces, per-trace read errors (a span without spanId; that trace is then skipped)
 *   and file-level errors (a span without traceId, a malformed resourceSpans/scopeSpans entry),
 *   each with its JSON path such as `$.resourceSpans[0].scopeSpans[0].spans[3].traceId`
 */
export function otlpToTraces(
  value: Rec,
  opts: { fileName: string },
): {
  traces: OtelTrace[];
  traceErrors: Map<string, Array<{ path: string; message: string }>>;
  fileErrors: Array<{ path: string; message: string }>;
} {
  const fileErrors: Array<{ path: string; message: string }> = [];
  const traceErrors = new Map<string, Array<{ path: string; message: string }>>();
  const byTrace = new Map<string, { spans: OtelSpan[]; raw: unknown[]; resource: Rec }>();

  arr(value.resourceSpans).forEach((rs, ri) => {
    const rPath = `$.resourceSpans[${ri}]`;
    if (!isRec(rs)) {
      fileErrors.push({ path: rPath, message: "resourceSpans entry is not an object" });
      return;
    }
    const resource = otlpAttributes(isRec(rs.resource) ? rs.resource.attributes : null);
    const scopeKey = Array.isArray(rs.scopeSpans) ? "scopeSpans" : "instrumentationLibrarySpans";
    if (!Array.isArray(rs[scopeKey])) {
      fileErrors.push({ path: `${rPath}.scopeSpans`, message: "scopeSpans is missing or not an array" });
      return;
    }
    (rs[scopeKey] as unknown[]).forEach((ss, si) => {
      const sPath = `${rPath}.${scopeKey}[${si}]`;
      if (!isRec(ss) || !Array.isArray(ss.spans)) {
        fileErrors.push({ path: `${sPath}.spans`, message: "spans is missing or not an array" });
        return;
      }
      const sc = isRec(ss.scope) ? ss.scope : isRec(ss.instrumentationLibrary) ? ss.instrumentationLibrary : null;
      const scope = sc && str(sc.name) ? { name: sc.name as string, version: str(sc.version) } : null;
      ss.spans.forEach((sp, pi) => {
        const path = `${sPath}.spans[${pi}]`;
        if (!isRec(sp)) {
          fileErrors.push({ path, message: "span is not an object" });
          return;
        }
        const rawTrace = str(sp.traceId);
        if (!rawTrace) {
          fileErrors.push({ path: `${path}.traceId`, message: "traceId is missing or not a string; span cannot be placed in a trace" });
          return;
        }
        const traceId = /^[0-9a-fA-F]+$/.test(rawTrace) ? rawTrace.toLowerCase() : rawTrace;
        const spanId = str(sp.spanId);
        if (!spanId) {
          traceErrors.set(traceId, [
            ...(traceErrors.get(traceId) ?? []),
            { path: `${path}.spanId`, message: "spanId is missing or not a string" },
          ]);
          return;
        }
        const raw = otlpAttributes(sp.attributes);
        const attributes: Rec = {};
        for (const [k, v] of Object.entries(raw)) attributes[k] = parseAttributeValue(k, v);
        const cat = categoryFromAttributes(attributes);
        const statusRec = isRec(sp.status) ? sp.status : {};
        const codeRaw = statusRec.code;
        const code =
          typeof codeRaw === "number" ? (STATUS_CODES[codeRaw] ?? String(codeRaw)) : str(codeRaw)?.replace(/^STATUS_CODE_/, "") ?? null;
        const kindRaw = sp.kind;
        const otelKind = typeof kindRaw === "number" ? (SPAN_KINDS[kindRaw] ?? String(kindRaw)) : str(kindRaw)?.replace(/^SPAN_KIND_/, "") ?? null;
        const events: OtelSpanEvent[] = arr(sp.events)
          .filter(isRec)
          .map((e) => ({ name: str(e.name) ?? "", time: str(e.timeUnixNano) ?? null, attributes: otlpAttributes(e.attributes) }));
        const parent = str(sp.parentSpanId);
        const links = arr(sp.links)
          .filter(isRec)
          .filter((l) => str(l.spanId) !== null)
          .map((l) => ({ traceId: str(l.traceId)?.toLowerCase() ?? null, spanId: (l.spanId as string).toLowerCase() }));
        // Tool-call arguments as written: OpenInference input.value of a TOOL span, GenAI call arguments.
        // (an empty string counts: it is a call whose arguments are not valid JSON).
        const argKey =
          cat?.category === "tool"
            ? ["input.value", "gen_ai.tool.call.arguments", "tool_call.function.arguments", "ai.toolCall.args", "ai.toolCall.input"].find((k) => raw[k] !== undefined && raw[k] !== null)
            : undefined;
        const rawArguments = argKey !== undefined ? raw[argKey] : undefined;
        const span: OtelSpan = {
          id: spanId.toLowerCase(),
          parentId: parent ? parent.toLowerCase() : null,
          traceId,
          name: str(sp.name) ?? spanId,
          category: cat?.category ?? "span",
          kind: cat?.kind ?? "SPAN",
          startTime: sp.startTimeUnixNano ?? null,
          endTime: sp.endTimeUnixNano ?? null,
          attributes,
          status: { error: code === "ERROR", code, message: str(statusRec.message) },
          input: first(attributes, ["input.value", "gen_ai.input.messages", "gen_ai.tool.call.arguments", "gen_ai.prompt", "ai.prompt.messages", "ai.prompt"]),
          // The Vercel AI SDK: a model call's response as its assistant message, a whole call's text, a tool's result.
          output:
            first(attributes, ["output.value", "gen_ai.output.messages", "gen_ai.tool.call.result", "gen_ai.completion", "ai.toolCall.result", "ai.toolCall.output"]) ??
            (cat?.category === "llm" && attributes["ai.operationId"] !== undefined ? aiSdkResponse(attributes) : cat?.category === "agent" ? (attributes["ai.response.text"] ?? null) : null),
          model: str(first(attributes, ["gen_ai.response.model", "llm.model_name", "gen_ai.request.model"])),
          usage: usageOf(attributes),
          events,
          scope,
          path,
          paths: { parentId: `${path}.parentSpanId`, startTime: `${path}.startTimeUnixNano`, endTime: `${path}.endTimeUnixNano` },
          extra: { otelKind },
          rawJson: JSON.stringify(sp),
          raw: sp,
          rawArguments,
          links: links.length > 0 ? links : undefined,
        };
        const entry = byTrace.get(traceId) ?? { spans: [], raw: [], resource };
        entry.spans.push(span);
        entry.raw.push(sp);
        byTrace.set(traceId, entry);
      });
    });
  });

  const traces: OtelTrace[] = [...byTrace.entries()].map(([traceId, { spans, raw, resource }]) => {
    const ids = new Set(spans.map((s) => s.id));
    const root = spans.find((s) => s.parentId === null || !ids.has(s.parentId)) ?? null;
    return {
      dataset: "otlp",
      bundleId: `otlp/${traceId}`,
      traceId,
      name: root?.name ?? null,
      fileName: opts.fileName,
      // One file may hold many traces: hash this trace's own span records, not the whole file.
      traceSha256: sha256Hex(JSON.stringify(raw)),
      spans,
      traceInput: null,
      traceOutput: null,
      scores: [],
      humanLabels: [],
      notes: [],
      sourceExtra: {},
      configExtra: Object.keys(resource).length > 0 ? { resource } : {},
      rawValue: value,
    };
  });
  return { traces, traceErrors, fileErrors };
}
