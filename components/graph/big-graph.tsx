"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { isFailedStatus } from "@/lib/bundle/schema";
import {
  centreRow,
  clampTop,
  DETAIL_MIN_ZOOM,
  LANE_PX,
  minZoom,
  NODE_H,
  NODE_W,
  overviewDensity,
  ROW_MAX_ZOOM,
  ROW_PX,
  visibleRows,
  type GraphNodeLite,
  type RowView,
  type WindowEdge,
} from "@/lib/layout";
import { agentColor } from "./trace-node";
import { TYPE_BG, TYPE_COLOUR } from "./node-colours";
import { ImportWarningBadge } from "@/components/trace/import-warning-badge";

/** A node of a loaded window (no content; lib/layout GraphNodeLite). */
export type BigNode = GraphNodeLite;
/** An edge touching a loaded window, with both ends' rows and agents. */
export type BigEdge = WindowEdge;

const HEADER_PX = 24;
/** Edges drawn at most (nearest the selection first are not needed: a window holds few). */
const MAX_EDGES = 3000;

/** What BigGraph draws and reports (the inspector passes the windows of use-windowed-trace.ts). */
export interface BigGraphProps {
  count: number;
  lanes: Array<string | null>;
  getRow: (row: number) => BigNode | undefined;
  /** Edges of loaded windows touching rows [first, last]. */
  edgesIn: (first: number, last: number) => BigEdge[];
  needRows: (first: number, last: number) => void;
  index: { lane: Uint8Array; flags: Uint8Array } | null;
  needIndex: () => void;
  selected: { id: string; orderIndex: number } | null;
  matches: Set<string>;
  marks?: Map<string, string[]>;
  /** The symptom layer's c_f per node where a rule fired (drawn as a red ring, as in the small inspector). */
  symptomCf?: Map<string, number>;
  onSelect: (id: string, orderIndex: number) => void;
  fitSignal: number;
  centreSignal: number;
}

/**
 * The graph of a large trace (issue 16 item 4): rows are positions in the observed order, columns
 * agent lanes. At readable zoom it draws the nodes of the loaded windows (plain DOM, only the rows
 * on screen) and their edges (SVG, an edge to a row off screen runs off the edge of the pane);
 * zoomed out below DETAIL_MIN_ZOOM it draws the overview on a canvas from the compact index: one
 * mark per pixel row and lane, its strength the share of nodes there, red where one failed.
 * Wheel scrolls the observed order (Ctrl/⌘ + wheel zooms), drag pans, a click on the overview
 * zooms in there. It asks the inspector for the rows it shows (`needRows`) and the index (`needIndex`).
 */
