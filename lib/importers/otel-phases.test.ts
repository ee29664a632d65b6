/**
 * The phases of traceToCase one by one (issue 23: otel-spans.ts cut into its phases): span tree and
 * observed order, tool-call ids and unrun calls, the edge set. Spans are built in the internal
 * shape (OtelSpan) directly; whole traces are covered by otel.test.ts and otel-robust.test.ts.
 */
import { describe, expect, test } from "vitest";
import { edgeSet } from "./otel-graph";
import type { ChatMessage } from "./otel-messages";
import { completeOrder, DEEP_SPAN_TREE, deepTreeWarning, listedOutOfTreeOrder, nodeIds, spanItems, spanTree } from "./otel-order";
import { canonicalArgs, inferCallIds, toolArguments, unrunCalls, unrunCallWarnings } from "./otel-tool-calls";
import type { OtelSpan, SpanCategory } from "./otel-types";

function sp(id: string, parentId: string | null, category: SpanCategory = "span", over: Partial<OtelSpan> = {}): OtelSpan {
  return {
    id,
    parentId,
    traceId: "t1",
    name: `span ${id}`,
    category,
    kind: category,
    startTime: null,
    endTime: null,
    attributes: {},
    status: { error: false, code: null, message: null },
    input: null,
    output: null,
    model: null,
    usage: null,
    events: [],
    scope: null,
    path: `$.spans[${id}]`,
    paths: { parentId: `$.spans[${id}].parentSpanId`, startTime: `$.spans[${id}].start`, endTime: `$.spans[${id}].end` },
    extra: {},
    ...over,
  };
}
const times = (o: Record<string, number>) => new Map(Object.entries(o).map(([k, v]) => [k, BigInt(v)]));

describe("otel-order: span tree and observed order", () => {
  test("depths, clamped starts and parents-first order; a child starting before its parent is clamped", () => {
    const spans = [sp("c", "b"), sp("a", null), sp("b", "a")];
    const tree = spanTree(spans, times({ a: 100, b: 50, c: 120 }));
    expect(Object.fromEntries(tree.depth)).toEqual({ a: 0, b: 1, c: 2 });
    expect(Object.fromEntries(tree.effStart)).toEqual({ a: 100n, b: 100n, c: 120n });
    expect(tree.topo.map((s) => s.id)).toEqual(["a", "b", "c"]);
    expect(tree.clamped).toBe(1);
    expect(listedOutOfTreeOrder(spans)).toBe(true);
    expect(listedOutOfTreeOrder([spans[1], spans[2], spans[0]])).toBe(false);
  });

  test(`a chain of ${DEEP_SPAN_TREE} levels passes; ${DEEP_SPAN_TREE + 1} levels names the deepest span`, () => {
    const chain = (n: number) => Array.from({ length: n }, (_, i) => sp(`s${i}`, i === 0 ? null : `s${i - 1}`));
    const start = (n: number) => new Map(Array.from({ length: n }, (_, i) => [`s${i}`, 0n]));
    expect(deepTreeWarning(spanTree(chain(DEEP_SPAN_TREE), start(DEEP_SPAN_TREE)))).toBeNull();
    const n = DEEP_SPAN_TREE + 1;
    const deep = deepTreeWarning(spanTree(chain(n), start(n)))!;
    expect(deep.span.id).toBe("s100");
    expect(deep.warning).toEqual({
      kind: "deep-span-tree",
      path: "$.spans[s100].parentSpanId",
      message: "span tree is 101 levels deep (deepest span s100); more than 100 levels",
    });
    expect(deep.mark).toBe("span tree depth 101: deepest span");
  });

  test("a tool result sits at its tool's end (never before its start); unrun calls follow their LLM; final last", () => {
    const spans = [sp("r", null, "agent"), sp("g", "r", "llm"), sp("t", "r", "tool"), sp("u", "r", "tool")];
    const start = times({ r: 0, g: 10, t: 30, u: 40 });
    const end = times({ r: 100, g: 20, t: 35, u: 40 });
    const tree = spanTree(spans, start);
    const items = spanItems(spans, tree, end);
    expect(items.map((it) => `${it.kind}:${it.span!.id}@${it.t}`)).toEqual(["span:r@0", "span:g@10", "span:t@30", "result:t@35", "span:u@40", "result:u@40"]);
    const call = { message: 0, index: 0, call: { id: "c1", name: "search", arguments: "{}" } };
    completeOrder(items, [{ llm: spans[1], calls: [call] }], tree, end);
    const ids = nodeIds(items);
    expect(ids.ids).toEqual(["agent_action_0000", "llm_call_0001", "tool_call_0002", "tool_call_0003", "tool_result_0004", "tool_call_0005", "tool_result_0006", "final_result_0007"]);
    expect(items[2]).toMatchObject({ kind: "call", t: 20n, sub: 2 });
    expect(ids.spanNode.get("t")).toBe("tool_call_0003");
    expect(ids.resultNode.get("u")).toBe("tool_result_0006");
    expect(ids.pos.get("final_result_0007")).toBe(7);
  });
});

