import { describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { FIT_MIN_ZOOM, fitView, laneHeaderBoxes, laneLayout, LANE_HEADER_MIN_PX, type GraphNodeLite } from "./index";

const AGENTS = ["Orchestrator", "WebSurfer", "Coder", "FileSurfer", "ComputerTerminal", "DocumentRetrievalSpecialist"];

function nodes121(): GraphNodeLite[] {
  const b = syntheticBundle({ id: "t/121", turns: 30, taskNode: false, agents: AGENTS });
  const pos = new Map(b.order.map((id, i) => [id, i]));
  return b.graph.nodes.map((n) => ({ id: n.id, type: n.type, agent: n.agent ?? null, label: n.label ?? null, status: n.status ?? null, orderIndex: pos.get(n.id)! }));
}

describe("fitView", () => {
  const nodes = nodes121();
  const layout = laneLayout(nodes);

  test("the case of issue 11: 121 nodes in 6 lanes", () => {
    expect(nodes).toHaveLength(121);
    expect(layout.lanes).toHaveLength(6);
    // lanes at x = 0, 300, ..., 1500, each 280 wide: content x-range [0, 1780]; 121 rows · 76 + 80 = 9,276 high
    expect(layout.lanes.at(-1)).toMatchObject({ x: 1500, width: 280 });
    expect(layout.height).toBe(9276);
  });

  test("a 900 × 700 pane: the lanes' width is fitted (never the unreadable whole-graph zoom) and the top is shown", () => {
    const f = fitView(layout, 900, 700, { topInset: 24 });
    // whole graph would need 676 / 9,276 = 0.073: below the floor, so the width of the lanes is fitted
    expect(f.mode).toBe("lanes");
    expect(f.viewport.zoom).toBeCloseTo(900 / 1780, 6);
    expect(f.viewport.zoom).toBeGreaterThanOrEqual(FIT_MIN_ZOOM);
    // x-range of the lanes maps exactly onto the pane
    expect(0 * f.viewport.zoom + f.viewport.x).toBeCloseTo(0, 6);
    expect(1780 * f.viewport.zoom + f.viewport.x).toBeCloseTo(900, 6);
    // the top of the observed order, just below the lane headers
    expect(f.viewport.y).toBe(24);
  });

  test("a 510 × 790 pane (graph pane at 1280 × 900): zoom = floor, lanes scroll, the selected node is shown", () => {
    const top = fitView(layout, 510, 790, { topInset: 24 });
    expect(top.mode).toBe("floor");
    expect(top.viewport).toEqual({ zoom: 0.5, x: 0, y: 24 }); // first lane at the left edge, first row at the top
    const last = layout.byY.at(-1)!; // final_result, in lane 6 (the 30th turn's agent) at the bottom
    const p = layout.positions.get(last)!;
    const f = fitView(layout, 510, 790, { topInset: 24, selectedId: last });
    expect(f.viewport.zoom).toBe(0.5);
    const sx = p.x * 0.5 + f.viewport.x;
    const sy = p.y * 0.5 + f.viewport.y;
    expect(sx).toBeGreaterThanOrEqual(0);
    expect(sx + layout.nodeWidth * 0.5).toBeLessThanOrEqual(510);
    expect(sy).toBeGreaterThanOrEqual(24);
    expect(sy + layout.nodeHeight * 0.5).toBeLessThanOrEqual(790);
    // no empty space below the last row: the bottom of the content is at the bottom of the pane
    expect(layout.height * 0.5 + f.viewport.y).toBeCloseTo(790, 6);
    // nor right of the last lane
    expect(1780 * 0.5 + f.viewport.x).toBeCloseTo(510, 6);
  });

  test("a small graph is fitted whole (capped at 1.2) and centred", () => {
    const small = laneLayout(nodes.filter((n) => n.orderIndex < 5));
    const f = fitView(small, 1000, 800);
    expect(f.mode).toBe("all");
    // 5 lanes? no: the first 5 nodes are turn 0 (one agent) + turn 1's first node: 2 lanes [0, 580], height 5 · 76 + 80 = 460
    expect(small.lanes).toHaveLength(2);
    expect(f.viewport.zoom).toBeCloseTo(Math.min(1.2, 1000 / 580, 800 / 460), 6);
    expect(580 * f.viewport.zoom + 2 * f.viewport.x).toBeCloseTo(1000, 6);
  });

  test("a pane of no size is refused with a clear error", () => {
    expect(() => fitView(layout, 0, 700)).toThrow(/screen must be positive, got 0 × 700/);
  });
});

describe("laneHeaderBoxes", () => {
  const layout = laneLayout(nodes121());
  test("at the fit floor each header is as wide as its lane (140 px) and they sit on one row", () => {
    const { boxes, rows } = laneHeaderBoxes(layout.lanes, { x: 0, y: 0, zoom: 0.5 });
    expect(rows).toBe(1);
    expect(boxes.map((b) => [b.left, b.width])).toEqual([0, 150, 300, 450, 600, 750].map((l) => [l, 140]));
  });
  test("zoomed far out (0.1: lanes 28 px) headers keep the minimum width and stack in rows instead of being cut", () => {
    const { boxes, rows } = laneHeaderBoxes(layout.lanes, { x: 10, y: 0, zoom: 0.1 });
    expect(boxes.every((b) => b.width === LANE_HEADER_MIN_PX)).toBe(true);
    // lanes 30 px apart, headers 96 + 4 px: 4 rows (lane i on row i mod 4)
    expect(rows).toBe(4);
    expect(boxes.map((b) => b.row)).toEqual([0, 1, 2, 3, 0, 1]);
    for (const a of boxes)
      for (const b of boxes) if (a !== b && a.row === b.row) expect(a.left + a.width <= b.left || b.left + b.width <= a.left).toBe(true);
  });
});
