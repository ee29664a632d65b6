/**
 * Which nodes lie in (or near) the viewport: the graph draws only these (scene.ts), so a
 * 4,000-node trace renders like a 100-node one (handing all 4,000 nodes to a renderer cost ~2 s
 * before anything showed, measured with React Flow).
 */
import type { GraphEdgeLite, LayoutResult, Point } from "./types";

/** The graph's viewport: flow point p shows at screen p · zoom + (x, y). */
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

/** Limits of {@link edgesForNodes}: how many edges the graph draws at most. */
export interface EdgeWindowOptions {
  /** Node positions (top-left, flow units), to keep the far ends nearest the viewport centre. */
  positions?: Map<string, Point>;
  /** Viewport centre in flow units (default: none, far ends kept in edge order). */
  centre?: Point;
  /** Edges per rendered node that lead off screen, at most (default 12); the rest are bundled. */
  maxFarPerNode?: number;
  /** Edges in all, at most (default 1,500). */
  maxEdges?: number;
}

/** Defaults of {@link EdgeWindowOptions}. */
export const EDGE_WINDOW = { maxFarPerNode: 12, maxEdges: 1500 } as const;

/**
 * The edges to draw for a set of rendered nodes, windowed like the nodes: edges with both ends
 * rendered, plus per rendered node at most `maxFarPerNode` edges leaving the screen (those whose
 * far end lies nearest the viewport centre) with the far endpoints they need, and never more than
 * `maxEdges` in all. Every edge left out is counted on its rendered endpoint (`hidden`), so the
 * node can show "+1,988 edges" instead of the graph drawing 2,000 edges and 2,000 far
 * nodes for one dispatcher (the 65 s freeze of issue 10 item 9). O(sum of the rendered nodes'
 * degrees + k log k) per call.
 * @param visible ids of the rendered nodes
 * @param edges all edges (indices are edge ids)
 * @param outgoing / incoming adjacency from {@link adjacency}
 * @returns `edgeIdx` ascending, `extraNodeIds` (far endpoints to render too) and `hidden`: node id
 *   → `{out, in}` counts of its edges not drawn
 */
export function edgesForNodes(
  visible: Iterable<string>,
  edges: readonly GraphEdgeLite[],
  outgoing: Map<string, number[]>,
  incoming: Map<string, number[]>,
  opts: EdgeWindowOptions = {},
) {
  const maxFar = opts.maxFarPerNode ?? EDGE_WINDOW.maxFarPerNode;
  const maxEdges = opts.maxEdges ?? EDGE_WINDOW.maxEdges;
  const nodeIds = new Set(visible);
  const hidden = new Map<string, { out: number; in: number }>();
  const hide = (id: string, dir: "out" | "in") => {
    const h = hidden.get(id) ?? hidden.set(id, { out: 0, in: 0 }).get(id)!;
    h[dir] += 1;
  };
  const dist = (id: string) => {
    const p = opts.positions?.get(id);
    return p && opts.centre ? Math.abs(p.y - opts.centre.y) + Math.abs(p.x - opts.centre.x) : 0;
  };
  const inner = new Set<number>();
  const far: Array<{ i: number; id: string; dir: "out" | "in" }> = [];
  for (const id of nodeIds) {
    const mine: Array<{ i: number; other: string; dir: "out" | "in" }> = [];
    for (const i of outgoing.get(id) ?? []) {
      if (nodeIds.has(edges[i].to)) inner.add(i);
      else mine.push({ i, other: edges[i].to, dir: "out" });
    }
    for (const i of incoming.get(id) ?? []) {
      if (nodeIds.has(edges[i].from)) inner.add(i);
      else mine.push({ i, other: edges[i].from, dir: "in" });
    }
    if (mine.length > maxFar) {
      if (opts.positions && opts.centre) {
        const d = new Map(mine.map((m) => [m.i, dist(m.other)]));
        mine.sort((a, b) => d.get(a.i)! - d.get(b.i)! || a.i - b.i);
      }
      for (const m of mine.slice(maxFar)) hide(id, m.dir);
      mine.length = maxFar;
    }
    for (const m of mine) far.push({ i: m.i, id, dir: m.dir });
  }
  // Budget: edges between rendered nodes first (in edge order), then the far ones.
  const innerSorted = [...inner].sort((a, b) => a - b);
  const kept: number[] = innerSorted.slice(0, maxEdges);
  for (const i of innerSorted.slice(maxEdges)) hide(edges[i].from, "out");
  const extra = new Set<string>();
  for (const f of far) {
    if (kept.length >= maxEdges) {
      hide(f.id, f.dir);
      continue;
    }
    kept.push(f.i);
    const e = edges[f.i];
    extra.add(f.dir === "out" ? e.to : e.from);
  }
  return { edgeIdx: kept.sort((a, b) => a - b), extraNodeIds: [...extra], hidden };
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
