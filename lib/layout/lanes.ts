/**
 * Lane layout of an event-dependency graph from its observed order.
 *
 * The observed order O is a linear extension of G (bundle spec rule 3; seeds/000 eq. 4–5), so
 * placing node i at y = i · rowGap puts every edge u → v pointing downwards: the layout is exact
 * for the dependency direction and costs O(n). Agents become vertical lanes (x), in order of
 * first appearance; nodes without an agent share a lane named "—".
 */
import type { GraphNodeLite, LayoutResult, Point } from "./types";

export const NO_AGENT = "—";

export interface LaneLayoutOptions {
  nodeWidth?: number;
  nodeHeight?: number;
  /** Vertical distance between consecutive nodes in the observed order, px. */
  rowGap?: number;
  /** Horizontal distance between lanes, px. */
  laneGap?: number;
}

/**
 * @param nodes nodes in any order; their `orderIndex` decides the row
 * @returns positions (top-left, flow px), lanes, bounds and the y-sorted id list
 */
export function laneLayout(nodes: readonly GraphNodeLite[], o: LaneLayoutOptions = {}): LayoutResult {
  const t0 = now();
  const nodeWidth = o.nodeWidth ?? 240;
  const nodeHeight = o.nodeHeight ?? 56;
  const rowGap = o.rowGap ?? 76;
  const laneGap = o.laneGap ?? 300;
  const sorted = [...nodes].sort((a, b) => a.orderIndex - b.orderIndex);
  const laneOf = new Map<string, number>();
  for (const n of sorted) {
    const a = n.agent || NO_AGENT;
    if (!laneOf.has(a)) laneOf.set(a, laneOf.size);
  }
  const positions = new Map<string, Point>();
  sorted.forEach((n, row) => {
    positions.set(n.id, { x: (laneOf.get(n.agent || NO_AGENT) ?? 0) * laneGap + 20, y: row * rowGap + 40 });
  });
  const lanes = [...laneOf.entries()].map(([agent, i]) => ({ agent, x: i * laneGap, width: nodeWidth + 40 }));
  return {
    positions,
    lanes,
    width: Math.max(1, laneOf.size) * laneGap,
    height: sorted.length * rowGap + 80,
    nodeWidth,
    nodeHeight,
    byY: sorted.map((n) => n.id),
    ms: now() - t0,
  };
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
