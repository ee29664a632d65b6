import { readFileSync } from "node:fs";
import path from "node:path";
import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, test } from "vitest";
import { parseJsonText, syntheticBundle, type ReplayBundle } from "../bundle";
import { adjacency, centreOn, edgesForNodes, elkInput, elkResult, laneLayout, nodesInView, type GraphNodeLite } from "./index";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");

function lite(b: ReplayBundle): { nodes: GraphNodeLite[]; edges: ReplayBundle["graph"]["edges"] } {
  const pos = new Map(b.order.map((id, i) => [id, i]));
  return {
    nodes: b.graph.nodes.map((n) => ({ id: n.id, type: n.type, agent: n.agent ?? null, label: n.label ?? null, status: n.status ?? null, orderIndex: pos.get(n.id)! })),
    edges: b.graph.edges,
  };
}

const gold = lite(parseJsonText(readFileSync(path.join(SHARED, "fixtures/bundles/gold-c2.bundle.json"), "utf8")) as ReplayBundle);
const big = lite(syntheticBundle({ id: "t/big", turns: 1000, taskNode: false }));

describe("laneLayout", () => {
  test("every edge points down (observed order is a linear extension)", () => {
    for (const g of [gold, big]) {
      const l = laneLayout(g.nodes);
      for (const e of g.edges) expect(l.positions.get(e.from)!.y).toBeLessThan(l.positions.get(e.to)!.y);
    }
  });
  test("one lane per agent, in order of first appearance, and one row per node", () => {
    const l = laneLayout(gold.nodes, { rowGap: 100 });
    const firstAgents = [...new Set([...gold.nodes].sort((a, b) => a.orderIndex - b.orderIndex).map((n) => n.agent || "—"))];
    expect(l.lanes.map((x) => x.agent)).toEqual(firstAgents);
    const ys = [...l.positions.values()].map((p) => p.y);
    expect(new Set(ys).size).toBe(gold.nodes.length);
    expect(l.height).toBe(gold.nodes.length * 100 + 80);
  });
  test("4,001 nodes lay out with unique positions", () => {
    const l = laneLayout(big.nodes);
    expect(l.positions.size).toBe(4001);
    expect(l.byY).toHaveLength(4001);
  });
});

describe("nodesInView", () => {
  const l = laneLayout(big.nodes, { rowGap: 76, nodeHeight: 56 });
  test("returns only nodes near the viewport, from the right rows", () => {
    const v = centreOn(l.positions.get(l.byY[2000])!, 1, 1200, 800);
    const ids = nodesInView(l, v, 1200, 800);
    expect(ids).toContain(l.byY[2000]);
    expect(ids.length).toBeGreaterThan(5);
    expect(ids.length).toBeLessThan(40);
    expect(ids).not.toContain(l.byY[0]);
    expect(ids).not.toContain(l.byY[4000]);
  });
  test("caps the count at the limit", () => {
    const ids = nodesInView(l, { x: 0, y: 0, zoom: 0.001 }, 1200, 800, 300);
    expect(ids).toHaveLength(300);
  });
  test("edges of rendered nodes bring their far endpoints", () => {
    const { outgoing, incoming } = adjacency(big.edges);
    const one = [l.byY[10]];
    const r = edgesForNodes(one, big.edges, outgoing, incoming);
    const expected = big.edges.map((e, i) => ({ e, i })).filter(({ e }) => e.from === one[0] || e.to === one[0]).map(({ i }) => i);
    expect(r.edgeIdx).toEqual(expected);
    expect(r.extraNodeIds.length).toBe(expected.length);
  });
});

describe("ELK layered layout", () => {
  test("lays out a gold case top-down with every edge pointing down", async () => {
    const elk = new ELK();
    const out = await elk.layout(elkInput(gold.nodes, gold.edges));
    const r = elkResult(out, 0);
    expect(r.positions.size).toBe(gold.nodes.length);
    for (const e of gold.edges) expect(r.positions.get(e.from)!.y).toBeLessThan(r.positions.get(e.to)!.y);
  });
});

describe("compact wire form of the graph", () => {
  test("round-trips a 4,001-node trace exactly and is much smaller", async () => {
    const { compactGraph, expandGraph } = await import("./compact");
    const c = compactGraph(big.nodes, big.edges);
    const back = expandGraph(JSON.parse(JSON.stringify(c)));
    expect(back.nodes).toEqual([...big.nodes].sort((a, b) => a.orderIndex - b.orderIndex));
    expect(back.edges).toEqual(big.edges.map((e) => ({ from: e.from, to: e.to, kind: e.kind })));
    const plain = JSON.stringify({ nodes: big.nodes, edges: big.edges }).length;
    expect(JSON.stringify(c).length).toBeLessThan(plain / 2);
  });
  test("an edge to an unknown node is an error naming it", async () => {
    const { compactGraph } = await import("./compact");
    expect(() => compactGraph(gold.nodes, [{ from: "nope", to: gold.nodes[0].id, kind: "data" }])).toThrow(/nope/);
  });
});
