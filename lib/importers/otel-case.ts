/**
 * The case around an OTel trace's graph (the last phase of traceToCase, otel-spans.ts): task and
 * prompt, config, reference labels and `source`, then the bundle itself, built and validated by
 * `buildBundle`.
 *
 * Source: the bundle v1 spec (task, config, outcome, extra keys); the langfuse_framework_traces
 * dataset notes (SOURCE.md) §"Mapping to an event-dependency graph" (human labels, scores);
 * lib/importers/README.md (`source`, `referenceLabels`).
 */
import { type BundleEdge, buildBundle, BundleValidationError, type NodeDraft, type RecordDraft } from "../bundle";
import type { DataFlow } from "./otel-graph";
import { type ChatMessage, messageText, normalizeMessages } from "./otel-messages";
import { masOf, requestModelOf, temperatureOf } from "./otel-span-readings";
import type { OtelBundleSource, OtelSpan, OtelTrace, TraceResult } from "./otel-types";
import { asText, clean, jsonSafe, type Rec } from "./otel-values";
import { findLoneSurrogate } from "./parse";
import type { ImportWarning, ReferenceLabel } from "./types";

/** The request normalization stored in `config.replay.normalization`. */
export const OTEL_NORMALIZATION =
  "otel-import/v1: llm request = {model, messages (role, content, name, tool_calls[{name, arguments}]; ids, tool_call_id and timestamps dropped), tools?, temperature?}; tool request = {name, arguments}";

/**
 * The task prompt: the first user message with text among the LLM spans' inputs (in order), else
 * the trace input, else the first root's input (a string as is; else its first user message's
 * text, else the value as text), else "".
 */
export function promptOf(
  llms: readonly OtelSpan[],
  inMsgs: ReadonlyMap<string, ChatMessage[] | null>,
  traceInput: unknown,
  root: OtelSpan | null,
): string {
  for (const g of llms) {
    const u = (inMsgs.get(g.id) ?? []).find((m) => m.role === "user" && messageText(m));
    if (u) return messageText(u)!;
  }
  for (const v of [traceInput, root?.input]) {
    if (v === null || v === undefined) continue;
    if (typeof v === "string") return v;
    const u = (normalizeMessages(v, "user") ?? []).find((m) => m.role === "user" && messageText(m));
    return messageText(u) ?? asText(v);
  }
  return "";
}

/**
 * The source's human labels as reference labels: one per label, on the labelled observation's node
 * (null when that span is not in the trace), else on the final result.
 */
export function referenceLabelsOf(trace: OtelTrace, spanNode: ReadonlyMap<string, string>, finalId: string): ReferenceLabel[] {
  return trace.humanLabels.map((h) => ({
    source: trace.dataset,
    annotator: h.annotator,
    nodeId: h.observationId !== null ? (spanNode.get(h.observationId) ?? null) : finalId,
    agent: null,
    failureModes: [],
    reason: h.reason,
    extra: { ...h.extra, target: h.observationId !== null ? "observation" : "trace output (final_result)" },
  }));
}

/** What the case phase reads: the trace, the graph and what was said about the import. */
export interface CaseInputs {
  trace: OtelTrace;
  spansInOrder: readonly OtelSpan[];
  llmInOrder: readonly OtelSpan[];
  inMsgs: ReadonlyMap<string, ChatMessage[] | null>;
  firstRoot: OtelSpan | null;
  spanNode: ReadonlyMap<string, string>;
  nodes: NodeDraft[];
  edges: BundleEdge[];
  order: string[];
  records: RecordDraft[];
  dataFlow: DataFlow[];
  notes: string[];
  warnings: ImportWarning[];
}

/**
 * Build the bundle: task `{id, benchmark: null, name, prompt, reference?}`, config `{mas, model
 * and temperature of the first LLM span, instrumentation scope, replay normalization, adapter
 * extras}`, outcome `{passed: null, evaluator: dataset, details: {dataFlow}}`, extra keys `source`
 * (notes, importWarnings, Langfuse scores, adapter extras) and `referenceLabels`.
 * @returns the case, or a failure at `<file>#traceId=<id>` naming a lone surrogate's path in the
 *   input, else the bundle validation issues, else the error message. Never throws.
 */
export function assembleCase(x: CaseInputs): TraceResult {
  const { trace, llmInOrder, firstRoot, warnings } = x;
  const where = `${trace.fileName}#traceId=${trace.traceId}`;
  const prompt = promptOf(llmInOrder, x.inMsgs, trace.traceInput, firstRoot);
  const firstLlm = llmInOrder[0] ?? null;
  const { mas, scope } = masOf(x.spansInOrder);
  const referenceLabels = referenceLabelsOf(trace, x.spanNode, x.order[x.order.length - 1]);
  const source: OtelBundleSource = {
    dataset: trace.dataset,
    file: trace.fileName,
    recordKey: trace.traceId,
    subset: null,
    traceSha256: trace.traceSha256,
    notes: x.notes,
    ...(warnings.length > 0 ? { importWarnings: warnings } : {}),
    ...(trace.dataset === "langfuse" ? { scores: trace.scores } : {}),
    ...trace.sourceExtra,
  };
  const sourceJson = jsonSafe(source) as OtelBundleSource;
  const labelsJson = jsonSafe(referenceLabels) as ReferenceLabel[];
  const temperature = firstLlm ? temperatureOf(firstLlm) : undefined;
  try {
    const bundle = buildBundle({
      id: trace.bundleId,
      task: jsonSafe(
        clean({
          id: trace.traceId,
          benchmark: null,
          name: trace.name ?? firstRoot?.name ?? null,
          prompt,
          reference: trace.reference,
        }),
      ) as { prompt: string },
      initialState: {},
      config: jsonSafe(
        clean({
          mas,
          model: firstLlm ? requestModelOf(firstLlm) : null,
          temperature,
          instrumentation: scope ? { scope: scope.name, version: scope.version } : undefined,
          replay: { normalization: OTEL_NORMALIZATION },
          ...trace.configExtra,
        }),
      ) as Rec,
      nodes: x.nodes,
      edges: x.edges,
      order: x.order,
      records: x.records,
      outcome: { passed: null, evaluator: trace.dataset, details: { dataFlow: x.dataFlow } },
      extra: { source: sourceJson, referenceLabels: labelsJson },
    });
    return { ok: true, value: { bundle, source: sourceJson, referenceLabels: labelsJson, warnings } };
  } catch (err) {
    // Text that cannot be hashed (a lone surrogate): name its path in the input file.
    const bad = trace.rawValue !== undefined ? findLoneSurrogate(trace.rawValue) : null;
    if (bad) return { ok: false, failure: { where, errors: [bad] } };
    if (err instanceof BundleValidationError) {
      return { ok: false, failure: { where, errors: err.issues.map((i) => ({ path: i.path, message: i.message })) } };
    }
    return { ok: false, failure: { where, errors: [{ path: "$", message: err instanceof Error ? err.message : String(err) }] } };
  }
}
