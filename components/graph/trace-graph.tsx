"use client";

import { Background, Controls, MarkerType, ReactFlow, useReactFlow, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  adjacency,
  centreOn,
  edgesForNodes,
  fitView,
  laneHeaderBoxes,
  LANE_HEADER_ROW_PX,
  nodesInView,
  type GraphEdgeLite,
  type GraphNodeLite,
  type LayoutResult,
  type Viewport,
} from "@/lib/layout";
import { OverviewMap } from "./overview-map";
import { agentColor, nodeTypes, type TraceFlowNode } from "./trace-node";

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 2;

/**
 * The event-dependency graph on React Flow. Only nodes near the viewport, their edges (at most a
 * dozen leaving the screen per node, nearest first; the rest counted on the node) and the far ends
 * of those edges are handed to React Flow, so a 4,000-node trace or a 2,000-way fan-out pans like a
 * small one. Data edges
 * are solid blue arrows, control edges dashed grey.
 */
export function TraceGraph({
  nodes,
  edges,
  layout,
  agents,
  selectedId,
  matches,
  onSelect,
  fitSignal,
  centreSignal,
  marks,
  symptomCf,
}: {
  nodes: GraphNodeLite[];
  edges: GraphEdgeLite[];
  layout: LayoutResult;
  agents: string[];
  selectedId: string | null;
  matches: Set<string>;
  onSelect: (id: string) => void;
  /** Increment to fit the view. */
  fitSignal: number;
  /** Increment to centre the selected node. */
  centreSignal: number;
  /** Badges per node id (e.g. annotators who chose it). */
  marks?: Map<string, string[]>;
  /** Symptom layer: c_f per node where a rule fired (nodes get a red halo whose strength is c_f). */
  symptomCf?: Map<string, number>;
}) {
  const rf = useReactFlow();
  const box = useRef<HTMLDivElement>(null);
  const [screen, setScreen] = useState({ width: 800, height: 600 });
  const [viewport, setViewportState] = useState<Viewport>(() => initialViewport(layout, selectedId, 800, 600));
  const didInit = useRef(false);
  const adj = useMemo(() => adjacency(edges), [edges]);
  const [mapOpen, setMapOpen] = useState(true);
  const byId = useMemo(() => new Map(nodes.map((n) => [n.id, n])), [nodes]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setScreen({ width: el.clientWidth || 800, height: el.clientHeight || 600 }));
    ro.observe(el); // also reports the initial size
    return () => ro.disconnect();
  }, []);

  // Move the view; the rendered node set follows on the next frame (never synchronously
  // inside an effect).
  const go = useCallback(
    (v: Viewport, duration = 0) => {
      void rf.setViewport(v, duration ? { duration } : undefined);
      requestAnimationFrame(() => setViewportState(v));
    },
    [rf],
  );

  // First size known: centre the deep-linked node, or fit a small graph / show the top of a big one.
  useEffect(() => {
    if (didInit.current || screen.width === 800) return;
    didInit.current = true;
    go(initialViewport(layout, selectedId, screen.width, screen.height));
  }, [screen, layout, selectedId, go]);

  // New layout (e.g. lanes -> layered): keep the selection in view.
  const lastLayout = useRef(layout);
  useEffect(() => {
    if (lastLayout.current === layout) return;
    lastLayout.current = layout;
    go(initialViewport(layout, selectedId, screen.width, screen.height));
  }, [layout, selectedId, screen, go]);

  // Fit: never below the readable floor (lib/layout/fit.ts); the inspector is scrolled fully into
  // the window so the graph gets all the height there is.
  useEffect(() => {
    if (fitSignal === 0) return;
    box.current?.closest("[data-testid=inspector]")?.scrollIntoView({ block: "nearest" });
    const top = layout.lanes.length ? laneHeaderBoxes(layout.lanes, rf.getViewport()).rows * LANE_HEADER_ROW_PX + 4 : 0;
    go(fitView(layout, screen.width, screen.height, { selectedId, topInset: top }).viewport, 200);
  }, [fitSignal]); // eslint-disable-line react-hooks/exhaustive-deps

  // Selection from elsewhere (timeline, keyboard, panel): bring it into view if off screen.
  useEffect(() => {
    if (!selectedId) return;
    const p = layout.positions.get(selectedId);
    if (!p) return;
    const v = rf.getViewport();
    const sx = p.x * v.zoom + v.x;
    const sy = p.y * v.zoom + v.y;
    const off = sx < 0 || sy < 0 || sx + layout.nodeWidth * v.zoom > screen.width || sy + layout.nodeHeight * v.zoom > screen.height;
    if (off || centreSignal > 0) go(centreOn({ x: p.x + layout.nodeWidth / 2, y: p.y + layout.nodeHeight / 2 }, v.zoom, screen.width, screen.height), 150);
  }, [selectedId, centreSignal]); // eslint-disable-line react-hooks/exhaustive-deps

  const visibleIds = useMemo(() => nodesInView(layout, viewport, screen.width, screen.height), [layout, viewport, screen]);
  const colourOf = useCallback((a: string | null) => agentColor(a, agents), [agents]);
  const headers = useMemo(() => laneHeaderBoxes(layout.lanes, viewport), [layout, viewport]);

  const { flowNodes, flowEdges } = useMemo(() => {
    // Edges are windowed like nodes: a 2,000-way fan-out hands React Flow a few dozen edges, the
    // rest are counted on their node ("+1,988 edges").
    const centre = { x: (screen.width / 2 - viewport.x) / viewport.zoom, y: (screen.height / 2 - viewport.y) / viewport.zoom };
    const { edgeIdx, extraNodeIds, hidden } = edgesForNodes(visibleIds, edges, adj.outgoing, adj.incoming, { positions: layout.positions, centre });
    const ids = [...visibleIds, ...extraNodeIds];
    const traceNodes: TraceFlowNode[] = [];
    for (const id of ids) {
      const n = byId.get(id);
      const p = layout.positions.get(id);
      if (!n || !p) continue;
      traceNodes.push({
        id,
        type: "trace",
        position: p,
        width: layout.nodeWidth,
        height: layout.nodeHeight,
        selected: id === selectedId,
        draggable: false,
        data: { type: n.type, agent: n.agent, label: n.label, status: n.status, orderIndex: n.orderIndex, isMatch: matches.has(id), agentColor: colourOf(n.agent), marks: marks?.get(id), warnings: n.warnings, cf: symptomCf?.get(id), hiddenEdges: hidden.get(id) },
      });
    }
    const flowEdges: Edge[] = edgeIdx.map((i) => {
      const e = edges[i];
      const data = e.kind === "data";
      const touchesSel = e.from === selectedId || e.to === selectedId;
      return {
        id: `e${i}`,
        source: e.from,
        target: e.to,
        selectable: false,
        focusable: false,
        className: data ? "edge-data" : "edge-control",
        style: data
          ? { stroke: touchesSel ? "#1d4ed8" : "#3b82f6", strokeWidth: touchesSel ? 2.5 : 1.5 }
          : { stroke: touchesSel ? "#475569" : "#94a3b8", strokeWidth: touchesSel ? 2 : 1.2, strokeDasharray: "5 4" },
        markerEnd: { type: MarkerType.ArrowClosed, color: data ? "#3b82f6" : "#94a3b8", width: 14, height: 14 },
      };
    });
    return { flowNodes: traceNodes as Node[], flowEdges };
  }, [visibleIds, edges, adj, layout, byId, selectedId, matches, colourOf, marks, symptomCf, viewport, screen]);

  useEffect(() => {
    if (flowNodes.length > 0 && typeof performance !== "undefined") {
      if (performance.getEntriesByName("symtrace:graph-rendered").length === 0) {
        requestAnimationFrame(() => performance.mark("symtrace:graph-rendered", { detail: { nodes: flowNodes.length, layoutMs: layout.ms } }));
      }
    }
  }, [flowNodes, layout]);

  const raf = useRef(0);
  const onMove = useCallback((_: unknown, v: Viewport) => {
    cancelAnimationFrame(raf.current);
    raf.current = requestAnimationFrame(() => setViewportState(v));
  }, []);

  return (
    <div className="flex h-full w-full" data-testid="trace-graph">
      <div ref={box} className="relative h-full min-w-0 flex-1" data-testid="graph-canvas">
      {/* Agent swimlanes, drawn behind the graph in screen space (cheap at any trace length). */}
      {layout.lanes.length > 0 ? (
        <div className="pointer-events-none absolute inset-0 overflow-hidden" aria-hidden>
          {layout.lanes.map((l) => (
            <div
              key={l.agent}
              className="absolute inset-y-0 border-x border-dashed border-slate-200"
              style={{ left: l.x * viewport.zoom + viewport.x, width: l.width * viewport.zoom, background: colourOf(l.agent === "—" ? null : l.agent) + "0d" }}
            />
          ))}
        </div>
      ) : null}
      <ReactFlow
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        defaultViewport={viewport}
        onMove={onMove}
        minZoom={MIN_ZOOM}
        maxZoom={MAX_ZOOM}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable
        onlyRenderVisibleElements={false}
        onNodeClick={(_, n) => {
          if (n.type === "trace") onSelect(n.id);
        }}
        proOptions={{ hideAttribution: true }}
        deleteKeyCode={null}
        selectionKeyCode={null}
        multiSelectionKeyCode={null}
        zoomOnDoubleClick={false}
        // The wheel scrolls through the observed order (a long trace is taller than the pane); Ctrl+wheel or a pinch zooms.
        panOnScroll
      >
        <Background gap={24} size={1} color="#e2e8f0" />
        <Controls showInteractive={false} showFitView={false} position="bottom-left" />
      </ReactFlow>
      {layout.lanes.length > 0 ? (
        <div
          className="pointer-events-none absolute inset-x-0 top-0 z-10 overflow-hidden border-b border-slate-200 bg-white/90"
          style={{ height: headers.rows * LANE_HEADER_ROW_PX + 4 }}
          data-testid="lane-headers"
        >
          {/* Never cut to a letter: at least LANE_HEADER_MIN_PX wide (rows stack when zoomed far out), ellipsis + title for long names. */}
          {headers.boxes.map((h) => (
            <span
              key={h.agent}
              data-lane={h.agent}
              title={h.agent}
              className="pointer-events-auto absolute truncate px-1 text-xs leading-5 font-semibold"
              style={{ left: h.left, top: 2 + h.row * LANE_HEADER_ROW_PX, width: h.width, color: colourOf(h.agent === "—" ? null : h.agent) }}
            >
              {h.agent}
            </span>
          ))}
        </div>
      ) : null}
      </div>
      {/* The minimap has its own gutter beside the graph, so it never covers a node; it can be folded away. */}
      <div className="flex shrink-0 flex-col items-center gap-1 border-l border-slate-200 bg-slate-50 p-1" data-testid="overview-gutter">
        <button
          type="button"
          className="rounded border border-slate-300 bg-white px-1 text-[10px] leading-4 text-slate-600 hover:bg-slate-100"
          aria-expanded={mapOpen}
          aria-label={mapOpen ? "Hide minimap" : "Show minimap"}
          title={mapOpen ? "Hide minimap" : "Show minimap"}
          onClick={() => setMapOpen((o) => !o)}
        >
          {mapOpen ? "map ▸" : "◂"}
        </button>
        {mapOpen ? (
      <OverviewMap
        nodes={nodes}
        layout={layout}
        viewport={viewport}
        screen={screen}
        matches={matches}
        selectedId={selectedId}
        onJump={(pt) => {
          const v = rf.getViewport();
          go(centreOn(pt, v.zoom, screen.width, screen.height));
        }}
      />
        ) : null}
      </div>
    </div>
  );
}

/** Small graphs: fit everything. Big ones: readable zoom, centred on the selection or the top. */
function initialViewport(layout: LayoutResult, selectedId: string | null, w: number, h: number): Viewport {
  const p = selectedId ? layout.positions.get(selectedId) : undefined;
  const fit = fitView(layout, Math.max(1, w), Math.max(1, h));
  const fits = fit.mode === "all" && fit.viewport.zoom >= 0.6;
  const readable = Math.min(1, Math.max(0.75, w / Math.max(layout.width, 1)));
  if (!p) return fits ? fit.viewport : { x: 20, y: 20, zoom: readable };
  const zoom = fits ? fit.viewport.zoom : readable;
  const v = centreOn({ x: p.x + layout.nodeWidth / 2, y: p.y + layout.nodeHeight / 2 }, zoom, w, h);
  // never leave empty space above the first row or left of the first lane
  return { ...v, x: Math.min(v.x, 20), y: Math.min(v.y, 30) };
}
