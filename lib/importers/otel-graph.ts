/**
 * The edges of an OTel trace's bundle (a phase of traceToCase, otel-spans.ts): containment,
 * tool_call -> tool_result, sequential siblings, tool-call-id data flow (also for unrun tool calls)
 * and the last generation -> final_result.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Mapping to an event-dependency
 * graph"; lib/importers/README.md §"Edges"; issue 20 item 10 (unrun tool calls).
 */
import type { BundleEdge } from "../bundle";
import type { CallId } from "./otel-tool-calls";
import type { Item, NodeIds } from "./otel-order";
import type { SpanReadings } from "./otel-span-readings";
import type { OtelSpan } from "./otel-types";

/** How many earlier siblings a span is compared with for its sibling edges (linear in the spans). */
export const SIBLING_WINDOW = 32;

/** A data edge carried by a tool call id (bundle `outcome.details.dataFlow`). */
export interface DataFlow {
  from: string;
  to: string;
  callId: string;
}

/** What the edge phase reads: the order, its node ids, times, call ids and messages. */
export interface EdgeInputs {
  spansInOrder: readonly OtelSpan[];
  llmInOrder: readonly OtelSpan[];
  items: readonly Item[];
  nodes: NodeIds;
  /** Checked start and end of each span, ns (checkSpans). */
  start: ReadonlyMap<string, bigint>;
  end: ReadonlyMap<string, bigint>;
  callIdOf: ReadonlyMap<string, CallId>;
  readings: SpanReadings;
  /** The span whose node feeds the final result (last generation, else first root), or null. */
  finalProducer: OtelSpan | null;
}

/**
 * A set of edges keyed by `from->to`, in first-added order: an edge only goes forward in the order
 * (else it is dropped), and a data edge replaces a control edge between the same nodes.
 * @param pos each node id's position in the order
 * @returns `add` (true when the edge goes forward, whether new or not) and the edges added so far
 */
export function edgeSet(pos: ReadonlyMap<string, number>) {
  const edgeMap = new Map<string, BundleEdge>();
  const add = (from: string, to: string, kind: "data" | "control"): boolean => {
    if (from === to || pos.get(from)! >= pos.get(to)!) return false;
    const key = `${from}->${to}`;
    const prev = edgeMap.get(key);
    if (!prev || (prev.kind === "control" && kind === "data")) edgeMap.set(key, { from, to, kind });
    return true;
  };
  return { add, edges: (): BundleEdge[] => [...edgeMap.values()] };
}

/**
 * All edges, in this order: parent -> child (control); tool_call -> tool_result (data);
 * siblings (same parent, observed order): from each earlier one (of the last SIBLING_WINDOW) that
 * ended at or before the later started and that no other such one followed (control: a sequence
 * is a chain, concurrent siblings each lead to the one after them); per tool span with a call id, the generation whose output names that id ->
 * tool_call and tool_result -> the first later generation whose input answers it (data); per unrun
 * call, its generation -> call and call -> the first later generation answering its id (data);
 * final producer -> final_result (data).
 * @returns the edges and the tool-call-id data edges that were added (`outcome.details.dataFlow`)
 */
export function traceEdges(x: EdgeInputs): { edges: BundleEdge[]; dataFlow: DataFlow[] } {
  const { spansInOrder, llmInOrder, items, start, end, callIdOf } = x;
  const { ids, spanNode, resultNode, pos } = x.nodes;
  const { inMsgs, outMsgs } = x.readings;
  const { add: addEdge, edges } = edgeSet(pos);

  for (const s of spansInOrder) if (s.parentId !== null) addEdge(spanNode.get(s.parentId)!, spanNode.get(s.id)!, "control");
  for (const s of spansInOrder) if (s.category === "tool") addEdge(spanNode.get(s.id)!, resultNode.get(s.id)!, "data");
  const siblingGroups = new Map<string, OtelSpan[]>();
  for (const s of spansInOrder) {
    const k = s.parentId ?? "\u0000root";
    const g = siblingGroups.get(k);
    if (g) g.push(s);
    else siblingGroups.set(k, [s]);
  }
  // Each sibling follows the earlier ones (of the last SIBLING_WINDOW) that ended before it started
  // and that no other such sibling followed: one edge after a sequential sibling, one from each
  // branch after siblings that ran concurrently (a fan-in), none between overlapping ones.
  for (const group of siblingGroups.values()) {
    for (let i = 1; i < group.length; i++) {
      const b = group[i];
      const sb = start.get(b.id)!;
      let latestStart = -1n;
      for (let j = Math.max(0, i - SIBLING_WINDOW); j < i; j++) {
        const a = group[j];
        if (end.get(a.id)! <= sb && start.get(a.id)! > latestStart) latestStart = start.get(a.id)!;
      }
      // Followed by another finished one: it ended at or before the latest-starting one began.
      for (let j = Math.max(0, i - SIBLING_WINDOW); j < i; j++) {
        const a = group[j];
        const ea = end.get(a.id)!;
        if (ea <= sb && (start.get(a.id)! === latestStart || ea > latestStart)) addEdge(spanNode.get(a.id)!, spanNode.get(b.id)!, "control");
      }
    }
  }

  const dataFlow: DataFlow[] = [];
  for (const s of spansInOrder) {
    const cid = callIdOf.get(s.id)?.id;
    if (!cid) continue;
    const callNode = spanNode.get(s.id)!;
    const resNode = resultNode.get(s.id)!;
    const producer = llmInOrder.find((g) =>
      (outMsgs.get(g.id) ?? []).some((m) => (m.tool_calls ?? []).some((tc) => tc.id === cid)),
    );
    if (producer && addEdge(spanNode.get(producer.id)!, callNode, "data"))
      dataFlow.push({ from: spanNode.get(producer.id)!, to: callNode, callId: cid });
    const consumer = llmInOrder.find(
      (g) =>
        pos.get(spanNode.get(g.id)!)! > pos.get(resNode)! &&
        (inMsgs.get(g.id) ?? []).some((m) => m.role === "tool" && m.tool_call_id === cid),
    );
    if (consumer && addEdge(resNode, spanNode.get(consumer.id)!, "data"))
      dataFlow.push({ from: resNode, to: spanNode.get(consumer.id)!, callId: cid });
  }

  // Unrun tool calls: producing generation -> call (data); call -> the first later generation whose
  // input answers its call id (a framework's error message in place of a result).
  items.forEach((it, i) => {
    if (it.kind !== "call") return;
    const from = spanNode.get(it.span!.id)!;
    addEdge(from, ids[i], "data");
    const cid = it.call!.call.id;
    if (cid) dataFlow.push({ from, to: ids[i], callId: cid });
    const consumer = cid
      ? llmInOrder.find((g) => pos.get(spanNode.get(g.id)!)! > i && (inMsgs.get(g.id) ?? []).some((m) => m.role === "tool" && m.tool_call_id === cid))
      : undefined;
    if (consumer && addEdge(ids[i], spanNode.get(consumer.id)!, "data")) dataFlow.push({ from: ids[i], to: spanNode.get(consumer.id)!, callId: cid! });
  });

  if (x.finalProducer) addEdge(spanNode.get(x.finalProducer.id)!, ids[ids.length - 1], "data");
  return { edges: edges(), dataFlow };
}
