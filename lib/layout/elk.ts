/**
 * General layered layout (ELK `layered`, via elkjs) for small graphs and sub-graphs, where lanes
 * waste space. Runs in a Web Worker in the app (elk.worker.ts) so the page never freezes;
 * measured 5.7 s for a 4,002-node trace here, so the inspector offers it only up to
 * ELK_MAX_NODES nodes.
 */
import type { GraphEdgeLite, GraphNodeLite, LayoutResult, Point } from "./types";

export const ELK_MAX_NODES = 600;

/** The ELK input graph: top-to-bottom layered, fixed node size. */
export function elkInput(nodes: readonly GraphNodeLite[], edges: readonly GraphEdgeLite[], nodeWidth = 240, nodeHeight = 56) {
  return {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "DOWN",
      "elk.spacing.nodeNode": "40",
      "elk.layered.spacing.nodeNodeBetweenLayers": "50",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
    },
    children: [...nodes].sort((a, b) => a.orderIndex - b.orderIndex).map((n) => ({ id: n.id, width: nodeWidth, height: nodeHeight })),
    edges: edges.map((e, i) => ({ id: `e${i}`, sources: [e.from], targets: [e.to] })),
  };
}

/** Map ELK's output ({children:[{id,x,y}]}) to a LayoutResult. */
export function elkResult(
  out: { children?: Array<{ id: string; x?: number; y?: number }>; width?: number; height?: number },
  ms: number,
  nodeWidth = 240,
  nodeHeight = 56,
): LayoutResult {
  const positions = new Map<string, Point>();
  for (const c of out.children ?? []) positions.set(c.id, { x: c.x ?? 0, y: c.y ?? 0 });
  const byY = [...positions.keys()].sort((a, b) => positions.get(a)!.y - positions.get(b)!.y || positions.get(a)!.x - positions.get(b)!.x);
  return { positions, lanes: [], width: out.width ?? 0, height: out.height ?? 0, nodeWidth, nodeHeight, byY, ms };
}
