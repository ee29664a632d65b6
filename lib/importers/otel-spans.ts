/**
 * Shared core of the OpenTelemetry importers (Langfuse trace exports and OTLP/JSON): one internal
 * span list, mapped onto a replay bundle v1 (the bundle v1 spec) exactly once.
 *
 * Data flow: an adapter (otel-langfuse.ts, otel-otlp.ts) turns its input shape into an
 * {@link OtelTrace} (spans with flat attributes whose JSON-string values are already parsed);
 * {@link traceToCase} runs the phases: checks and repairs (otel-checks.ts), span tree and observed
 * order (otel-order.ts), per-span readings (otel-span-readings.ts), tool calls (otel-tool-calls.ts),
 * edges (otel-graph.ts), nodes (otel-nodes.ts), records (otel-records.ts), and the case: task,
 * config, labels, source, bundle (otel-case.ts).
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Mapping to an
 * event-dependency graph" and §"Things to handle"; OpenInference and OTel GenAI semantic
 * conventions for the attribute names. The mapping in plain words: README.md, "OpenTelemetry importer".
 */
import { checkSpans, dedupeSpans } from "./otel-checks";
import { assembleCase } from "./otel-case";
import { traceEdges } from "./otel-graph";
import { agentsOf, buildNodes, finalResultOf, spanLinks } from "./otel-nodes";
import { completeOrder, deepTreeWarning, listedOutOfTreeOrder, nodeIds, spanItems, spanTree } from "./otel-order";
import { buildRecords } from "./otel-records";
import { readSpans } from "./otel-span-readings";
import { inferCallIds, toolArguments, unrunCalls, unrunCallWarnings } from "./otel-tool-calls";
import type { OtelSpan, OtelTrace, TraceResult } from "./otel-types";
import { findLoneSurrogate } from "./parse";
import type { ImportWarning } from "./types";

export { OTEL_NORMALIZATION } from "./otel-case";
export { DEEP_SPAN_TREE } from "./otel-order";

/**
 * Map one trace onto a replay bundle.
 *
 * Nodes: one per (deduplicated) span — AGENT and plain SPAN/CHAIN spans -> agent_action,
 * LLM/GENERATION -> llm_call, TOOL -> tool_call plus a tool_result holding its output — one
 * tool_call per tool call named in an LLM's output that no tool span ran, and one final_result.
 * Order: start time (clamped to the parent's), then depth, then id; tool_result at its tool's end
 * time; final_result last. Edges: containment (control), tool_call -> tool_result (data),
 * consecutive siblings that do not overlap in time (control), tool-call-id data flow (producing
 * generation -> tool_call, tool_result -> first consuming generation), last generation ->
 * final_result (data). Records: one llm record per llm_call with input messages and output, one
 * tool record per tool_call, in observed order.
 *
 * Imperfect spans are repaired, not rejected (dedupeSpans, checkSpans): duplicate ids, orphans,
 * all-zero parents, cycles, skewed and open spans, unresolved links, non-object tool arguments;
 * each repair is an ImportWarning on the case and in `source.importWarnings`, and a marker in the
 * span node's `content.importWarnings`. Linear in the number of spans, no recursion.
 *
 * @returns `{ok: true, value}` with the case and its warnings, or `{ok: false, failure}` naming
 *   every fault with its JSON path (a missing/unparseable start time, a lone surrogate) or the
 *   bundle validation issues. Never throws.
 */
export function traceToCase(trace: OtelTrace): TraceResult {
  const where = `${trace.fileName}#traceId=${trace.traceId}`;
  const notes = [...trace.notes];
  const deduped = dedupeSpans(trace.spans);
  // Copies: checkSpans repairs parent ids in place.
  const spans = deduped.spans.map((s) => ({ ...s }));
  const warnings: ImportWarning[] = [...(trace.warnings ?? []), ...deduped.warnings];
  if (spans.length === 0) {
    return { ok: false, failure: { where, errors: [{ path: "$", message: `trace ${trace.traceId} has no spans` }] } };
  }
  // Text that cannot be hashed or stored (a lone UTF-16 surrogate): name the innermost path.
  const unhashable = spans.map((s) => (s.raw !== undefined ? findLoneSurrogate(s.raw, s.path) : null)).filter((x) => x !== null);
  if (unhashable.length > 0) return { ok: false, failure: { where, errors: unhashable } };
  const checked = checkSpans(spans);
  if (checked.errors.length > 0) return { ok: false, failure: { where, errors: checked.errors } };
  warnings.push(...checked.warnings);
  const { start, end, marks, declaredParent } = checked;
  const mark = (s: OtelSpan, text: string) => marks.set(s.id, [...(marks.get(s.id) ?? []), text]);

  // Tree and observed order.
  const tree = spanTree(spans, start);
  if (tree.clamped > 0) notes.push(`${tree.clamped} span(s) start before their parent: ordered at the parent's start`);
  const deep = deepTreeWarning(tree);
  if (deep) {
    warnings.push(deep.warning);
    mark(deep.span, deep.mark);
  }
  // OTLP exporters send spans as they end (children before their parents): that order is normal
  // there and not worth a note; a Langfuse export lists observations parents first.
  if (trace.dataset !== "otlp" && listedOutOfTreeOrder(spans)) notes.push("spans are listed out of tree order (a child before its parent); tree rebuilt from parent ids");
  const items = spanItems(spans, tree, end);
  const readings = readSpans(spans);
  const spansInOrder = items.filter((it) => it.kind === "span").map((it) => it.span!);
  // Rank of each span in the observed order (the tool-call nodes added below do not change it).
  const rank = new Map(spansInOrder.map((s, i) => [s.id, i]));
  const llmInOrder = spansInOrder.filter((s) => s.category === "llm");

  // Tool calls: call ids, then the calls named in an LLM's output that no tool span ran.
  const { callIdOf, taken } = inferCallIds(spansInOrder, llmInOrder, rank, readings.outMsgs);
  const unrun = unrunCalls(llmInOrder, spansInOrder, callIdOf, taken, rank, readings.outMsgs);
  warnings.push(...unrunCallWarnings(unrun));
  const unrunCount = unrun.reduce((n, u) => n + u.calls.length, 0);
  if (unrunCount > 0) notes.push(`${unrunCount} tool call(s) named in an LLM's output with no tool span that ran them: each is a tool_call node (executed: false) after its LLM`);
  completeOrder(items, unrun, tree, end);
  const ids = nodeIds(items);

  // Graph.
  const final = finalResultOf(trace, spansInOrder, llmInOrder);
  if (final.note) notes.push(final.note);
  const { edges, dataFlow } = traceEdges({ spansInOrder, llmInOrder, items, nodes: ids, start, end, callIdOf, readings, finalProducer: final.producer });
  const links = spanLinks(spansInOrder, spans, trace.traceId, ids.spanNode, mark);
  warnings.push(...links.warnings);
  const args = toolArguments(spansInOrder);
  warnings.push(...args.warnings);

  // Nodes, records, the case.
  const agents = agentsOf(tree.topo);
  const nodes = buildNodes({ items, nodes: ids, agents, final, callIdOf, argsOf: args.argsOf, readings, start, end, declaredParent, marks, linksOf: links.linksOf });
  const records = buildRecords({ spansInOrder, spanNode: ids.spanNode, start, end, readings, callIdOf, argsOf: args.argsOf });
  return assembleCase({
    trace, spansInOrder, llmInOrder, inMsgs: readings.inMsgs, firstRoot: final.firstRoot, spanNode: ids.spanNode,
    nodes, edges, order: ids.ids, records, dataFlow, notes, warnings,
  });
}
