/**
 * The span tree and the observed order of an OTel trace (phases of traceToCase, otel-spans.ts):
 * depths and clamped starts, the deep-tree warning, the order items (spans, tool results, unrun
 * tool calls, the final result) and the node ids given by their positions.
 *
 * Source: the langfuse_framework_traces dataset notes (SOURCE.md) §"Mapping to an event-dependency
 * graph"; lib/importers/README.md §"Observed order"; issue 20 items 8, 10 and 11.
 */
import type { NodeType } from "../bundle";
import type { NamedCall } from "./otel-tool-calls";
import { cmpBig } from "./otel-span-readings";
import type { OtelSpan, SpanCategory } from "./otel-types";
import type { ImportWarning } from "./types";

/** A span tree with more levels than this gets a `deep-span-tree` warning naming its depth. */
export const DEEP_SPAN_TREE = 100;

const NODE_TYPE: Record<SpanCategory, NodeType> = {
  agent: "agent_action",
  llm: "llm_call",
  tool: "tool_call",
  span: "agent_action",
};

/**
 * One position of the observed order: a span, a tool span's result, a tool call named in an LLM
 * output that no tool span ran, or the final result. Sorted by {@link byTime}.
 */
export interface Item {
  kind: "span" | "result" | "call" | "final";
  span: OtelSpan | null;
  /** Sort time, ns (clamped start; a result's or unrun call's end time). */
  t: bigint;
  depth: number;
  tie: string;
  sub: number;
  /** kind "call": a tool call named in `span`'s (an LLM's) output that no tool span ran. */
  call?: NamedCall;
}

/** The span tree: depth and clamped start (ns) per span id, the spans parents first, the clamp count. */
export interface SpanTree {
  depth: Map<string, number>;
  effStart: Map<string, bigint>;
  topo: OtelSpan[];
  clamped: number;
}

/**
 * The span tree, breadth-first from the roots (no recursion, linear in the number of spans): each
 * span's depth and its start clamped to its parent's (so the observed order is a linear extension).
 * @param spans the checked spans (parent ids repaired by checkSpans: no cycles, no orphans)
 * @param start each span's own start, ns (checkSpans)
 * @returns depths, clamped starts, the spans parents first (`topo`) and how many starts were clamped
 */
export function spanTree(spans: readonly OtelSpan[], start: ReadonlyMap<string, bigint>): SpanTree {
  const children = new Map<string, OtelSpan[]>();
  for (const s of spans) {
    if (s.parentId === null) continue;
    const list = children.get(s.parentId);
    if (list) list.push(s);
    else children.set(s.parentId, [s]);
  }
  const depth = new Map<string, number>();
  const effStart = new Map<string, bigint>();
  const topo: OtelSpan[] = spans.filter((s) => s.parentId === null);
  let clamped = 0;
  for (const r of topo) {
    depth.set(r.id, 0);
    effStart.set(r.id, start.get(r.id)!);
  }
  for (let i = 0; i < topo.length; i++) {
    const p = topo[i];
    for (const c of children.get(p.id) ?? []) {
      depth.set(c.id, depth.get(p.id)! + 1);
      let st = start.get(c.id)!;
      if (st < effStart.get(p.id)!) {
        st = effStart.get(p.id)!;
        clamped++;
      }
      effStart.set(c.id, st);
      topo.push(c);
    }
  }
  return { depth, effStart, topo, clamped };
}

/**
 * A span tree deeper than any agent run nests (a runaway recursion, a broken parent chain), issue 20
 * item 11: more than {@link DEEP_SPAN_TREE} levels.
 * @param tree the span tree ({@link spanTree})
 * @returns the `deep-span-tree` warning (path: the deepest span's parent id field), the deepest
 *   span and the marker for its node content; null for a tree within the limit
 */
export function deepTreeWarning(tree: SpanTree): { warning: ImportWarning; span: OtelSpan; mark: string } | null {
  const { topo, depth } = tree;
  let deepest: OtelSpan | null = null;
  for (const s of topo) if (!deepest || depth.get(s.id)! > depth.get(deepest.id)!) deepest = s;
  const levels = deepest ? depth.get(deepest.id)! + 1 : 0;
  if (!deepest || levels <= DEEP_SPAN_TREE) return null;
  const n = levels.toLocaleString("en-US");
  return {
    warning: { kind: "deep-span-tree", path: deepest.paths.parentId, message: `span tree is ${n} levels deep (deepest span ${deepest.id}); more than ${DEEP_SPAN_TREE} levels` },
    span: deepest,
    mark: `span tree depth ${n}: deepest span`,
  };
}

