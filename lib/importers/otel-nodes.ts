/**
 * The nodes of an OTel trace's bundle (phases of traceToCase, otel-spans.ts): agent attribution,
 * the final result's source, span links, and one node per order item (span, tool result, unrun
 * tool call, final result) with its label, content, status and error.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Mapping to an event-dependency
 * graph"; lib/importers/README.md (node types, content, labels); issue 20 items 10 and 12.
 */
import type { NodeDraft } from "../bundle";
import { formatDurationNs } from "../duration";
import { type ChatMessage, finalText, messageText } from "./otel-messages";
import { type Item, type NodeIds, typeOf } from "./otel-order";
import { AGENT_NAME_KEYS, requestModelOf, type SpanReadings, toolNameOf } from "./otel-span-readings";
import type { CallId } from "./otel-tool-calls";
import type { OtelSpan, OtelTrace } from "./otel-types";
import { type ArgumentsNote, asText, clean, jsonSafe, oneLine, type Rec, str } from "./otel-values";
import type { ImportWarning } from "./types";

/**
 * Each span's agent: its own agent-name attribute (AGENT_NAME_KEYS), else its name if it is an
 * AGENT span, else its parent's agent. Parents are computed first (topo order), so deep chains
 * stay linear.
 * @param topo the spans, parents first (otel-order `spanTree`)
 * @returns agent name (or null) per span id
 */
export function agentsOf(topo: readonly OtelSpan[]): Map<string, string | null> {
  const agentMemo = new Map<string, string | null>();
  for (const s of topo) {
    let a: string | null = null;
    for (const k of AGENT_NAME_KEYS) {
      a = str(s.attributes[k]);
      if (a) break;
    }
    if (!a && s.category === "agent") a = s.name;
    if (!a && s.parentId !== null) a = agentMemo.get(s.parentId) ?? null;
    agentMemo.set(s.id, a);
  }
  return agentMemo;
}

/** Where the final result's output comes from, and the span whose node feeds it. */
export interface FinalResult {
  from: "trace.output" | "root.output" | "last_generation.output" | "none";
  output: unknown;
  /** Last generation, else the first root, else null: agent of the final node, source of its edge. */
  producer: OtelSpan | null;
  /** The first root span in observed order (task name and prompt fallback), or null. */
  firstRoot: OtelSpan | null;
  /** A note for `source.notes` when there is no output at all, else null. */
  note: string | null;
}

/**
 * The final result: the trace output, else the first root's output, else the last generation's
 * output, else empty (with a note).
 * @param spansInOrder / llmInOrder the spans and the LLM spans in observed order
 */
export function finalResultOf(trace: OtelTrace, spansInOrder: readonly OtelSpan[], llmInOrder: readonly OtelSpan[]): FinalResult {
  const firstRoot = spansInOrder.find((s) => s.parentId === null) ?? null;
  const lastLlm = llmInOrder.length > 0 ? llmInOrder[llmInOrder.length - 1] : null;
  const producer = lastLlm ?? firstRoot;
  const base = { producer, firstRoot, note: null };
  if (trace.traceOutput !== null && trace.traceOutput !== undefined) return { ...base, from: "trace.output", output: trace.traceOutput };
  if (firstRoot && firstRoot.output !== null && firstRoot.output !== undefined) return { ...base, from: "root.output", output: firstRoot.output };
  if (lastLlm && lastLlm.output !== null && lastLlm.output !== undefined) return { ...base, from: "last_generation.output", output: lastLlm.output };
  return { ...base, from: "none", output: null, note: "no trace output, root output or generation output: final_result is empty" };
}

/**
 * Span links (OTLP `links[]`): references only, never parent edges. A link to a span of this trace
 * (same or no trace id, a span id kept first by dedupeSpans) names its node; any other link is kept
 * as an unresolved reference, with an `unresolved-link` warning and a marker on the span.
 * @param spans all checked spans (to tell a span id kept first from a duplicate copy)
 * @param mark adds a marker to a span's node content (`importWarnings`)
 * @returns the links of each span that has any, and the warnings in observed order
 */
