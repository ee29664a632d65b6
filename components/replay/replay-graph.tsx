"use client";

import { useMemo } from "react";
import { expandGraph, type CompactGraph } from "@/lib/layout";
import { Inspector } from "@/components/trace/inspector";

/** A read-only inspector of a bundle with badges on nodes (prefix ✓, Δ, new, diverged). */
export function ReplayGraph({ bundleId, graph, marks, initialNodeId }: { bundleId: string; graph: CompactGraph; marks: Record<string, string[]>; initialNodeId: string | null }) {
  const { nodes, edges } = useMemo(() => expandGraph(graph), [graph]);
  const markMap = useMemo(() => new Map(Object.entries(marks)), [marks]);
  return <Inspector bundleId={bundleId} nodes={nodes} edges={edges} initialNodeId={initialNodeId} marks={markMap} />;
}