/** True when the input lists a child before its parent (then a note says the tree was rebuilt). */
export function listedOutOfTreeOrder(spans: readonly OtelSpan[]): boolean {
  const fileIndex = new Map(spans.map((s, i) => [s.id, i]));
  return spans.some((s) => s.parentId !== null && fileIndex.get(s.parentId)! > fileIndex.get(s.id)!);
}

/** Observed-order comparator: time, then depth (parent first), then span id, then sub-position. */
export const byTime = (a: Item, b: Item): number =>
  cmpBig(a.t, b.t) || a.depth - b.depth || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0) || a.sub - b.sub;

/** A span's end time for ordering, ns: its checked end, but never before its clamped start. */
export function endAt(s: OtelSpan, tree: SpanTree, end: ReadonlyMap<string, bigint>): bigint {
  const e = end.get(s.id)!;
  return e < tree.effStart.get(s.id)! ? tree.effStart.get(s.id)! : e;
}

/**
 * The observed order of the spans (README §"Observed order"): each span at its clamped start, and
 * each tool span's result at its end (right after the tool on a tie), sorted by {@link byTime}.
 * @param end each span's checked end, ns (checkSpans)
 * @returns the sorted items (no unrun calls, no final result yet)
 */
export function spanItems(spans: readonly OtelSpan[], tree: SpanTree, end: ReadonlyMap<string, bigint>): Item[] {
  const items: Item[] = [];
  for (const s of spans) {
    items.push({ kind: "span", span: s, t: tree.effStart.get(s.id)!, depth: tree.depth.get(s.id)!, tie: s.id, sub: 0 });
    if (s.category === "tool") items.push({ kind: "result", span: s, t: endAt(s, tree, end), depth: tree.depth.get(s.id)!, tie: s.id, sub: 1 });
  }
  items.sort(byTime);
  return items;
}

/**
 * Place the tool calls no tool span ran (issue 20 item 10) right after their LLM (at its end, in
 * output order), then re-sort; and append the final result, always last.
 * @param items the sorted span items ({@link spanItems}); mutated and returned
 * @param unrun per LLM span, its unrun calls (otel-tool-calls `unrunCalls`)
 * @returns the complete order
 */
export function completeOrder(
  items: Item[],
  unrun: ReadonlyArray<{ llm: OtelSpan; calls: NamedCall[] }>,
  tree: SpanTree,
  end: ReadonlyMap<string, bigint>,
): Item[] {
  let count = 0;
  for (const { llm: g, calls } of unrun) {
    const t = endAt(g, tree, end);
    calls.forEach((nc, k) => {
      items.push({ kind: "call", span: g, t, depth: tree.depth.get(g.id)!, tie: g.id, sub: 2 + k, call: nc });
      count++;
    });
  }
  if (count > 0) items.sort(byTime);
  items.push({ kind: "final", span: null, t: 0n, depth: 0, tie: "", sub: 0 });
  return items;
}

/** An item's node type: final_result, tool_result, tool_call (unrun call) or the span category's type. */
export function typeOf(it: Item): NodeType {
  return it.kind === "final" ? "final_result" : it.kind === "result" ? "tool_result" : it.kind === "call" ? "tool_call" : NODE_TYPE[it.span!.category];
}

/** Node ids by position, and the node of each span and of each tool span's result. */
export interface NodeIds {
  /** `<type>_<position, 4 digits>`, in order (the bundle's `order`). */
  ids: string[];
  spanNode: Map<string, string>;
  resultNode: Map<string, string>;
  /** Position of each node id in `ids`. */
  pos: Map<string, number>;
}

/**
 * Node ids from the complete order (README: `<type>_<position in order, 4 digits>`, stable for
 * the same input).
 */
export function nodeIds(items: readonly Item[]): NodeIds {
  const pad = (i: number) => String(i).padStart(4, "0");
  const ids = items.map((it, i) => `${typeOf(it)}_${pad(i)}`);
  const spanNode = new Map<string, string>();
  const resultNode = new Map<string, string>();
  items.forEach((it, i) => {
    if (it.kind === "span") spanNode.set(it.span!.id, ids[i]);
    if (it.kind === "result") resultNode.set(it.span!.id, ids[i]);
  });
  return { ids, spanNode, resultNode, pos: new Map(ids.map((id, i) => [id, i])) };
}