describe("otel-tool-calls: call ids and unrun calls", () => {
  const out = (calls: Array<{ id: string | null; name: string; arguments: unknown }>): ChatMessage[] => [
    { role: "assistant", content: null, tool_calls: calls },
  ];

  test("canonicalArgs: JSON text and objects with keys in any order compare equal", () => {
    expect(canonicalArgs('{"b": 2, "a": [1, {"d": 4, "c": 3}]}')).toBe('{"a":[1,{"c":3,"d":4}],"b":2}');
    expect(canonicalArgs({ a: [1, { c: 3, d: 4 }], b: 2 })).toBe('{"a":[1,{"c":3,"d":4}],"b":2}');
    expect(canonicalArgs(undefined)).toBe("null");
  });

  test("an attribute id wins; a tool without one takes the id of the earlier generation's matching call", () => {
    const g = sp("g", null, "llm");
    const t1 = sp("t1", null, "tool", { name: "search", input: { q: "x" } });
    const t2 = sp("t2", null, "tool", { name: "search", attributes: { "gen_ai.tool.call.id": "call_B" }, input: { q: "y" } });
    const order = [g, t1, t2];
    const rank = new Map(order.map((s, i) => [s.id, i]));
    const outMsgs = new Map([["g", out([{ id: "call_A", name: "search", arguments: '{"q":"x"}' }, { id: "call_B", name: "search", arguments: '{"q":"y"}' }])]]);
    const { callIdOf, taken } = inferCallIds(order, [g], rank, outMsgs);
    expect(Object.fromEntries(callIdOf)).toEqual({ t1: { id: "call_A", source: "inferred" }, t2: { id: "call_B", source: "attribute" } });
    expect([...taken].sort()).toEqual(["call_A", "call_B"]);
  });

  test("a named call no later tool span ran is unrun, with a warning when its arguments are not an object", () => {
    const g = sp("g", null, "llm");
    const t = sp("t", null, "tool", { name: "search", input: { q: "x" } });
    const order = [g, t];
    const rank = new Map(order.map((s, i) => [s.id, i]));
    const outMsgs = new Map([["g", out([{ id: null, name: "search", arguments: '{"q":"x"}' }, { id: "c9", name: "fetch", arguments: "not json" }])]]);
    (outMsgs.get("g")![0].tool_calls![1]).argumentsNote = "not valid JSON";
    const unrun = unrunCalls([g], order, new Map(), new Set(), rank, outMsgs);
    expect(unrun).toHaveLength(1);
    expect(unrun[0].calls.map((c) => [c.message, c.index, c.call.name])).toEqual([[0, 1, "fetch"]]);
    expect(unrunCallWarnings(unrun)).toEqual([
      { kind: "tool-arguments-not-object", path: "$.spans[g]", message: "span g: tool call 1 of output message 0 (fetch): arguments not valid JSON: kept verbatim as text" },
    ]);
  });

  test("toolArguments reads tool spans only and warns on text arguments", () => {
    const { argsOf, warnings } = toolArguments([sp("g", null, "llm"), sp("t", null, "tool", { rawArguments: "oops" })]);
    expect([...argsOf.keys()]).toEqual(["t"]);
    expect(argsOf.get("t")!.value).toBe("oops");
    expect(warnings.map((w) => [w.kind, w.path])).toEqual([["tool-arguments-not-object", "$.spans[t]"]]);
  });
});

describe("otel-graph: edge set", () => {
  test("only forward edges; data replaces control between the same nodes; first-added order", () => {
    const { add, edges } = edgeSet(new Map([["a", 0], ["b", 1], ["c", 2]]));
    expect(add("b", "a", "control")).toBe(false);
    expect(add("a", "a", "data")).toBe(false);
    expect(add("a", "c", "control")).toBe(true);
    expect(add("a", "b", "data")).toBe(true);
    expect(add("a", "c", "data")).toBe(true);
    expect(add("a", "b", "control")).toBe(true);
    expect(edges()).toEqual([
      { from: "a", to: "c", kind: "data" },
      { from: "a", to: "b", kind: "data" },
    ]);
  });
});
