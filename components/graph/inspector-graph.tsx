"use client";

import { ReactFlowProvider } from "@xyflow/react";
import type { GraphEdgeLite, GraphNodeLite, LayoutResult } from "@/lib/layout";
import { BigGraph, type BigEdge, type BigNode } from "./big-graph";
import { TraceGraph } from "./trace-graph";

/** What every graph of the inspector shows and reports, whatever the size of the trace. */
interface CommonGraphProps {
  selected: { id: string; orderIndex: number } | null;
  matches: Set<string>;
  marks?: Map<string, string[]>;
  /** The symptom layer's c_f per node where a rule fired (a red ring whose strength is c_f). */
  symptomCf?: Map<string, number>;
  onSelect: (id: string, orderIndex: number) => void;
  /** Increment to fit the view. */
  fitSignal: number;
  /** Increment to centre the selected node. */
  centreSignal: number;
}

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
export interface Windows {
  kind: "windowed";
  count: number;
  lanes: Array<string | null>;
  getRow: (row: number) => BigNode | undefined;
  edgesIn: (first: number, last: number) => BigEdge[];
  needRows: (first: number, last: number) => void;
  index: { lane: Uint8Array; flags: Uint8Array } | null;
  needIndex: () => void;
}

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
