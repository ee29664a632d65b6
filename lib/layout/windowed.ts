/**
 * Geometry of the inspector's graph in agent lanes, for a trace of any size
 * (components/graph/trace-graph.tsx). Rows are positions in the observed order O (y = ROW_Y0 +
 * row · ROW_PX, exact for the dependency direction as in lanes.ts, whose numbers these are),
 * columns are agent lanes (x = LANE_X0 + lane · LANE_PX). Positions are flow px at zoom 1; a
 * {@link Viewport} maps them to the screen (screen = flow · zoom + offset). The browser holds
 * only blocks of BLOCK_ROWS rows around the viewport (fetched from /graph/window; a small trace is
 * one window holding every block) and, for the zoomed-out overview of a trace not all in the
 * browser, a compact index of 2 bytes per node (lane, flags).
 */
import type { Viewport } from "./viewport";

/** Row pitch, lane pitch and node box at zoom 1, px (the lane layout's values, lanes.ts). */
export const ROW_PX = 76;
export const LANE_PX = 300;
export const NODE_W = 240;
export const NODE_H = 56;
/** Flow y of row 0's top edge and flow x of lane 0's node edge (lanes.ts). */
export const ROW_Y0 = 40;
export const LANE_X0 = 20;
/** Rows per fetched block. */
export const BLOCK_ROWS = 200;
/** Below this zoom a trace not wholly in the browser is drawn as the overview (one mark per pixel row), not as nodes. */
export const DETAIL_MIN_ZOOM = 0.25;
/** Zoom range of a graph whose every node can be drawn (a whole trace, or the layered window). */
export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 2;

/** Top-left of the node box at `row` in lane `lane` (flow px). */
export function rowPoint(row: number, lane: number): { x: number; y: number } {
  return { x: LANE_X0 + lane * LANE_PX, y: ROW_Y0 + row * ROW_PX };
}

/** Flow extent of `count` rows in `lanes` lanes (the lane layout's width and height). */
export function rowsExtent(count: number, lanes: number): { width: number; height: number } {
  return { width: Math.max(1, lanes) * LANE_PX, height: count * ROW_PX + 80 };
}

/**
 * The rows whose node box meets a screen of `height` px at viewport `v`, clipped to [0, count).
 * @returns first and last row (last < first when none is on screen)
 */
export function rowsInView(v: Viewport, height: number, count: number): { first: number; last: number } {
  const y0 = -v.y / v.zoom;
  const y1 = (height - v.y) / v.zoom;
  const first = Math.max(0, Math.ceil((y0 - ROW_Y0 - NODE_H) / ROW_PX));
  const last = Math.min(count - 1, Math.floor((y1 - ROW_Y0) / ROW_PX));
  return { first, last };
}

/** The (fractional) row at the top edge of the screen: what the overview starts from. */
export function rowAtTop(v: Viewport): number {
  return (-v.y / v.zoom - ROW_Y0) / ROW_PX;
}

/** Rows visible on a screen of `height` px at `zoom`. */
export function visibleRows(height: number, zoom: number): number {
  return height / (ROW_PX * zoom);
}

/** The smallest zoom of a trace drawn in windows: all `count` rows on `height` px (the full zoom-out). */
export function minZoom(count: number, height: number): number {
  return Math.min(DETAIL_MIN_ZOOM, height / (Math.max(1, count) * ROW_PX));
}

/** The viewport that puts (fractional) row `top` at the screen's top edge, `left` screen px scrolled into the lanes. */
export function viewAtRow(top: number, zoom: number, left = 0): Viewport {
  return { x: -left, y: -(ROW_Y0 + top * ROW_PX) * zoom, zoom };
}

/** Content box (flow px) a viewport is kept on, and screen px left free at the top (lane headers). */
export interface ClampBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Keep a viewport on its content: zoom within [minZoom, maxZoom]; per axis, content smaller than
 * the screen stays wholly on it, larger content always covers the screen (no empty space beyond
 * its first or last row, lane or layer).
 * @param topInset screen px at the top covered by the lane headers (content may start below them)
 */
