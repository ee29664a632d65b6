"use client";

import { useEffect, useRef } from "react";
import { overviewDensity } from "@/lib/layout";
import type { CompactIndex } from "@/components/trace/use-trace-windows";

/**
 * The zoomed-out graph of a trace not wholly in the browser, on a canvas from the compact index
 * (lib/layout overviewDensity): one mark per pixel row and lane, its strength the share of nodes
 * there, red where one failed, the selected row as a blue line. Sets `window.__symtraceOverviewMs`
 * (draw time, ms) for the benchmark. Clicks are handled by the graph pane (zoom in there).
 */
export function GraphOverview({
  index,
  lanes,
  top,
  zoom,
  width,
  height,
  count,
  colourOf,
  selectedRow,
}: {
  index: CompactIndex | null;
  lanes: ReadonlyArray<string | null>;
  /** Row at the top edge (fractional) and zoom (screen px per flow px). */
  top: number;
  zoom: number;
  width: number;
  height: number;
  count: number;
  colourOf: (agent: string | null) => string;
  selectedRow: number | null;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const colW = overviewColumnWidth(width, lanes.length);
  useEffect(() => {
    const c = canvas.current;
    if (!c || !index) return;
    const W = width;
    const H = height;
    if (c.width !== W) c.width = W;
    if (c.height !== H) c.height = H;
    const ctx = c.getContext("2d");
    if (!ctx) return;
    const t0 = performance.now();
    ctx.clearRect(0, 0, W, H);
    const L = Math.max(1, lanes.length);
    const d = overviewDensity(index.lane, index.flags, L, { top, zoom }, H);
    const per = Math.max(1, d.rowsPerPixel);
    for (let l = 0; l < L; l++) {
      ctx.fillStyle = colourOf(lanes[l] ?? null);
      const x = 4 + l * colW;
      for (let y = 0; y < H; y++) {
        const n = d.counts[y * L + l];
        if (n === 0) continue;
        ctx.globalAlpha = Math.min(1, 0.25 + (0.75 * n) / per);
        ctx.fillRect(x, y, colW - 2, 1);
      }
    }
    ctx.globalAlpha = 1;
    ctx.fillStyle = "#dc2626";
    for (let l = 0; l < L; l++) {
      const x = 4 + l * colW;
      for (let y = 0; y < H; y++) if (d.failed[y * L + l] > 0) ctx.fillRect(x + colW - 8, y, 6, 1);
    }
    if (selectedRow !== null) {
      const y = (selectedRow - top) / d.rowsPerPixel;
      ctx.fillStyle = "#1d4ed8";
      ctx.fillRect(0, Math.max(0, Math.min(H - 2, y - 1)), W, 2);
    }
    (window as unknown as { __symtraceOverviewMs?: number }).__symtraceOverviewMs = performance.now() - t0;
  }, [index, lanes, top, zoom, width, height, colW, colourOf, selectedRow]);
  return (
    <canvas
      ref={canvas}
      className="absolute inset-0"
      data-testid="graph-overview"
      aria-label={`Overview of ${count.toLocaleString("en")} nodes: one mark per pixel row and agent; click to zoom in`}
    />
  );
}

/** Width of one lane's column in the overview, px (8 to 120). */
export function overviewColumnWidth(width: number, lanes: number): number {
  return Math.max(8, Math.min(120, (width - 8) / Math.max(1, lanes)));
}
