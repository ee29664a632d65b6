/**
 * "Fit" for the event-dependency graph with a readability floor, and the screen boxes of the
 * agent-lane headers (pure, framework-free).
 *
 * Fitting a long trace whole makes it an unreadable strip (issue 11 item 6: 121 nodes in a 510 px
 * pane gave zoom 0.28, 11 px node labels at 3 px and lane names cut to one letter). So Fit never
 * goes below {@link FIT_MIN_ZOOM}: when the whole graph fits at or above it, it is fitted whole;
 * else the lanes' width is fitted (the observed order then scrolls vertically, the view showing
 * the top, or the selected node); and when even the lanes do not fit at the floor, the floor is
 * used and the view shows the selected node's lane (or the first lane).
 */
import type { LayoutResult } from "./types";
import type { Viewport } from "./viewport";

/** Smallest zoom Fit uses: node labels (11 px) stay ≥ 5.5 px and lane headers ≥ 140 px wide. */
export const FIT_MIN_ZOOM = 0.5;
/** Largest zoom Fit uses (small graphs are not blown up beyond this). */
export const FIT_MAX_ZOOM = 1.2;
/** Lane headers are never narrower than this on screen, px (a name is cut with an ellipsis, never to one letter). */
export const LANE_HEADER_MIN_PX = 96;
/** Height of one row of lane headers, px. */
export const LANE_HEADER_ROW_PX = 20;

export interface FitOptions {
  /** Node to keep in view when the graph does not fit whole (default: the top of the graph). */
  selectedId?: string | null;
  /** Zoom floor (default {@link FIT_MIN_ZOOM}). */
  minZoom?: number;
  /** Zoom ceiling (default {@link FIT_MAX_ZOOM}). */
  maxZoom?: number;
  /** Screen px at the top covered by the lane-header bar (default 0): content starts below it. */
  topInset?: number;
  /** Margin around the content, flow px (default 20). */
  margin?: number;
}

/**
 * How Fit ended: `all` (the whole graph fits at ≥ floor), `lanes` (the width of the lanes is
 * fitted, rows scroll vertically), `floor` (zoom = floor, lanes scroll horizontally too).
 */
export type FitMode = "all" | "lanes" | "floor";

export interface FitResult {
  viewport: Viewport;
  mode: FitMode;
  /** Flow x-range of the content that Fit measured (the lanes' extent, or the layout bounds). */
  content: { x0: number; x1: number; y0: number; y1: number };
}

/**
 * Viewport for "Fit" on a screen of `width` × `height` px.
 * @param layout lane or ELK layout (flow px; lanes give the x extent when present)
 * @returns the viewport (screen = flow · zoom + (x, y)), which case applied, and the content box
 * @throws Error when width or height is not a positive finite number (a pane not laid out yet)
 */
export function fitView(layout: Pick<LayoutResult, "width" | "height" | "nodeWidth" | "nodeHeight" | "positions" | "lanes">, width: number, height: number, opts: FitOptions = {}): FitResult {
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new Error(`fitView: screen must be positive, got ${width} × ${height} px`);
  }
  const floor = opts.minZoom ?? FIT_MIN_ZOOM;
  const ceil = Math.max(floor, opts.maxZoom ?? FIT_MAX_ZOOM);
  const top = Math.max(0, opts.topInset ?? 0);
  const m = opts.margin ?? 20;
  const h = Math.max(1, height - top);
  const laneX0 = layout.lanes.length ? Math.min(...layout.lanes.map((l) => l.x)) : -m;
  const laneX1 = layout.lanes.length ? Math.max(...layout.lanes.map((l) => l.x + l.width)) : Math.max(layout.width, layout.nodeWidth) + m;
  const content = { x0: laneX0, x1: laneX1, y0: 0, y1: Math.max(layout.height, layout.nodeHeight + 40) };
  const cw = content.x1 - content.x0;
  const ch = content.y1 - content.y0;

  const whole = Math.min(ceil, width / cw, h / ch);
  if (whole >= floor) {
    return {
      mode: "all",
      content,
      viewport: { zoom: whole, x: (width - cw * whole) / 2 - content.x0 * whole, y: top + (h - ch * whole) / 2 - content.y0 * whole },
    };
  }
  const byWidth = Math.min(ceil, width / cw);
  const zoom = Math.max(floor, byWidth);
  const p = opts.selectedId ? layout.positions.get(opts.selectedId) : undefined;
  // x: lanes centred when they fit; else the selected node's lane (or the first) in view, no empty space beside the lanes.
  let x: number;
  if (cw * zoom <= width) x = (width - cw * zoom) / 2 - content.x0 * zoom;
  else {
    const want = p ? width / 2 - (p.x + layout.nodeWidth / 2) * zoom : -content.x0 * zoom;
    x = clamp(want, width - content.x1 * zoom, -content.x0 * zoom);
  }
  // y: the top of the observed order, or the selected node centred (never empty space above the first row or below the last).
  const wantY = p ? top + h / 2 - (p.y + layout.nodeHeight / 2) * zoom : top - content.y0 * zoom;
  const y = clamp(wantY, height - content.y1 * zoom, top - content.y0 * zoom);
  return { mode: byWidth >= floor ? "lanes" : "floor", content, viewport: { x, y, zoom } };
}

/** One lane header on screen: `left`/`width` in screen px, `row` 0-based (rows stack when lanes are narrower than the minimum). */
export interface LaneHeaderBox {
  agent: string;
  left: number;
  width: number;
  row: number;
}

/**
 * Screen boxes of the lane headers at viewport `v`: as wide as the lane on screen but never less
 * than `minPx`; when lanes are drawn narrower than that (zoomed far out), headers that would
 * overlap go to the next row instead of being cut. O(lanes · rows).
 * @param lanes lanes of a {@link LayoutResult} (flow px)
 * @returns one box per lane, in lane order, and the number of rows used (≥ 1 when lanes exist)
 */
export function laneHeaderBoxes(lanes: LayoutResult["lanes"], v: Viewport, minPx = LANE_HEADER_MIN_PX, gapPx = 4): { boxes: LaneHeaderBox[]; rows: number } {
  const ends: number[] = []; // right edge of the last header in each row
  const boxes = [...lanes]
    .sort((a, b) => a.x - b.x)
    .map((l) => {
      const left = l.x * v.zoom + v.x;
      const width = Math.max(minPx, l.width * v.zoom);
      let row = ends.findIndex((end) => end + gapPx <= left);
      if (row < 0) row = ends.push(-Infinity) - 1;
      ends[row] = left + width;
      return { agent: l.agent, left, width, row };
    });
  const order = new Map(lanes.map((l, i) => [l.agent, i]));
  boxes.sort((a, b) => order.get(a.agent)! - order.get(b.agent)!);
  return { boxes, rows: Math.max(lanes.length ? 1 : 0, ends.length) };
}

function clamp(v: number, lo: number, hi: number): number {
  return (lo > hi ? hi : Math.min(hi, Math.max(lo, v))) + 0; // + 0: no -0 in viewports
}
