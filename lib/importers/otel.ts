/**
 * OpenTelemetry importer: agent-run traces with OpenInference or OTel GenAI semantic-convention
 * attributes, either as a Langfuse trace export (`{trace, observations}`) or as standard OTLP/JSON
 * (`{resourceSpans: [...]}`), mapped onto replay bundle v1 (the bundle v1 spec).
 *
 * Both shapes are read into one span list (otel-langfuse.ts, otel-otlp.ts) and mapped to nodes,
 * edges and records once (otel-spans.ts). Source: the langfuse_framework_traces dataset notes
 * (SOURCE.md); the mapping is described in README.md, "OpenTelemetry importer".
 */
import { parseImportText } from "./parse";
import type { ImportedCase, ImportFailure, ImportFileResult } from "./types";
import { isLangfuseTraceExport, langfuseToTrace } from "./otel-langfuse";
import { isOtlpJson, otlpToTraces } from "./otel-otlp";
import { traceToCase } from "./otel-spans";
import { isRec, sha256Hex } from "./otel-values";

export { isLangfuseTraceExport } from "./otel-langfuse";
export { isOtlpJson } from "./otel-otlp";
export { OTEL_NORMALIZATION } from "./otel-spans";
export type { OtelBundleSource } from "./otel-types";

/**
 * Import a Langfuse trace export or an OTLP/JSON file.
 *
 * - Langfuse `{trace, observations}`: one case, bundle id `langfuse/<trace.id>`.
 * - OTLP/JSON `{resourceSpans}`: one case per traceId (first-seen order), bundle id `otlp/<traceId>`.
 *
 * @param text the file's text (a BOM and bare NaN/Infinity are tolerated)
 * @param opts.fileName basename recorded in `source.file` and in failure `where`
 * @returns cases (each with `warnings`: imperfect spans repaired instead of rejected, see
 *   README "Imperfect spans") and failures. Never throws: non-JSON gives one failure whose message
 *   names line and column; an unknown shape gives one failure at `$`; a trace with a span whose
 *   start time is missing/unparseable, or with text that cannot be hashed (lone surrogate), is
 *   skipped with a failure (`where` = `<file>#traceId=<id>`) naming the field's JSON path, e.g.
 *   `$.resourceSpans[0].scopeSpans[0].spans[3].startTimeUnixNano`, while the other traces of the
 *   file still import. A missing parent, a cycle, a skewed or open span only add warnings.
 */
export function importOtel(text: string, opts: { fileName: string }): ImportFileResult {
  // int64 attributes and unix-nano times written as JSON numbers keep every digit.
  const parsed = parseImportText(text, opts.fileName, { allowNaN: true, bigIntsAsStrings: true });
  if ("result" in parsed) return parsed.result;
  return importOtelValue(parsed.value, { fileName: opts.fileName, traceSha256: () => sha256Hex(text) });
}

/**
 * Same as {@link importOtel}, for an already-parsed value (the streaming reader of large files,
 * lib/bundle `readJsonFileValue`, with unsafe integers kept as strings).
 * @param opts.traceSha256 sha256 (hex) of the file's bytes, or a function computing it (Langfuse only)
 */
export function importOtelValue(value: unknown, opts: { fileName: string; traceSha256: string | (() => string) }): ImportFileResult {
  const cases: ImportedCase[] = [];
  const failures: ImportFailure[] = [];
  if (isLangfuseTraceExport(value)) {
    const { trace, errors } = langfuseToTrace(value as Record<string, unknown>, {
      fileName: opts.fileName,
      traceSha256: typeof opts.traceSha256 === "function" ? opts.traceSha256() : opts.traceSha256,
    });
    if (!trace) {
      const id = isRec(value) && isRec(value.trace) && typeof value.trace.id === "string" ? value.trace.id : null;
      failures.push({ where: id ? `${opts.fileName}#traceId=${id}` : opts.fileName, errors });
      return { cases, failures };
    }
    const r = traceToCase(trace);
    if (r.ok) cases.push(r.value);
    else failures.push(r.failure);
    return { cases, failures };
  }

  if (isOtlpJson(value)) {
    const { traces, traceErrors, fileErrors } = otlpToTraces(value as Record<string, unknown>, { fileName: opts.fileName });
    if (fileErrors.length > 0) failures.push({ where: opts.fileName, errors: fileErrors });
    for (const trace of traces) {
      const pre = traceErrors.get(trace.traceId);
      if (pre && pre.length > 0) {
        failures.push({ where: `${opts.fileName}#traceId=${trace.traceId}`, errors: pre });
        continue;
      }
      const r = traceToCase(trace);
      if (r.ok) cases.push(r.value);
      else failures.push(r.failure);
    }
    for (const [traceId, errors] of traceErrors) {
      if (!traces.some((t) => t.traceId === traceId)) failures.push({ where: `${opts.fileName}#traceId=${traceId}`, errors });
    }
    if (traces.length === 0 && traceErrors.size === 0 && fileErrors.length === 0) {
      failures.push({ where: opts.fileName, errors: [{ path: "$.resourceSpans", message: "no spans in resourceSpans" }] });
    }
    return { cases, failures };
  }

  return {
    cases,
    failures: [
      {
        where: opts.fileName,
        errors: [
          {
            path: "$",
            message:
              "not an OpenTelemetry trace: expected a Langfuse trace export {trace, observations} or OTLP/JSON {resourceSpans: [...]}",
          },
        ],
      },
    ],
  };
}
