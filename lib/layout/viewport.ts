/**
 * Which nodes lie in (or near) the viewport: React Flow is handed only these, so a 4,000-node
 * trace renders like a 100-node one (see ../shared/docs/measurements.md: handing all 4,000
 * nodes to React Flow costs ~2 s before anything shows).
 */
import type { GraphEdgeLite, LayoutResult } from "./types";

/** React Flow viewport: flow point p shows at screen p · zoom + (x, y). */
export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

/** The rectangle of flow coordinates visible in a screen of width × height px. */
export function visibleRect(v: Viewport, width: number, height: number, marginPx = 200) {
  const m = marginPx / v.zoom;
  return {
    x0: -v.x / v.zoom - m,
    y0: -v.y / v.zoom - m,
    x1: (width - v.x) / v.zoom + m,
    y1: (height - v.y) / v.zoom + m,
  };
}

/**
 * Ids of nodes whose box intersects the visible rectangle. O(log n + k) using `byY` (ids sorted
 * by y), so panning a 4,001-node trace stays cheap.
 * @param limit at most this many ids (closest to the viewport centre kept), default 1,500
 */
export function nodesInView(layout: LayoutResult, v: Viewport, width: number, height: number, limit = 1500): string[] {
  const r = visibleRect(v, width, height);
  const { byY, positions, nodeHeight, nodeWidth } = layout;
  // first index with y + nodeHeight >= y0
  let lo = 0;
  let hi = byY.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions.get(byY[mid])!.y + nodeHeight < r.y0) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < byY.length; i++) {
    const p = positions.get(byY[i])!;
    if (p.y > r.y1) break;
    if (p.x + nodeWidth >= r.x0 && p.x <= r.x1) out.push(byY[i]);
  }
  if (out.length <= limit) return out;
  const cy = (r.y0 + r.y1) / 2;
  return out
    .map((id) => ({ id, d: Math.abs(positions.get(id)!.y - cy) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, limit)
    .map((e) => e.id);
}

/**
 * The edges to draw for a set of rendered nodes: every edge with at least one endpoint rendered,
 * plus the far endpoints those edges need (so an edge leaving the screen still shows).
 */
export function edgesForNodes(visible: Iterable<string>, edges: readonly GraphEdgeLite[], outgoing: Map<string, number[]>, incoming: Map<string, number[]>) {
  const nodeIds = new Set(visible);
  const edgeIdx = new Set<number>();
  for (const id of nodeIds) {
    for (const i of outgoing.get(id) ?? []) edgeIdx.add(i);
    for (const i of incoming.get(id) ?? []) edgeIdx.add(i);
  }
  const extra = new Set<string>();
  for (const i of edgeIdx) {
    const e = edges[i];
    if (!nodeIds.has(e.from)) extra.add(e.from);
    if (!nodeIds.has(e.to)) extra.add(e.to);
  }
  return { edgeIdx: [...edgeIdx].sort((a, b) => a - b), extraNodeIds: [...extra] };
}

/** Adjacency as edge indices: node id → indices of its outgoing / incoming edges. */
export function adjacency(edges: readonly GraphEdgeLite[]) {
  const outgoing = new Map<string, number[]>();
  const incoming = new Map<string, number[]>();
  edges.forEach((e, i) => {
    (outgoing.get(e.from) ?? outgoing.set(e.from, []).get(e.from)!).push(i);
    (incoming.get(e.to) ?? incoming.set(e.to, []).get(e.to)!).push(i);
  });
  return { outgoing, incoming };
}

/** Viewport that centres a flow point at the given zoom in a width × height screen. */
export function centreOn(p: { x: number; y: number }, zoom: number, width: number, height: number): Viewport {
  return { x: width / 2 - p.x * zoom, y: height / 2 - p.y * zoom, zoom };
}
