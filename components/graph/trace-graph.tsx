"use client";

import { Background, Controls, MarkerType, ReactFlow, useReactFlow, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { adjacency, centreOn, edgesForNodes, nodesInView, type GraphEdgeLite, type GraphNodeLite, type LayoutResult, type Viewport } from "@/lib/layout";
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

  useEffect(() => {
    if (fitSignal === 0) return;
    go(fitViewport(layout, selectedId, screen.width, screen.height), 200);
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
        data: { type: n.type, agent: n.agent, label: n.label, status: n.status, orderIndex: n.orderIndex, isMatch: matches.has(id), agentColor: colourOf(n.agent), marks: marks?.get(id), cf: symptomCf?.get(id), hiddenEdges: hidden.get(id) },
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
    <div ref={box} className="relative h-full w-full" data-testid="trace-graph">
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
      >
        <Background gap={24} size={1} color="#e2e8f0" />
        <Controls showInteractive={false} showFitView={false} position="bottom-left" />
      </ReactFlow>
      {layout.lanes.length > 0 ? (
        <div className="pointer-events-none absolute inset-x-0 top-0 z-10 h-6 overflow-hidden border-b border-slate-200 bg-white/90" data-testid="lane-headers">
          {layout.lanes.map((l) => (
            <span
              key={l.agent}
              className="absolute top-0.5 truncate px-2 text-xs font-semibold"
              style={{ left: l.x * viewport.zoom + viewport.x, width: l.width * viewport.zoom, color: colourOf(l.agent === "—" ? null : l.agent) }}
            >
              {l.agent}
            </span>
          ))}
        </div>
      ) : null}
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
    </div>
  );
}

/** Small graphs: fit everything. Big ones: readable zoom, centred on the selection or the top. */
function initialViewport(layout: LayoutResult, selectedId: string | null, w: number, h: number): Viewport {
  const p = selectedId ? layout.positions.get(selectedId) : undefined;
  const fit = fitViewport(layout, null, w, h);
  const readable = Math.min(1, Math.max(0.75, w / Math.max(layout.width, 1)));
  if (!p) return fit.zoom >= 0.6 ? fit : { x: 20, y: 20, zoom: readable };
  const zoom = fit.zoom >= 0.6 ? fit.zoom : readable;
  const v = centreOn({ x: p.x + layout.nodeWidth / 2, y: p.y + layout.nodeHeight / 2 }, zoom, w, h);
  // never leave empty space above the first row or left of the first lane
  return { ...v, x: Math.min(v.x, 20), y: Math.min(v.y, 30) };
}

/** Fit the whole graph; for graphs too tall to read at MIN_ZOOM, fit the width around the selection. */
export function fitViewport(layout: LayoutResult, selectedId: string | null, w: number, h: number): Viewport {
  const W = Math.max(layout.width, layout.nodeWidth) + 40;
  const H = Math.max(layout.height, layout.nodeHeight) + 40;
  const zoom = Math.min(MAX_ZOOM, 1.2, w / W, h / H);
  if (zoom >= MIN_ZOOM) return { x: (w - W * zoom) / 2 + 20 * zoom, y: (h - H * zoom) / 2 + 20 * zoom, zoom };
  const z = Math.max(MIN_ZOOM, Math.min(1.2, w / W));
  const p = selectedId ? layout.positions.get(selectedId) : undefined;
  return centreOn({ x: W / 2, y: p ? p.y : h / 2 / z }, z, w, h);
}
