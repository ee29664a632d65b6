import { describe, expect, test } from "vitest";
import { importOtel } from "../importers";
import { compactGraph, expandGraph } from "./compact";
import { importWarningCounts, nodeImportWarningsOf } from "./warnings";

// Issue 20 item 11: import warnings reach the node (graph, timeline) and the case header.
const TRACE = "0af7651916cd43dd8448eb211c80319c";
const T0 = 1_700_000_000_000_000_000n;
const span = (id: string, parent: string, start: bigint, end: bigint | null) => ({
  traceId: TRACE,
  spanId: id,
  parentSpanId: parent,
  name: `s${id}`,
  startTimeUnixNano: String(start),
  ...(end === null ? {} : { endTimeUnixNano: String(end) }),
});
function imported(spans: object[]) {
  const r = importOtel(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ scope: { name: "t" }, spans }] }] }), { fileName: "t.json" });
  expect(r.failures).toEqual([]);
  return r.cases[0]!;
}

describe("import warnings on nodes and in the header", () => {
  const c = imported([
    span("a000000000000001", "", T0, T0 + 100n),
    span("a000000000000002", "a000000000000001", T0 + 50n, T0 + 10n), // clock skew
    span("a000000000000003", "a000000000000001", T0 + 60n, null), // not ended
    span("a000000000000004", "ffffffffffffffff", T0 + 70n, T0 + 80n), // parent not in trace
  ]);

  test("each marked node's warnings, as the graph and the timeline receive them (compact and back)", () => {
    const lite = c.bundle.order.map((id, i) => {
      const n = c.bundle.graph.nodes.find((x) => x.id === id)!;
      const w = nodeImportWarningsOf(n.content);
      return { id, type: n.type, agent: n.agent ?? null, label: n.label ?? null, status: n.status ?? null, orderIndex: i, ...(w ? { warnings: w } : {}) };
    });
    const bySpan = (sid: string) => lite.find((n) => (c.bundle.graph.nodes.find((x) => x.id === n.id)!.content as { spanId?: string }).spanId === sid)!;
    expect(bySpan("a000000000000001").warnings).toBeUndefined();
    expect(bySpan("a000000000000002").warnings).toEqual([expect.stringMatching(/^clock skew: end time \d+ before start time \d+; drawn zero-width$/)]);
    expect(bySpan("a000000000000003").warnings).toEqual(["not ended"]);
    expect(bySpan("a000000000000004").warnings).toEqual(["parent not in trace: ffffffffffffffff"]);
    const back = expandGraph(compactGraph(lite, [])).nodes;
    expect(back.map((n) => n.warnings ?? null)).toEqual(lite.map((n) => n.warnings ?? null));
    expect(compactGraph(lite.map(({ warnings: _w, ...n }) => n), []).warnings).toBeUndefined();
  });

  test("the header counts per kind", () => {
    expect(importWarningCounts(c.source)).toEqual({ counts: [["clock-skew", 1], ["not-ended", 1], ["parent-not-in-trace", 1]], depth: [], total: 3 });
    expect(importWarningCounts({})).toEqual({ counts: [], depth: [], total: 0 });
    expect(nodeImportWarningsOf({ importWarnings: [] })).toBeNull();
    expect(nodeImportWarningsOf("text")).toBeNull();
  });

  test("a 6,000-deep chain reports its depth in the header and on its deepest node", () => {
    const spans = Array.from({ length: 6000 }, (_, i) => span((i + 1).toString(16).padStart(16, "0"), i === 0 ? "" : i.toString(16).padStart(16, "0"), T0 + BigInt(i), T0 + 10_000_000n - BigInt(i)));
    const deep = imported(spans);
    expect(importWarningCounts(deep.source)).toEqual({ counts: [["deep-span-tree", 1]], depth: ["span tree is 6,000 levels deep (deepest span 0000000000001770); more than 100 levels"], total: 1 });
    const marked = deep.bundle.graph.nodes.filter((n) => nodeImportWarningsOf(n.content));
    expect(marked.map((n) => nodeImportWarningsOf(n.content))).toEqual([["span tree depth 6,000: deepest span"]]);
  }, 60_000);
});
