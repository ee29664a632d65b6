/**
 * Edge windowing on a wide fan-out (issue 10 item 9): one dispatcher -> 2,000 parallel calls ->
 * one join. With the dispatcher on screen, the graph must not draw its 2,000 edges and
 * 2,000 far endpoints; the edges left out are counted on the dispatcher.
 */
import { describe, expect, test } from "vitest";
import { fanOutBundle } from "../bundle";
import { adjacency, centreOn, EDGE_WINDOW, edgesForNodes, laneLayout, nodesInView, type GraphNodeLite } from "./index";

const b = fanOutBundle({ id: "fan" });
const order = new Map(b.order.map((id, i) => [id, i]));
const nodes: GraphNodeLite[] = b.graph.nodes.map((n) => ({ id: n.id, type: n.type, agent: n.agent ?? null, label: n.label ?? null, status: null, orderIndex: order.get(n.id)! }));
const layout = laneLayout(nodes);
const { outgoing, incoming } = adjacency(b.graph.edges);

describe("fanOutBundle", () => {
  test("has 4,003 nodes and 6,001 edges for width 2,000", () => {
    expect(b.graph.nodes).toHaveLength(4003);
    expect(b.graph.edges).toHaveLength(6001);
    expect(outgoing.get("dispatcher")).toHaveLength(2000);
    expect(incoming.get("join")).toHaveLength(2000);
  });
});

describe("edgesForNodes windows edges like nodes", () => {
  const viewAt = (id: string) => {
    const p = layout.positions.get(id)!;
    return centreOn({ x: p.x + layout.nodeWidth / 2, y: p.y + layout.nodeHeight / 2 }, 1, 1200, 800);
  };
  const windowAt = (id: string) => {
    const v = viewAt(id);
    const visible = nodesInView(layout, v, 1200, 800);
    const centre = { x: (600 - v.x) / v.zoom, y: (400 - v.y) / v.zoom };
    return { visible, r: edgesForNodes(visible, b.graph.edges, outgoing, incoming, { positions: layout.positions, centre }) };
  };

  test("with the dispatcher on screen: few edges, few far nodes, the rest counted on the dispatcher", () => {
    const { visible, r } = windowAt("dispatcher");
    expect(visible).toContain("dispatcher");
    expect(visible.length).toBeLessThan(40);
    const rendered = visible.length + r.extraNodeIds.length;
    expect(rendered).toBeLessThan(visible.length + visible.length * EDGE_WINDOW.maxFarPerNode + 1);
    expect(r.extraNodeIds.length).toBeLessThanOrEqual(visible.length * EDGE_WINDOW.maxFarPerNode);
    expect(r.edgeIdx.length).toBeLessThan(300);
    const drawnFromDispatcher = r.edgeIdx.filter((i) => b.graph.edges[i].from === "dispatcher").length;
    expect(r.hidden.get("dispatcher")).toEqual({ out: 2000 - drawnFromDispatcher, in: 0 });
    // every dispatcher edge is either drawn or counted
    expect(drawnFromDispatcher + r.hidden.get("dispatcher")!.out).toBe(2000);
    // the kept far ends are the calls nearest the screen (the first calls in the order)
    const farCalls = r.extraNodeIds.filter((id) => id.startsWith("call_")).sort();
    expect(farCalls.length).toBeGreaterThan(0);
    for (const id of farCalls) expect(Number(id.slice(5))).toBeLessThan(100);
  });

  test("with the join on screen the 2,000 in-edges are windowed the same way", () => {
    const { r } = windowAt("join");
    expect(r.edgeIdx.length).toBeLessThan(300);
    const h = r.hidden.get("join")!;
    const drawn = r.edgeIdx.filter((i) => b.graph.edges[i].to === "join").length;
    expect(h.in + drawn).toBe(2000);
    expect(h.in).toBeGreaterThan(1900);
  });

  test("the total cap holds even when every node is on screen", () => {
    const all = b.graph.nodes.map((n) => n.id);
    const r = edgesForNodes(all, b.graph.edges, outgoing, incoming, { maxEdges: 1000 });
    expect(r.edgeIdx).toHaveLength(1000);
    expect(r.extraNodeIds).toEqual([]);
    let hiddenTotal = 0;
    for (const h of r.hidden.values()) hiddenTotal += h.out + h.in;
    expect(hiddenTotal).toBe(6001 - 1000);
  });

  test("a sparse view is unchanged: every edge of a rendered node is drawn", () => {
    const r = edgesForNodes(["call_0005"], b.graph.edges, outgoing, incoming);
    expect(r.edgeIdx.map((i) => b.graph.edges[i])).toEqual([
      { from: "dispatcher", to: "call_0005", kind: "data" },
      { from: "call_0005", to: "result_0005", kind: "data" },
    ]);
    expect(r.extraNodeIds.sort()).toEqual(["dispatcher", "result_0005"]);
    expect(r.hidden.size).toBe(0);
  });
});
