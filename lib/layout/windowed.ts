/**
 * Geometry of the windowed inspector for large traces (issue 16 item 4; components/graph/
 * big-graph.tsx). Rows are positions in the observed order O (y = row · ROW_PX · zoom, exact for
 * the dependency direction as in lanes.ts), columns are agent lanes. The browser holds only
 * blocks of BLOCK_ROWS rows around the viewport (fetched from /graph/window) and, for the
 * zoomed-out overview, a compact index of 2 bytes per node (lane, flags).
 */

/** Row pitch and node box at zoom 1, px (the lane layout's values). */
export const ROW_PX = 76;
export const LANE_PX = 300;
export const NODE_W = 240;
export const NODE_H = 56;
/** Rows per fetched block. */
export const BLOCK_ROWS = 200;
/** Below this zoom the graph is drawn as the overview (one mark per pixel row), not as nodes. */
export const DETAIL_MIN_ZOOM = 0.25;
export const MAX_ZOOM = 1.5;

/** The view: first row at the top edge (fractional), zoom, horizontal scroll (px). */
export interface RowView {
  top: number;
  zoom: number;
  left: number;
}

/** Rows visible on a screen of `height` px at `zoom`. */
export function visibleRows(height: number, zoom: number): number {
  return height / (ROW_PX * zoom);
}

/** The smallest zoom: all `count` rows on `height` px (the full zoom-out). */
export function minZoom(count: number, height: number): number {
  return Math.min(DETAIL_MIN_ZOOM, height / (Math.max(1, count) * ROW_PX));
}

/** Keep `top` within [0, count - visible rows] (0 when everything fits). */
export function clampTop(top: number, count: number, height: number, zoom: number): number {
  const rows = visibleRows(height, zoom);
  return Math.max(0, Math.min(top, Math.max(0, count - rows)));
}

/** The view with `row` in the middle of the screen. */
export function centreRow(row: number, count: number, height: number, zoom: number): number {
  return clampTop(row + 0.5 - visibleRows(height, zoom) / 2, count, height, zoom);
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
