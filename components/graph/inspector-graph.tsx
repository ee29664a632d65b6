"use client";

import { ReactFlowProvider } from "@xyflow/react";
import type { GraphEdgeLite, GraphNodeLite, LayoutResult } from "@/lib/layout";
import { BigGraph, type BigGraphProps } from "./big-graph";
import { TraceGraph } from "./trace-graph";

/** What every graph of the inspector shows and reports, whatever the size of the trace. */
type CommonGraphProps = Pick<BigGraphProps, "selected" | "matches" | "marks" | "symptomCf" | "onSelect" | "fitSignal" | "centreSignal">;

/** A trace that is one window: every node and edge is in the browser, laid out whole. */
export interface OneWindow {
  kind: "whole";
  nodes: GraphNodeLite[];
  edges: GraphEdgeLite[];
  /** Agent lanes (observed order) or the ELK layered layout. */
  layout: LayoutResult;
  agents: string[];
}

/** A trace seen through windows of the observed order (components/trace/use-windowed-trace.ts). */
export type Windows = { kind: "windowed" } & Pick<BigGraphProps, "count" | "lanes" | "getRow" | "edgesIn" | "needRows" | "index" | "needIndex">;

/**
 * The inspector's graph, one component for every size. A trace that is one window is drawn by
 * React Flow (trace-graph.tsx): any layout it is given — agent lanes or the ELK layered layout —
 * and the minimap in its gutter. A trace larger than a window is drawn row by row from the loaded
 * windows, and as a canvas overview from the compact index when zoomed out (big-graph.tsx).
 * Both take the same selection, matches, marks, symptom rings and fit/centre signals, and report
 * a click as (id, row).
 */
export function InspectorGraph({ trace, ...common }: CommonGraphProps & { trace: OneWindow | Windows }) {
  if (trace.kind === "windowed") {
    return (
      <BigGraph
        count={trace.count}
        lanes={trace.lanes}
        getRow={trace.getRow}
        edgesIn={trace.edgesIn}
        needRows={trace.needRows}
        index={trace.index}
        needIndex={trace.needIndex}
        {...common}
      />
    );
  }
  return (
    <ReactFlowProvider>
      <TraceGraph
        nodes={trace.nodes}
        edges={trace.edges}
        layout={trace.layout}
        agents={trace.agents}
        selectedId={common.selected?.id ?? null}
        matches={common.matches}
        onSelect={(id) => common.onSelect(id, trace.nodes.find((n) => n.id === id)?.orderIndex ?? 0)}
        fitSignal={common.fitSignal}
        centreSignal={common.centreSignal}
        marks={common.marks}
        symptomCf={common.symptomCf}
      />
    </ReactFlowProvider>
  );
}