export function spanLinks(
  spansInOrder: readonly OtelSpan[],
  spans: readonly OtelSpan[],
  traceId: string,
  spanNode: ReadonlyMap<string, string>,
  mark: (s: OtelSpan, text: string) => void,
): { linksOf: Map<string, Rec[]>; warnings: ImportWarning[] } {
  const byIdFirst = new Set(spans.filter((s) => !s.duplicateOf).map((s) => s.id));
  const linksOf = new Map<string, Rec[]>();
  const warnings: ImportWarning[] = [];
  for (const s of spansInOrder) {
    if (!s.links || s.links.length === 0) continue;
    linksOf.set(
      s.id,
      s.links.map((l) => {
        const target = (l.traceId === null || l.traceId === traceId) && byIdFirst.has(l.spanId) ? spanNode.get(l.spanId)! : null;
        if (target !== null) return { traceId: l.traceId, spanId: l.spanId, nodeId: target };
        mark(s, `unresolved link: span ${l.spanId} not in trace`);
        warnings.push({ kind: "unresolved-link", path: `${s.path}.links`, message: `span ${s.id}: link to span ${l.spanId} (trace ${l.traceId ?? "?"}) which is not in this trace: kept as an unresolved reference` });
        return { traceId: l.traceId, spanId: l.spanId, nodeId: null, unresolved: true };
      }),
    );
  }
  return { linksOf, warnings };
}

/** What the node phase reads. */
export interface NodeInputs {
  items: readonly Item[];
  nodes: NodeIds;
  agents: ReadonlyMap<string, string | null>;
  final: FinalResult;
  callIdOf: ReadonlyMap<string, CallId>;
  argsOf: ReadonlyMap<string, { value: unknown; note?: ArgumentsNote }>;
  readings: SpanReadings;
  /** checkSpans: checked times (ns), declared parents, node-content markers. */
  start: ReadonlyMap<string, bigint>;
  end: ReadonlyMap<string, bigint>;
  declaredParent: ReadonlyMap<string, string | null>;
  marks: ReadonlyMap<string, string[]>;
  linksOf: ReadonlyMap<string, Rec[]>;
}

/**
 * One node per order item, in order (README §"Span kind -> node type"): final_result
 * `{from, text, output}`; an unrun tool call `{tool, namedBy, executed: false, note}`; a
 * tool_result `{tool, callId, spanId, output}`; a span node with the span's ids, times and duration
 * (ns and text), extra fields, markers, links, then for a tool `{tool, input, status, attributes
 * (output keys dropped), events, scope}` and otherwise `{model, usage, input, output, messages
 * (LLM), status, attributes, events, scope}`. A span with error status gets `status: "error"` and
 * `error: {type, message}`.
 */
