"use client";

import { useEffect, useRef } from "react";
import { isFailedStatus } from "@/lib/bundle/schema";
import type { GraphNodeLite, Point, Viewport } from "@/lib/layout";
import { TYPE_COLOUR } from "./node-colours";

/** The window the minimap draws: every node of it with its position (flow px), and its extent. */
export interface MinimapWindow {
  nodes: readonly GraphNodeLite[];
  positionOf: (n: GraphNodeLite) => Point | undefined;
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
}

/**
 * Minimap of the window the graph lays out whole (a whole trace, or the layered window of a large
 * one) on a canvas: node marks by type, failed nodes red, search matches amber, the selection
 * blue, the viewport as a rectangle. Click or drag to move there (`onJump` gets the flow point).
 * It sits in its own gutter beside the graph (trace-graph.tsx), never over the nodes. O(nodes of
 * the window) per draw.
 */
export function OverviewMap({
  win,
  viewport,
  screen,
  matches,
  selectedId,
  onJump,
  width = 64,
  height = 160,
}: {
  win: MinimapWindow;
  viewport: Viewport;
  screen: { width: number; height: number };
  matches: Set<string>;
  selectedId: string | null;
  onJump: (flowPoint: Point) => void;
  width?: number;
  height?: number;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  const sx = width / Math.max(win.width, 1);
  const sy = height / Math.max(win.height, 1);
  useEffect(() => {
    const c = ref.current;
    const ctx = c?.getContext("2d");
    if (!c || !ctx) return;
    ctx.clearRect(0, 0, width, height);
    const mh = Math.max(1, win.nodeHeight * sy);
    const mw = Math.max(2, win.nodeWidth * sx);
    let sel: Point | undefined;
    for (const n of win.nodes) {
      const p = win.positionOf(n);
      if (!p) continue;
      if (n.id === selectedId) sel = p;
      ctx.fillStyle = matches.has(n.id) ? "#f59e0b" : isFailedStatus(n.status) ? "#dc2626" : (TYPE_COLOUR[n.type] ?? "#94a3b8");
      ctx.fillRect(p.x * sx, p.y * sy, mw, mh);
    }
    if (sel) {
      ctx.fillStyle = "#1d4ed8";
      ctx.fillRect(sel.x * sx - 1, sel.y * sy - 1, mw + 2, Math.max(3, mh + 2));
    }
    ctx.strokeStyle = "#0f172a";
    ctx.lineWidth = 1;
    const vx = -viewport.x / viewport.zoom;
    const vy = -viewport.y / viewport.zoom;
    ctx.strokeRect(vx * sx, vy * sy, (screen.width / viewport.zoom) * sx, Math.max(2, (screen.height / viewport.zoom) * sy));
  }, [win, viewport, screen, matches, selectedId, width, height, sx, sy]);

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