export function clampViewport(v: Viewport, box: ClampBox, screen: { width: number; height: number }, zoomRange: { min: number; max: number }, topInset = 0): Viewport {
  const zoom = Math.max(zoomRange.min, Math.min(zoomRange.max, v.zoom));
  const axis = (off: number, lo: number, hi: number, len: number, start: number) => {
    const a = len - hi * zoom; // content end at the screen end
    const b = start - lo * zoom; // content start at the screen start
    return (a > b ? Math.min(a, Math.max(b, off)) : Math.min(b, Math.max(a, off))) + 0; // + 0: no -0
  };
  return { zoom, x: axis(v.x, box.x0, box.x1, screen.width, 0), y: axis(v.y, box.y0, box.y1, screen.height, topInset) };
}

/**
 * The rows the layered (ELK) layout is computed for: the whole trace when it has at most `max`
 * rows, else `max` rows centred on `centre` (the selected row) and clipped to the trace.
 * @returns rows [from, to)
 */
export function layeredWindow(count: number, centre: number, max: number): { from: number; to: number } {
  if (count <= max) return { from: 0, to: count };
  const from = Math.max(0, Math.min(count - max, Math.round(centre - max / 2)));
  return { from, to: from + max };
}

/**
 * Block numbers covering rows [first, last] plus `margin` rows on each side, nearest first.
 * @returns block indices b (rows b·BLOCK_ROWS … (b+1)·BLOCK_ROWS − 1), clipped to [0, count)
 */
export function blocksFor(first: number, last: number, count: number, margin = BLOCK_ROWS / 2): number[] {
  const lo = Math.max(0, Math.floor((first - margin) / BLOCK_ROWS));
  const hi = Math.min(Math.ceil(count / BLOCK_ROWS) - 1, Math.floor((last + margin) / BLOCK_ROWS));
  const mid = (first + last) / 2 / BLOCK_ROWS;
  const out: number[] = [];
  for (let b = lo; b <= hi; b++) out.push(b);
  return out.sort((a, b) => Math.abs(a + 0.5 - mid) - Math.abs(b + 0.5 - mid));
}

/**
 * Per pixel row of the overview and per lane: how many nodes fall there and how many of them
 * failed. Pixel row y covers rows [top + y·rpp, top + (y+1)·rpp) where rpp = 1 / (ROW_PX·zoom).
 * O(rows on screen), so a full zoom-out of a million nodes is one pass over the index.
 * @param lane lane index per row (the index's lane bytes); 255 = a lane beyond the first 255
 * @param flags flags per row (bit 3 = failed)
 * @returns counts and failed counts, `height × lanes` each (row-major), and rows per pixel
 */
export function overviewDensity(
  lane: Uint8Array,
  flags: Uint8Array,
  lanes: number,
  view: { top: number; zoom: number },
  height: number,
): { counts: Uint32Array; failed: Uint32Array; rowsPerPixel: number } {
  const L = Math.max(1, Math.min(lanes, 256));
  const h = Math.max(0, Math.floor(height));
  const counts = new Uint32Array(h * L);
  const failed = new Uint32Array(h * L);
  const rpp = 1 / (ROW_PX * view.zoom);
  const first = Math.max(0, Math.floor(view.top));
  const last = Math.min(lane.length, Math.ceil(view.top + h * rpp));
  for (let r = first; r < last; r++) {
    const y = Math.floor((r - view.top) / rpp);
    if (y < 0 || y >= h) continue;
    const l = Math.min(lane[r], L - 1);
    counts[y * L + l]++;
    if (flags[r] & 8) failed[y * L + l]++;
  }
  // A node taller than a pixel (rpp < 1) marks every pixel row it covers.
  if (rpp < 1) {
    for (let r = first; r < last; r++) {
      const y0 = Math.floor((r - view.top) / rpp);
      const y1 = Math.min(h, Math.ceil((r + 1 - view.top) / rpp));
      const l = Math.min(lane[r], L - 1);
      for (let y = Math.max(0, y0 + 1); y < y1; y++) {
        counts[y * L + l]++;
        if (flags[r] & 8) failed[y * L + l]++;
      }
    }
  }
  return { counts, failed, rowsPerPixel: rpp };
}
