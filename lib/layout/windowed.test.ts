import { describe, expect, test } from "vitest";
import { laneLayout } from "./lanes";
import {
  BLOCK_ROWS,
  blocksFor,
  clampViewport,
  layeredWindow,
  minZoom,
  NODE_H,
  overviewDensity,
  ROW_PX,
  rowAtTop,
  rowPoint,
  rowsExtent,
  rowsInView,
  viewAtRow,
  visibleRows,
} from "./windowed";

describe("agent-lane geometry of the graph (any trace size)", () => {
  test("rowPoint and rowsExtent are the lane layout's positions and bounds", () => {
    const nodes = ["A", "B", "A", null, "B"].map((agent, i) => ({ id: `n${i}`, type: "message", agent, label: null, status: null, orderIndex: i }));
    const lanes = laneLayout(nodes);
    const laneOf = new Map(lanes.lanes.map((l, i) => [l.agent, i]));
    for (const n of nodes) expect(rowPoint(n.orderIndex, laneOf.get(n.agent ?? "—")!)).toEqual(lanes.positions.get(n.id));
    expect(rowsExtent(nodes.length, lanes.lanes.length)).toEqual({ width: lanes.width, height: lanes.height });
  });

  test("rowsInView: the rows whose box meets the screen, clipped to the trace", () => {
    // row r spans flow y [40 + 76r, 96 + 76r]; at zoom 1 and y offset -760 the screen shows flow y [760, 1360]
    expect(rowsInView({ x: 0, y: -760, zoom: 1 }, 600, 1000)).toEqual({ first: 9, last: 17 });
    expect(rowsInView({ x: 0, y: 0, zoom: 0.5 }, 600, 5)).toEqual({ first: 0, last: 4 });
    const none = rowsInView({ x: 0, y: -1e6, zoom: 1 }, 600, 10);
    expect(none.last).toBeLessThan(none.first);
    // row 9's bottom edge (96 + 684 = 780) is on screen, row 8's (704) is not
    expect(9 * ROW_PX + 40 + NODE_H).toBeGreaterThan(760);
  });

  test("viewAtRow puts the row at the top edge; full zoom-out puts every row on screen", () => {
    expect(rowAtTop(viewAtRow(123.5, 0.4, 30))).toBeCloseTo(123.5, 9);
    expect(viewAtRow(0, 1, 30).x).toBe(-30);
    const z = minZoom(1_000_000, 800);
    expect(visibleRows(800, z)).toBeCloseTo(1_000_000, 3);
    expect(minZoom(10, 800)).toBe(0.25);
  });

  test("clampViewport: zoom in range, small content stays on screen, large content covers it", () => {
    const screen = { width: 1000, height: 600 };
    const box = { x0: 0, y0: 0, x1: 900, y1: 7680 }; // 3 lanes, 100 rows
    // scrolled above the first row: back to the top edge (below a 24 px header)
    expect(clampViewport({ x: 0, y: 500, zoom: 1 }, box, screen, { min: 0.1, max: 2 }, 24)).toEqual({ x: 0, y: 24, zoom: 1 });
    // scrolled past the last row: the last row at the bottom edge
    expect(clampViewport({ x: 0, y: -99_999, zoom: 1 }, box, screen, { min: 0.1, max: 2 }).y).toBe(600 - 7680);
    // lanes narrower than the screen stay wholly on it
    expect(clampViewport({ x: 400, y: 0, zoom: 1 }, box, screen, { min: 0.1, max: 2 }).x).toBe(100);
    expect(clampViewport({ x: -50, y: 0, zoom: 1 }, box, screen, { min: 0.1, max: 2 }).x).toBe(0);
    expect(clampViewport({ x: 0, y: 0, zoom: 9 }, box, screen, { min: 0.1, max: 2 }).zoom).toBe(2);
    expect(clampViewport({ x: 0, y: 0, zoom: 0.01 }, box, screen, { min: 0.1, max: 2 }).zoom).toBe(0.1);
  });

  test("layeredWindow: the whole trace up to the limit, else the limit's rows around the selection", () => {
    expect(layeredWindow(121, 100, 600)).toEqual({ from: 0, to: 121 });
    expect(layeredWindow(600, 599, 600)).toEqual({ from: 0, to: 600 });
    expect(layeredWindow(6402, 3000, 600)).toEqual({ from: 2700, to: 3300 });
    expect(layeredWindow(6402, 10, 600)).toEqual({ from: 0, to: 600 });
    expect(layeredWindow(6402, 6401, 600)).toEqual({ from: 5802, to: 6402 });
  });

  test("blocksFor: the blocks of the rows on screen plus a margin, nearest first, clipped", () => {
    expect(blocksFor(450, 460, 10_000)).toEqual([2, 1]); // rows 350..560 -> blocks 1 (200-399) and 2 (400-599)
    expect(blocksFor(0, 10, 150)).toEqual([0]);
    expect(blocksFor(9_990, 9_999, 10_000)).toEqual([49]);
    const b = blocksFor(1000, 1400, 1_000_000);
    // rows 900..1500: blocks 4..7, the two around row 1200 first
    expect(b).toEqual([5, 6, 4, 7]);
    expect(BLOCK_ROWS).toBe(200);
  });

  test("overviewDensity: counts and failures per pixel row and lane, one pass", () => {
    // 8 rows: lanes 0,1,0,1,2,2,2,0; row 3 and 6 failed
    const lane = Uint8Array.from([0, 1, 0, 1, 2, 2, 2, 0]);
    const flags = Uint8Array.from([1, 2, 3, 4 | 8, 1, 2, 3 | 8, 6]);
    // 2 rows per pixel row: zoom = 1 / (2 * ROW_PX)
    const d = overviewDensity(lane, flags, 3, { top: 0, zoom: 1 / (2 * ROW_PX) }, 4);
    expect(d.rowsPerPixel).toBeCloseTo(2, 9);
    expect([...d.counts]).toEqual([1, 1, 0, 1, 1, 0, 0, 0, 2, 1, 0, 1]);
    expect([...d.failed]).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
    // zoomed in past one row per pixel: a row marks every pixel row it covers
    const z = overviewDensity(lane, flags, 3, { top: 2, zoom: 2 / ROW_PX }, 4); // 0.5 rows per pixel
    expect([...z.counts]).toEqual([1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0]);
    expect([...z.failed]).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0]); // row 3 (lane 1, failed) covers pixel rows 2 and 3
  });
});
