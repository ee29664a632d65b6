/**
 * What the inspector's graph draws for a viewport (components/graph/trace-graph.tsx), for a trace
 * of any size: the nodes whose box meets the screen with their flow positions, and their edges,
 * windowed (at most a dozen leaving the screen per node, nearest the viewport centre first, 1,500
 * in all; the rest counted per node, `edgesForNodes`). Two placements:
 *  - `lanes`: agent lanes over the observed order (windowed.ts), for any number of rows; nodes
 *    and edges come from the loaded windows (`getRow`, `edgesIn`), so the cost follows the screen,
 *    not the trace;
 *  - `layered`: one window of rows laid out whole (the ELK layered layout, elk.ts); edges to rows
 *    outside the window are counted on their node (`outside`).
 * Pure and framework-free.
 */
import { edgesForNodes, nodesInView, type Viewport } from "./viewport";
import type { GraphNodeLite, LayoutResult, Point, WindowEdge } from "./types";
import { NODE_H, NODE_W, rowPoint, rowsInView } from "./windowed";

/** Agent lanes over the observed order: row → y, agent's lane → x. */
export interface LanesPlacement {
  kind: "lanes";
  count: number;
  /** Lane index of an agent (null = no agent). */
  laneOf: (agent: string | null) => number;
  getRow: (row: number) => GraphNodeLite | undefined;
  /** Edges of the loaded windows touching rows [first, last]. */
  edgesIn: (first: number, last: number) => WindowEdge[];
}

/** One window of rows laid out whole (positions from ELK, lanes empty). */
export interface LayeredPlacement {
  kind: "layered";
  layout: LayoutResult;
  /** The window's nodes by id. */
  nodes: Map<string, GraphNodeLite>;
  /** Edges with both ends in the window. */
  edges: WindowEdge[];
  /** Per node, its edges to rows outside the window (not drawn, counted). */
  outside: Map<string, { out: number; in: number }>;
}

export type Placement = LanesPlacement | LayeredPlacement;

/** A node to draw: its top-left corner in flow px. */
export interface SceneNode {
  node: GraphNodeLite;
  x: number;
  y: number;
}

/** An edge to draw: from the source's bottom centre to the target's top centre, flow px. */
export interface SceneEdge {
  edge: WindowEdge;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface Scene {
  nodes: SceneNode[];
  edges: SceneEdge[];
  /** Per drawn node, its edges not drawn (far end off screen beyond the per-node limit, or outside the layered window). */
  hidden: Map<string, { out: number; in: number }>;
  /** Lanes: the rows on screen [first, last] (last < first: none), without the margin. Layered: the rows of the nodes drawn, or none. */
  rows: { first: number; last: number };
}

/** Screen px around the screen whose nodes are drawn too (as `nodesInView`): a pan shows them at once. */
export const SCENE_MARGIN_PX = 200;

/**
 * The scene of `placement` on a screen of `screen` px at viewport `v` (flow point p shows at
 * p · zoom + (x, y)), with the nodes within SCENE_MARGIN_PX around it. O(rows drawn + their edges ·
 * log) for lanes, O(log n + drawn) for layered.
 */
export function graphScene(placement: Placement, v: Viewport, screen: { width: number; height: number }): Scene {
  return placement.kind === "lanes" ? lanesScene(placement, v, screen) : layeredScene(placement, v, screen);
}

function centreOf(v: Viewport, screen: { width: number; height: number }): Point {
  return { x: (screen.width / 2 - v.x) / v.zoom, y: (screen.height / 2 - v.y) / v.zoom };
}

function lanesScene(p: LanesPlacement, v: Viewport, screen: { width: number; height: number }): Scene {
  const rows = rowsInView(v, screen.height, p.count);
  const m = SCENE_MARGIN_PX;
  const drawn = rowsInView({ ...v, y: v.y + m }, screen.height + 2 * m, p.count);
  const x0 = (-v.x - m) / v.zoom - NODE_W;
  const x1 = (screen.width - v.x + m) / v.zoom;
  const nodes: SceneNode[] = [];
  const visible: string[] = [];
  for (let r = drawn.first; r <= drawn.last; r++) {
    const n = p.getRow(r);
    if (!n) continue;
    const at = rowPoint(r, p.laneOf(n.agent || null));
    if (at.x < x0 || at.x > x1) continue;
    nodes.push({ node: n, ...at });
    visible.push(n.id);
  }
  const local = drawn.last >= drawn.first ? p.edgesIn(drawn.first, drawn.last) : [];
  const positions = new Map<string, Point>();
  for (const e of local) {
    positions.set(e.from, rowPoint(e.fromIndex, p.laneOf(e.fromAgent || null)));
    positions.set(e.to, rowPoint(e.toIndex, p.laneOf(e.toAgent || null)));
  }
  return { ...windowEdges(visible, local, positions, centreOf(v, screen), null), nodes, rows };
}

function layeredScene(p: LayeredPlacement, v: Viewport, screen: { width: number; height: number }): Scene {
  const ids = nodesInView(p.layout, v, screen.width, screen.height);
  const nodes: SceneNode[] = [];
  let first = Infinity;
  let last = -Infinity;
  for (const id of ids) {
    const n = p.nodes.get(id);
    const at = p.layout.positions.get(id);
    if (!n || !at) continue;
    nodes.push({ node: n, x: at.x, y: at.y });
    first = Math.min(first, n.orderIndex);
    last = Math.max(last, n.orderIndex);
  }
  const w = windowEdges(ids, p.edges, p.layout.positions, centreOf(v, screen), p.outside);
  return { ...w, nodes, rows: nodes.length ? { first, last } : { first: 0, last: -1 } };
}

/** Edges of the drawn nodes, windowed (`edgesForNodes`), with endpoints; `outside` counts added to `hidden`. */
function windowEdges(visible: string[], edges: WindowEdge[], positions: Map<string, Point>, centre: Point, outside: Map<string, { out: number; in: number }> | null) {
  const outgoing = new Map<string, number[]>();
  const incoming = new Map<string, number[]>();
  edges.forEach((e, i) => {
    (outgoing.get(e.from) ?? outgoing.set(e.from, []).get(e.from)!).push(i);
    (incoming.get(e.to) ?? incoming.set(e.to, []).get(e.to)!).push(i);
  });
  const { edgeIdx, hidden } = edgesForNodes(visible, edges, outgoing, incoming, { positions, centre });
  if (outside) {
    for (const id of visible) {
      const o = outside.get(id);
      if (!o) continue;
      const h = hidden.get(id) ?? { out: 0, in: 0 };
      hidden.set(id, { out: h.out + o.out, in: h.in + o.in });
    }
  }
  const out: SceneEdge[] = [];
  for (const i of edgeIdx) {
    const e = edges[i];
    const a = positions.get(e.from);
    const b = positions.get(e.to);
    if (!a || !b) continue;
    out.push({ edge: e, x1: a.x + NODE_W / 2, y1: a.y + NODE_H, x2: b.x + NODE_W / 2, y2: b.y });
  }
  return { edges: out, hidden };
}