export function buildNodes(x: NodeInputs): NodeDraft[] {
  const { ids, spanNode } = x.nodes;
  const { unflat, inMsgs, outMsgs } = x.readings;
  const agentOf = (s: OtelSpan): string | null => x.agents.get(s.id) ?? null;
  const durationOf = (s: OtelSpan) => {
    const ns = x.end.get(s.id)! - x.start.get(s.id)!;
    return { durationNs: ns.toString(), duration: formatDurationNs(ns) };
  };
  return x.items.map((it, i) => {
    const id = ids[i];
    if (it.kind === "final") {
      const { output, from, producer } = x.final;
      const text = output === null ? "" : finalText(output);
      return clean({
        id,
        type: "final_result" as const,
        agent: producer ? (agentOf(producer) ?? undefined) : undefined,
        label: oneLine(text || "(no output)"),
        content: jsonSafe({ from, text, output }),
      });
    }
    const s = it.span!;
    const agent = agentOf(s) ?? undefined;
    if (it.kind === "call") {
      const { call: tc, message, index } = it.call!;
      const name = tc.name ?? "?";
      return clean({
        id,
        type: "tool_call" as const,
        agent,
        label: oneLine(`${name}(${asText(tc.arguments)}) · not run`),
        content: jsonSafe({
          tool: clean({ name: tc.name, arguments: tc.arguments ?? null, argumentsNote: tc.argumentsNote, callId: tc.id, callIdSource: tc.id ? "message" : null }),
          namedBy: { nodeId: spanNode.get(s.id)!, spanId: s.duplicateOf?.spanId ?? s.id, message, call: index },
          executed: false,
          note: "named in the LLM's output; no tool span in the trace ran it",
        }),
      });
    }
    const errorInfo = s.status.error ? errorOf(s) : undefined;
    const common = {
      spanId: s.duplicateOf?.spanId ?? s.id,
      parentSpanId: x.declaredParent.get(s.id) ?? null,
      traceId: s.traceId,
      name: s.name,
      kind: s.kind,
      startTime: s.startTime,
      endTime: s.endTime ?? null,
      ...durationOf(s),
      ...s.extra,
      importWarnings: x.marks.get(s.id),
      duplicateOf: s.duplicateOf,
      links: x.linksOf.get(s.id),
    };
    if (it.kind === "result") {
      const cid = x.callIdOf.get(s.id);
      const outText = s.output === null || s.output === undefined ? "" : asText(s.output);
      return clean({
        id,
        type: "tool_result" as const,
        agent,
        label: oneLine(`${toolNameOf(s)} → ${errorInfo ? `error: ${errorInfo.message ?? ""}` : outText || "(no output)"}`),
        content: jsonSafe({ tool: toolNameOf(s), callId: cid?.id ?? null, spanId: s.duplicateOf?.spanId ?? s.id, output: s.output ?? null }),
        status: errorInfo ? ("error" as const) : undefined,
        error: errorInfo,
      });
    }
    const attrs = { ...unflat.get(s.id)! };
    let content: Rec;
    let label: string;
    if (s.category === "tool") {
      for (const k of ["output.value", "output.mime_type", "gen_ai.tool.call.result"]) delete attrs[k];
      const cid = x.callIdOf.get(s.id);
      const args = x.argsOf.get(s.id)!;
      content = clean({
        ...common,
        tool: clean({
          name: toolNameOf(s),
          arguments: args.value ?? null,
          argumentsNote: args.note,
          callId: cid?.id ?? null,
          callIdSource: cid?.source ?? null,
        }),
        input: s.input ?? null,
        status: s.status.code || s.status.message ? { code: s.status.code, message: s.status.message } : undefined,
        attributes: attrs,
        events: s.events.length > 0 ? s.events : undefined,
        scope: s.scope ?? undefined,
      });
      label = `${toolNameOf(s)}(${asText(args.value)})`;
    } else {
      const isLlm = s.category === "llm";
      content = clean({
        ...common,
        model: s.model ?? undefined,
        usage: s.usage ?? undefined,
        input: s.input ?? null,
        output: s.output ?? null,
        messages: isLlm ? { input: inMsgs.get(s.id) ?? [], output: outMsgs.get(s.id) ?? [] } : undefined,
        status: s.status.code || s.status.message ? { code: s.status.code, message: s.status.message } : undefined,
        attributes: attrs,
        events: s.events.length > 0 ? s.events : undefined,
        scope: s.scope ?? undefined,
      });
      label = isLlm ? llmLabel(s, outMsgs.get(s.id) ?? []) : s.name;
    }
    return clean({
      id,
      type: typeOf(it),
      agent,
      label: oneLine(label || s.name || s.id),
      content: jsonSafe(content),
      status: errorInfo ? ("error" as const) : undefined,
      error: errorInfo,
    });
  });
}

/**
 * A failed span's error: type and message from its `exception` event, else its exception
 * attributes; the status message wins for the message. Defaults: type "error", message "".
 */
export function errorOf(s: OtelSpan): { type: string; message: string } {
  const ex = s.events.find((e) => e.name === "exception");
  const type = str(ex?.attributes["exception.type"]) ?? str(s.attributes["exception.type"]) ?? "error";
  const message =
    s.status.message ?? str(ex?.attributes["exception.message"]) ?? str(s.attributes["exception.message"]) ?? "";
  return { type, message };
}

/**
 * An llm_call's label: `<model> → name(args), ...` when its output calls tools, else
 * `<model>: <last non-empty output message text, else the output as text>`.
 */
export function llmLabel(s: OtelSpan, out: ChatMessage[]): string {
  const model = requestModelOf(s) ?? s.name;
  const calls = out.flatMap((m) => m.tool_calls ?? []);
  if (calls.length > 0) return `${model} → ${calls.map((c) => `${c.name ?? "?"}(${asText(c.arguments)})`).join(", ")}`;
  const text = [...out].reverse().map(messageText).find((t) => t);
  return `${model}: ${text ?? asText(s.output)}`;
}
