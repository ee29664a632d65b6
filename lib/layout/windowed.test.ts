import { describe, expect, test } from "vitest";
import { BLOCK_ROWS, blocksFor, centreRow, clampTop, minZoom, overviewDensity, ROW_PX, visibleRows } from "./windowed";

describe("windowed inspector geometry", () => {
  test("full zoom-out puts every row on screen; clamp and centre stay inside the trace", () => {
    const z = minZoom(1_000_000, 800);
    expect(visibleRows(800, z)).toBeCloseTo(1_000_000, 3);
    expect(clampTop(-5, 1000, 800, 1)).toBe(0);
    expect(clampTop(5000, 1000, 760, 1)).toBe(990); // 10 rows of 76 px on 760 px
    expect(centreRow(500, 1000, 760, 1)).toBeCloseTo(495.5, 6);
    expect(centreRow(2, 1000, 760, 1)).toBe(0);
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