export function BigGraph({
  count,
  lanes,
  getRow,
  edgesIn,
  needRows,
  index,
  needIndex,
  selected,
  matches,
  marks,
  symptomCf,
  onSelect,
  fitSignal,
  centreSignal,
}: BigGraphProps) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [screen, setScreen] = useState({ width: 900, height: 640 });
  const [view, setView] = useState<RowView>(() => ({ top: selected ? Math.max(0, selected.orderIndex - 3) : 0, zoom: 0.75, left: 0 }));
  const agents = useMemo(() => lanes.map((a) => a ?? "—"), [lanes]);
  const laneIndex = useMemo(() => new Map(lanes.map((a, i) => [a, i])), [lanes]);
  const colourOf = useCallback((a: string | null) => agentColor(a, agents), [agents]);
  const graphH = Math.max(1, screen.height - HEADER_PX);
  const zMin = minZoom(count, graphH);
  const overview = view.zoom < DETAIL_MIN_ZOOM;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setScreen({ width: el.clientWidth || 900, height: el.clientHeight || 640 }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const setClamped = useCallback(
    (f: (v: RowView) => RowView) =>
      setView((v) => {
        const n = f(v);
        const zoom = Math.max(zMin, Math.min(ROW_MAX_ZOOM, n.zoom));
        const maxLeft = Math.max(0, lanes.length * LANE_PX * zoom + 40 - screen.width);
        return { zoom, top: clampTop(n.top, count, graphH, zoom), left: Math.max(0, Math.min(maxLeft, n.left)) };
      }),
    [zMin, lanes.length, screen.width, count, graphH],
  );

  // Rows on screen: ask for their windows (detail) or for the index (overview).
  const first = Math.max(0, Math.floor(view.top));
  const last = Math.min(count - 1, Math.ceil(view.top + visibleRows(graphH, view.zoom)));
  useEffect(() => {
    if (overview) needIndex();
    else needRows(first, last);
  }, [overview, first, last, needRows, needIndex]);

  // Fit = the full zoom-out: every row on screen, as the overview.
  useEffect(() => {
    if (fitSignal > 0) requestAnimationFrame(() => setClamped(() => ({ top: 0, zoom: zMin, left: 0 })));
  }, [fitSignal]); // eslint-disable-line react-hooks/exhaustive-deps

  // A selection from elsewhere (keyboard, search, panel, deep link): bring its row into view at a readable zoom.
  useEffect(() => {
    if (!selected) return;
    requestAnimationFrame(() => setClamped((v) => {
      const zoom = v.zoom < DETAIL_MIN_ZOOM ? 0.75 : v.zoom;
      const rows = visibleRows(graphH, zoom);
      const off = selected.orderIndex < v.top || selected.orderIndex + 1 > v.top + rows;
      const l = laneIndex.get(getRow(selected.orderIndex)?.agent ?? null) ?? 0;
      const x = l * LANE_PX * zoom;
      const left = x < v.left || x + NODE_W * zoom > v.left + screen.width ? Math.max(0, x - 40) : v.left;
      if (!off && zoom === v.zoom && centreSignal === 0) return { ...v, left };
      return { zoom, left, top: off || centreSignal > 0 ? centreRow(selected.orderIndex, count, graphH, zoom) : v.top };
    }));
  }, [selected?.id, selected?.orderIndex, centreSignal]); // eslint-disable-line react-hooks/exhaustive-deps

  // Wheel: scroll rows (and lanes with Shift / a horizontal wheel); Ctrl/⌘ zooms around the pointer.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = el.getBoundingClientRect();
      const y = e.clientY - rect.top - HEADER_PX;
      setClamped((v) => {
        if (e.ctrlKey || e.metaKey) {
          const zoom = Math.max(zMin, Math.min(ROW_MAX_ZOOM, v.zoom * Math.exp(-e.deltaY / 300)));
          const rowAt = v.top + y / (ROW_PX * v.zoom);
          return { zoom, top: rowAt - y / (ROW_PX * zoom), left: v.left * (zoom / v.zoom) };
        }
        const dx = e.shiftKey ? e.deltaY : e.deltaX;
        const dy = e.shiftKey ? 0 : e.deltaY;
        return { ...v, top: v.top + dy / (ROW_PX * v.zoom), left: v.left + dx };
      });
    };
    el.addEventListener("wheel", onWheel, { passive: false });
    return () => el.removeEventListener("wheel", onWheel);
  }, [setClamped, zMin]);

  // Drag to pan (rAF-batched).
  const drag = useRef<{ x: number; y: number; moved: boolean } | null>(null);
  const pending = useRef<{ dx: number; dy: number }>({ dx: 0, dy: 0 });
  const raf = useRef(0);
  const onPointerDown = (e: React.PointerEvent) => {
    if (e.button !== 0) return;
    drag.current = { x: e.clientX, y: e.clientY, moved: false };
  };
  const onPointerMove = (e: React.PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!d.moved) (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
    d.moved = true;
    d.x = e.clientX;
    d.y = e.clientY;
    pending.current.dx += dx;
    pending.current.dy += dy;
    if (!raf.current) {
      raf.current = requestAnimationFrame(() => {
        raf.current = 0;
        const p = pending.current;
        pending.current = { dx: 0, dy: 0 };
        setClamped((v) => ({ ...v, top: v.top - p.dy / (ROW_PX * v.zoom), left: v.left - p.dx }));
      });
    }
  };
  const onPointerUp = (e: React.PointerEvent) => {
    const d = drag.current;
    drag.current = null;
    if (!d || d.moved) return;
    // A click on the overview zooms in on that row.
    if (overview) {
      const rect = (e.currentTarget as HTMLElement).getBoundingClientRect();
      const row = view.top + (e.clientY - rect.top - HEADER_PX) / (ROW_PX * view.zoom);
      setClamped((v) => ({ ...v, zoom: 0.75, top: centreRow(row, count, graphH, 0.75) }));
    }
  };

  // The overview canvas: one mark per pixel row and lane.
  const colW = Math.max(8, Math.min(120, (screen.width - 8) / Math.max(1, lanes.length)));
  useEffect(() => {
    const c = canvas.current;
    if (!overview || !c || !index) return;
    const W = screen.width;
    const H = graphH;
    if (c.width !== W) c.width = W;
    if (c.height !== H) c.height = H;
    const ctx = c.getContext("2d");
    if (!ctx) return;
    const t0 = performance.now();
    ctx.clearRect(0, 0, W, H);
    const L = Math.max(1, lanes.length);
    const d = overviewDensity(index.lane, index.flags, L, view, H);
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
    if (selected) {
      const y = (selected.orderIndex - view.top) / d.rowsPerPixel;
      ctx.fillStyle = "#1d4ed8";
      ctx.fillRect(0, Math.max(0, Math.min(H - 2, y - 1)), W, 2);
    }
    (window as unknown as { __symtraceOverviewMs?: number }).__symtraceOverviewMs = performance.now() - t0;
  }, [overview, index, view, screen.width, graphH, lanes, colW, colourOf, selected]);

  // Nodes and edges on screen (detail).
  const { nodeEls, edgePaths } = useMemo(() => {
    if (overview) return { nodeEls: [] as React.ReactNode[], edgePaths: [] as React.ReactNode[] };
    const z = view.zoom;
    const xOf = (agent: string | null) => (laneIndex.get(agent) ?? 0) * LANE_PX * z + 20 * z - view.left;
    const yOf = (row: number) => (row - view.top) * ROW_PX * z + 10 * z;
    const nodeEls: React.ReactNode[] = [];
    for (let r = first; r <= last; r++) {
      const n = getRow(r);
      if (!n) continue;
      const bad = isFailedStatus(n.status);
      const sel = selected?.id === n.id;
      const match = matches.has(n.id);
      const cf = symptomCf?.get(n.id);
      nodeEls.push(
        <div
          key={n.id}
          data-testid="big-node"
          data-node-id={n.id}
          data-order-index={n.orderIndex}
          data-selected={sel || undefined}
          data-match={match || undefined}
          data-cf={cf !== undefined ? cf.toFixed(3) : undefined}
          title={`${n.id} · ${n.type}${n.agent ? " · " + n.agent : ""}${n.status ? " · " + n.status : ""}`}
          onPointerUp={(e) => {
            if (drag.current?.moved) return;
            e.stopPropagation();
            drag.current = null;
            onSelect(n.id, n.orderIndex);
          }}
          className="absolute cursor-pointer overflow-hidden rounded-md border-2 px-2 py-1 text-[11px] leading-tight shadow-sm"
          style={{
            left: 0,
            top: 0,
            width: NODE_W,
            height: NODE_H,
            transform: `translate(${xOf(n.agent)}px, ${yOf(n.orderIndex)}px) scale(${z})`,
            transformOrigin: "0 0",
            background: TYPE_BG[n.type] ?? "#fff",
            borderColor: TYPE_COLOUR[n.type] ?? "#cbd5e1",
            boxShadow: sel
              ? "0 0 0 4px #3b82f6"
              : match
                ? "0 0 0 4px #fbbf24"
                : cf !== undefined
                  ? `0 0 0 ${2 + Math.round(cf * 6)}px rgba(220, 38, 38, ${(0.25 + 0.75 * cf).toFixed(2)})`
                  : undefined,
            outline: bad ? "2px solid #dc2626" : undefined,
            outlineOffset: 2,
          }}
        >
          <span className="absolute inset-y-0 left-0 w-1.5" style={{ background: colourOf(n.agent) }} aria-hidden />
          <div className="flex items-center justify-between gap-1 pl-1">
            <span className="font-semibold text-slate-700">{n.type}</span>
            <span className="flex items-center gap-1 text-slate-400">
              <ImportWarningBadge warnings={n.warnings} />
              {bad ? <span className="rounded bg-red-600 px-1 text-[10px] font-bold text-white">{n.status}</span> : null}#{n.orderIndex}
            </span>
          </div>
          <div className="truncate pl-1 text-slate-800">{n.label ?? n.id}</div>
          <div className="flex items-center gap-1 truncate pl-1 font-mono text-[10px] text-slate-400">
            {marks?.get(n.id)?.map((m) => (
              <span key={m} className="rounded bg-indigo-600 px-1 font-sans font-semibold text-white" data-mark={m}>
                {m}
              </span>
            ))}
            {n.id}
          </div>
        </div>,
      );
    }
    const edgePaths: React.ReactNode[] = [];
    const edges = edgesIn(first, last);
    for (const e of edges.slice(0, MAX_EDGES)) {
      const x1 = xOf(e.fromAgent) + (NODE_W / 2) * z;
      const y1 = yOf(e.fromIndex) + NODE_H * z;
      const x2 = xOf(e.toAgent) + (NODE_W / 2) * z;
      const y2 = yOf(e.toIndex);
      const my = (y1 + y2) / 2;
      const touches = selected && (e.from === selected.id || e.to === selected.id);
      const data = e.kind === "data";
      edgePaths.push(
        <path
          key={e.idx}
          d={`M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`}
          fill="none"
          stroke={data ? (touches ? "#1d4ed8" : "#3b82f6") : touches ? "#475569" : "#94a3b8"}
          strokeWidth={touches ? 2.5 : 1.3}
          strokeDasharray={data ? undefined : "5 4"}
        />,
      );
    }
    return { nodeEls, edgePaths };
  }, [overview, view, first, last, getRow, edgesIn, laneIndex, selected, matches, marks, symptomCf, colourOf, onSelect]);

  // Navigation-timing mark: the first frame with graph nodes (or the overview) on the client.
  useEffect(() => {
    if ((nodeEls.length > 0 || (overview && index)) && performance.getEntriesByName("symtrace:graph-rendered").length === 0) {
      requestAnimationFrame(() => performance.mark("symtrace:graph-rendered", { detail: { nodes: nodeEls.length } }));
    }
  }, [nodeEls.length, overview, index]);

  const loading = overview ? !index : nodeEls.length === 0 && count > 0;
  return (
    <div
      ref={box}
      className="relative h-full w-full touch-none overflow-hidden bg-slate-50 select-none"
      data-testid="big-graph"
      data-zoom={view.zoom.toFixed(5)}
      data-mode={overview ? "overview" : "detail"}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => (drag.current = null)}
    >
      <div className="absolute inset-x-0 z-10 h-6 overflow-hidden border-b border-slate-200 bg-white/90 text-xs font-semibold" data-testid="lane-headers">
        {lanes.map((a, l) => (
          <span
            key={l}
            className="absolute truncate px-1 leading-6"
            title={a ?? "—"}
            style={{ left: overview ? 4 + l * colW : l * LANE_PX * view.zoom + 20 * view.zoom - view.left, width: overview ? colW : Math.max(96, NODE_W * view.zoom), color: colourOf(a) }}
          >
            {a ?? "—"}
          </span>
        ))}
      </div>
      <div className="absolute inset-x-0 bottom-0" style={{ top: HEADER_PX }}>
        {overview ? (
          <canvas ref={canvas} className="absolute inset-0" data-testid="big-overview" aria-label={`Overview of ${count.toLocaleString("en")} nodes: one mark per pixel row and agent; click to zoom in`} />
        ) : (
          <>
            <svg className="pointer-events-none absolute inset-0 h-full w-full overflow-visible" aria-hidden>
              {edgePaths}
            </svg>
            {nodeEls}
          </>
        )}
      </div>
      <div className="pointer-events-none absolute right-2 bottom-2 z-10 rounded bg-white/90 px-2 py-0.5 text-[11px] text-slate-600 shadow" data-testid="big-position">
        rows {first.toLocaleString("en")}–{last.toLocaleString("en")} of {count.toLocaleString("en")}
        {overview ? ` · overview (${(1 / (ROW_PX * view.zoom)).toFixed(1)} nodes per pixel row)` : ""}
        {loading ? " · loading…" : ""}
      </div>
      <div className="absolute bottom-2 left-2 z-10 flex gap-1">
        <button type="button" className="rounded border bg-white px-2 text-xs" aria-label="Zoom in" onClick={() => setClamped((v) => ({ ...v, zoom: v.zoom * 1.5 }))}>
          +
        </button>
        <button type="button" className="rounded border bg-white px-2 text-xs" aria-label="Zoom out" onClick={() => setClamped((v) => ({ ...v, zoom: v.zoom / 1.5 }))}>
          −
        </button>
      </div>
    </div>
  );
}
