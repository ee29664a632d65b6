"use client";

import { useEffect, useMemo, useState } from "react";
import { BLOCK_ROWS, ELK_MAX_NODES, layeredWindow, type GraphNodeLite, type LayeredPlacement, type WindowEdge } from "@/lib/layout";
import type { TraceWindows } from "@/components/trace/use-trace-windows";
import type { MinimapWindow } from "./overview-map";
import { useElkLayout } from "./use-elk-layout";

/** The rows of the layered window, their nodes, the edges inside it and, per node, its edges leaving it. */
interface WindowData {
  from: number;
  to: number;
  nodes: GraphNodeLite[];
  edges: WindowEdge[];
  outside: Map<string, { out: number; in: number }>;
}

const NONE: never[] = [];

/**
 * The ELK layered layout of one window of the trace: the whole trace when it has at most
 * ELK_MAX_NODES (600) rows, else the 600 rows around the selected row (lib/layout layeredWindow),
 * moved when the selection leaves them. Its rows are loaded first (`loadBlock`), then laid out in
 * the Web Worker (use-elk-layout.ts). Edges to rows outside the window are counted per node.
 * @returns the placement for the graph and the window for the minimap once laid out (null while
 *   computing or when `enabled` is false), the window's rows, and ELK's error message if it failed
 */
export function useLayeredWindow(trace: Pick<TraceWindows, "count" | "loadBlock">, selectedRow: number | null, enabled: boolean) {
  const [range, setRange] = useState<{ from: number; to: number } | null>(null);
  // Adjusted during render: a window around the selection, kept while the selection stays in it.
  if (!enabled) {
    if (range !== null) setRange(null);
  } else if (range === null || (selectedRow !== null && (selectedRow < range.from || selectedRow >= range.to)) || range.to > trace.count) {
    setRange(layeredWindow(trace.count, selectedRow ?? 0, ELK_MAX_NODES));
  }

  const [data, setData] = useState<WindowData | null>(null);
  const { loadBlock } = trace;
  useEffect(() => {
    if (!range) return;
    let live = true;
    const blocks: number[] = [];
    for (let b = Math.floor(range.from / BLOCK_ROWS); b * BLOCK_ROWS < range.to; b++) blocks.push(b);
    Promise.all(blocks.map((b) => loadBlock(b)))
      .then((got) => {
        if (live) setData(windowData(range.from, range.to, got));
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [range, loadBlock]);

  const current = data && range && data.from === range.from && data.to === range.to ? data : null;
  const elk = useElkLayout(current?.nodes ?? NONE, current?.edges ?? NONE, enabled && current !== null);
  const layout = elk.layout && current && elk.layout.positions.size === current.nodes.length && elk.layout.positions.has(current.nodes[0]?.id) ? elk.layout : null;

  const placement = useMemo<LayeredPlacement | null>(
    () => (layout && current ? { kind: "layered", layout, nodes: new Map(current.nodes.map((n) => [n.id, n])), edges: current.edges, outside: current.outside } : null),
    [layout, current],
  );
  const minimap = useMemo<MinimapWindow | null>(
    () =>
      layout && current
        ? { nodes: current.nodes, positionOf: (n) => layout.positions.get(n.id), width: layout.width, height: layout.height, nodeWidth: layout.nodeWidth, nodeHeight: layout.nodeHeight }
        : null,
    [layout, current],
  );
  return { placement, minimap, range: enabled ? range : null, error: enabled ? elk.error : null };
}

/** Nodes of rows [from, to) from their blocks, the edges with both ends inside, and per node the count of edges leaving. */
function windowData(from: number, to: number, blocks: Array<{ nodes: GraphNodeLite[]; edges: WindowEdge[] }>): WindowData {
  const nodes: GraphNodeLite[] = [];
  const seen = new Set<number>();
  const edges: WindowEdge[] = [];
  const outside = new Map<string, { out: number; in: number }>();
  const inside = (row: number) => row >= from && row < to;
  for (const b of blocks) {
    for (const n of b.nodes) if (inside(n.orderIndex)) nodes.push(n);
    for (const e of b.edges) {
      if (seen.has(e.idx)) continue;
      seen.add(e.idx);
      const f = inside(e.fromIndex);
      const t = inside(e.toIndex);
      if (f && t) edges.push(e);
      else if (f) outside.set(e.from, { out: (outside.get(e.from)?.out ?? 0) + 1, in: outside.get(e.from)?.in ?? 0 });
      else if (t) outside.set(e.to, { out: outside.get(e.to)?.out ?? 0, in: (outside.get(e.to)?.in ?? 0) + 1 });
    }
  }
  nodes.sort((a, b) => a.orderIndex - b.orderIndex);
  return { from, to, nodes, edges, outside };
}
