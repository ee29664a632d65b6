"use client";

import { useEffect, useRef } from "react";
import { isFailedStatus } from "@/lib/bundle/schema";
import type { GraphNodeLite, LayoutResult, Viewport } from "@/lib/layout";
import { TYPE_COLOUR } from "./node-colours";


/**
 * Minimap of the whole graph on a canvas (cheap for thousands of nodes, unlike a DOM minimap
 * of nodes React Flow does not hold): node marks by type, failed nodes red, search matches
 * amber, the viewport as a rectangle. Click or drag to move there. It sits in its own gutter
 * beside the graph (trace-graph.tsx), never over the nodes.
 */
export function OverviewMap({
  nodes,
  layout,
  viewport,
  screen,
  matches,
  selectedId,
  onJump,
  width = 64,
  height = 160,
}: {
  nodes: GraphNodeLite[];
  layout: LayoutResult;
  viewport: Viewport;
  screen: { width: number; height: number };
  matches: Set<string>;
  selectedId: string | null;
  onJump: (flowPoint: { x: number; y: number }) => void;
  width?: number;
  height?: number;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  const W = Math.max(layout.width, 1);
  const H = Math.max(layout.height, 1);
  const sx = width / W;
  const sy = height / H;
  useEffect(() => {
    const c = ref.current;
    const ctx = c?.getContext("2d");
    if (!c || !ctx) return;
    ctx.clearRect(0, 0, width, height);
    const mh = Math.max(1, layout.nodeHeight * sy);
    const mw = Math.max(2, layout.nodeWidth * sx);
    for (const n of nodes) {
      const p = layout.positions.get(n.id);
      if (!p) continue;
      const bad = isFailedStatus(n.status);
      ctx.fillStyle = matches.has(n.id) ? "#f59e0b" : bad ? "#dc2626" : (TYPE_COLOUR[n.type] ?? "#94a3b8");
      ctx.fillRect(p.x * sx, p.y * sy, mw, mh);
    }
    const sel = selectedId ? layout.positions.get(selectedId) : null;
    if (sel) {
      ctx.fillStyle = "#1d4ed8";
      ctx.fillRect(sel.x * sx - 1, sel.y * sy - 1, mw + 2, Math.max(3, mh + 2));
    }
    ctx.strokeStyle = "#0f172a";
    ctx.lineWidth = 1;
    const vx = -viewport.x / viewport.zoom;
    const vy = -viewport.y / viewport.zoom;
    ctx.strokeRect(vx * sx, vy * sy, (screen.width / viewport.zoom) * sx, Math.max(2, (screen.height / viewport.zoom) * sy));
  }, [nodes, layout, viewport, screen, matches, selectedId, width, height, sx, sy]);

  const jump = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    onJump({ x: (e.clientX - r.left) / sx, y: (e.clientY - r.top) / sy });
  };
  return (
    <canvas
      ref={ref}
      width={width}
      height={height}
      data-testid="overview-map"
      aria-label="Minimap: click to move the view"
      className="cursor-pointer rounded border border-slate-300 bg-white shadow-sm"
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        jump(e);
      }}
      onPointerMove={(e) => {
        if (e.buttons === 1) jump(e);
      }}
    />
  );
}
