import { describe, expect, test } from "vitest";
import { fanOutBundle, syntheticBundle } from "../bundle";
import { elkResult } from "./elk";
import { graphScene, SCENE_MARGIN_PX, type LanesPlacement, type LayeredPlacement } from "./scene";
import type { GraphNodeLite, WindowEdge } from "./types";
import { rowPoint } from "./windowed";

/** A bundle as the inspector holds it: nodes in observed order, edges with both ends' rows and agents. */
function held(b: { graph: { nodes: Array<{ id: string; type: string; agent?: string | null; label?: string | null; status?: string | null }>; edges: Array<{ from: string; to: string; kind: string }> }; order: string[] }) {
  const byId = new Map(b.graph.nodes.map((n) => [n.id, n]));
  const nodes: GraphNodeLite[] = b.order.map((id, i) => {
    const n = byId.get(id)!;
    return { id, type: n.type, agent: n.agent ?? null, label: n.label ?? null, status: n.status ?? null, orderIndex: i };
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  const edges: WindowEdge[] = b.graph.edges.map((e, idx) => ({ idx, from: e.from, to: e.to, kind: e.kind, fromIndex: at.get(e.from)!.orderIndex, toIndex: at.get(e.to)!.orderIndex, fromAgent: at.get(e.from)!.agent, toAgent: at.get(e.to)!.agent }));
  const lanes = [...new Set(nodes.map((n) => n.agent))];
  const placement: LanesPlacement = {
    kind: "lanes",
    count: nodes.length,
    laneOf: (a) => lanes.indexOf(a),
    getRow: (r) => nodes[r],
    edgesIn: (first, last) => edges.filter((e) => (e.fromIndex >= first && e.fromIndex <= last) || (e.toIndex >= first && e.toIndex <= last)),
  };
  return { nodes, edges, lanes, placement };
}

const screen = { width: 1000, height: 800 };

describe("graphScene: what the graph draws for a viewport", () => {
  test("lanes: the rows on screen at their lane positions, and edges between them bottom-centre to top-centre", () => {
    const b = syntheticBundle({ id: "t/scene", turns: 50, taskNode: false });
    const { nodes, lanes, placement } = held(b);
    // rows 100.. at zoom 1: flow y from 40 + 76·100 = 7640
    const s = graphScene(placement, { x: 0, y: -7640, zoom: 1 }, screen);
    expect(s.rows).toEqual({ first: 100, last: 110 }); // 800 px / 76 = 10.5 rows; row 99's bottom (7620) is above
    // drawn: the nodes within SCENE_MARGIN_PX (200) around the screen, flow y [7440, 8640]
    const drawnRows = s.nodes.map((n) => n.node.orderIndex);
    const m = SCENE_MARGIN_PX;
    const inMargin = nodes.filter((n) => {
      const p = rowPoint(n.orderIndex, lanes.indexOf(n.agent));
      return p.y + 56 >= 7640 - m && p.y <= 7640 + 800 + m && p.x + 240 >= -m && p.x <= 1000 + m;
    });
    expect(drawnRows).toEqual(inMargin.map((n) => n.orderIndex));
    expect(drawnRows[0]).toBe(97); // row 97 spans [7412, 7468]: its bottom is within 200 px above the screen; row 96's (7392) is not
    expect(drawnRows.at(-1)).toBe(113); // row 113's top 8628 is within 200 px below the screen (8640); row 114's (8704) is not
    for (const sn of s.nodes) expect({ x: sn.x, y: sn.y }).toEqual(rowPoint(sn.node.orderIndex, lanes.indexOf(sn.node.agent)));
    expect(s.edges.length).toBeGreaterThan(0);
    for (const e of s.edges) {
      expect(e.y1).toBe(rowPoint(e.edge.fromIndex, 0).y + 56);
      expect(e.y2).toBe(rowPoint(e.edge.toIndex, 0).y);
      expect(e.x1).toBe(rowPoint(0, lanes.indexOf(e.edge.fromAgent)).x + 120);
    }
  });

  test("lanes: a 2,000-way fan-out draws a dozen of the dispatcher's edges and counts the rest on it", () => {
    const b = fanOutBundle({ id: "t/fan" });
    const { nodes, edges, placement } = held(b);
    const d = nodes.find((n) => n.id === "dispatcher")!;
    const out = edges.filter((e) => e.from === "dispatcher").length;
    const inn = edges.filter((e) => e.to === "dispatcher").length;
    const s = graphScene(placement, { x: 0, y: -(rowPoint(d.orderIndex, 0).y - 100), zoom: 1 }, screen);
    expect(s.nodes.some((n) => n.node.id === "dispatcher")).toBe(true);
    const drawnOut = s.edges.filter((e) => e.edge.from === "dispatcher").length;
    const drawnIn = s.edges.filter((e) => e.edge.to === "dispatcher").length;
    expect(out).toBeGreaterThan(1900);
    expect(s.edges.length).toBeLessThan(600);
    // every edge of the dispatcher is either drawn or counted
    expect(drawnOut + s.hidden.get("dispatcher")!.out).toBe(out);
    expect(drawnIn + (s.hidden.get("dispatcher")?.in ?? 0)).toBe(inn);
    expect(s.hidden.get("dispatcher")!.out).toBeGreaterThan(1900);
  });

  test("layered: the window's nodes at their ELK positions; edges leaving the window counted, not drawn", () => {
    const b = syntheticBundle({ id: "t/scene2", turns: 10, taskNode: false });
    const { nodes, edges } = held(b);
    const win = nodes.slice(10, 20);
    const ids = new Set(win.map((n) => n.id));
    // a column layout: node i of the window at y = 100 i
    const layout = elkResult({ children: win.map((n, i) => ({ id: n.id, x: 0, y: 100 * i })), width: 240, height: 1000 }, 1);
    const inside = edges.filter((e) => ids.has(e.from) && ids.has(e.to));
    const outside = new Map<string, { out: number; in: number }>();
    for (const e of edges) {
      if (ids.has(e.from) && !ids.has(e.to)) outside.set(e.from, { out: (outside.get(e.from)?.out ?? 0) + 1, in: outside.get(e.from)?.in ?? 0 });
      if (ids.has(e.to) && !ids.has(e.from)) outside.set(e.to, { out: outside.get(e.to)?.out ?? 0, in: (outside.get(e.to)?.in ?? 0) + 1 });
    }
    const placement: LayeredPlacement = { kind: "layered", layout, nodes: new Map(win.map((n) => [n.id, n])), edges: inside, outside };
    const s = graphScene(placement, { x: 0, y: 0, zoom: 1 }, screen);
    // flow y 0..800 plus the 200 px margin: nodes 0..9 of the window (y = 0..900) are all within 1000
    expect(s.nodes.map((n) => n.node.id)).toEqual(win.map((n) => n.id));
    expect(s.nodes[3]).toMatchObject({ x: 0, y: 300 });
    expect(s.rows).toEqual({ first: 10, last: 19 });
    expect(s.edges.map((e) => e.edge.idx).sort((x, y) => x - y)).toEqual(inside.map((e) => e.idx).sort((x, y) => x - y));
    const first = win[0].id;
    expect(s.hidden.get(first)).toEqual(outside.get(first));
    expect(outside.get(first)!.in).toBeGreaterThan(0);
  });
});
