/**
 * The span model shared by the OpenTelemetry importers: what an adapter (otel-langfuse.ts,
 * otel-otlp.ts) produces and otel-spans.ts maps onto a bundle.
 */
import type { BundleSource, ImportedCase, ImportFailure, ImportWarning } from "./types";

/** What a span is, after reading its Langfuse type / OpenInference kind / GenAI operation. */
export type SpanCategory = "agent" | "llm" | "tool" | "span";

export interface OtelSpanEvent {
  name: string;
  /** Raw time as the source gives it (ns string for OTLP). */
  time: string | null;
  attributes: Record<string, unknown>;
}

/** One span (OTLP) or observation (Langfuse), normalized. */
export interface OtelSpan {
  id: string;
  parentId: string | null;
  traceId: string;
  name: string;
  category: SpanCategory;
  /** The raw kind that decided the category: Langfuse type, OpenInference kind or GenAI operation. */
  kind: string;
  /** Raw start/end as the source gives them (ISO string or unix-nano string). */
  startTime: unknown;
  endTime: unknown;
  /** Flat attributes; string values that hold JSON (even double/triple encoded) are parsed. */
  attributes: Record<string, unknown>;
  status: { error: boolean; code: string | null; message: string | null };
  input: unknown;
  output: unknown;
  /** Model as reported for the response (Langfuse `model`, `gen_ai.response.model`, `llm.model_name`). */
  model: string | null;
  usage: Record<string, unknown> | null;
  events: OtelSpanEvent[];
  scope: { name: string; version: string | null } | null;
  /** JSON path of the span in the input file, e.g. `$.resourceSpans[0].scopeSpans[0].spans[3]`. */
  path: string;
  /** JSON paths of the fields that can be at fault. */
  paths: { parentId: string; startTime: string; endTime: string };
  /** Source-specific fields kept in the node content (Langfuse level, OTLP span kind, ...). */
  extra: Record<string, unknown>;
  /** The span record exactly as read (canonical JSON text), to tell byte-identical re-exports. */
  rawJson?: string;
  /** The span record as parsed, to name the innermost path of text that cannot be hashed. */
  raw?: unknown;
  /** Tool-call arguments as the source wrote them (before any JSON decoding), else undefined. */
  rawArguments?: unknown;
  /** OTLP span links (`links[]`): references only, never parent edges. */
  links?: Array<{ traceId: string | null; spanId: string }>;
  /** Set for the 2nd, 3rd... conflicting copy of a span id: the original id and the first copy's path. */
  duplicateOf?: { spanId: string; copy: number; firstAt: string };
}

/** A human label found in the source, not yet tied to a node. */
export interface HumanLabelDraft {
  annotator: string;
  reason: string | null;
  /** Observation/span the label is attached to, else null (then it is about the trace output). */
  observationId: string | null;
  extra: Record<string, unknown>;
}

/** One trace, ready for {@link traceToCase}. */
export interface OtelTrace {
  dataset: "langfuse" | "otlp";
  bundleId: string;
  traceId: string;
  name: string | null;
  fileName: string;
  traceSha256: string;
  spans: OtelSpan[];
  /** Trace-level input/output (Langfuse `trace.input/output`, parsed), else null. */
  traceInput: unknown;
  traceOutput: unknown;
  /** Machine scores (LLM-as-judge etc.): kept in `source.scores`, never labels. */
  scores: unknown[];
  humanLabels: HumanLabelDraft[];
  /** Evaluator-only ground truth (e.g. a human-corrected output), or undefined. */
  reference?: unknown;
  notes: string[];
  /** Extra keys for `source` (e.g. non-human corrections). */
  sourceExtra: Record<string, unknown>;
  /** Extra keys for `config` (resource attributes ...). */
  configExtra: Record<string, unknown>;
  /** Imperfections already repaired by the adapter (counted in the import report). */
  warnings?: ImportWarning[];
  /** The parsed input file, to locate text that cannot be hashed (lone surrogates) by its path. */
  rawValue?: unknown;
}

/** `source` of an OTel bundle: the common fields plus the machine scores. */
export interface OtelBundleSource extends BundleSource {
  scores?: unknown[];
  [key: string]: unknown;
}

export type TraceResult = { ok: true; value: ImportedCase } | { ok: false; failure: ImportFailure };
