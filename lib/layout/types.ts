/** Shapes shared by the layout functions and the inspector (pure, framework-free). */
import type { NodeTiming } from "./timing";

/** One node of the event-dependency graph as the inspector needs it (no content). */
export interface GraphNodeLite {
  id: string;
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
  /** Position in the observed order O (0-based). */
  orderIndex: number;
  /** Start, duration and tokens when the trace has them (OTel / Langfuse imports); see `timing.ts`. */
  timing?: NodeTiming;
  /** Import warnings marked on this node (`content.importWarnings`, see `warnings.ts`), when any. */
  warnings?: string[];
}

/** An edge touching a window of a large trace, with both ends' rows in the observed order and agents. */
export interface WindowEdge {
  idx: number;
  from: string;
  to: string;
  kind: string;
  fromIndex: number;
  toIndex: number;
  fromAgent: string | null;
  toAgent: string | null;
}

export interface GraphEdgeLite {
  from: string;
  to: string;
  kind: "data" | "control" | string;
}

/** Top-left corner of a node box, in flow units (px at zoom 1). */
export interface Point {
  x: number;
  y: number;
}

export interface LayoutResult {
  /** Position of each node id. */
  positions: Map<string, Point>;
  /** Agent lanes (x ranges), left to right; empty for layouts without lanes. */
  lanes: Array<{ agent: string; x: number; width: number }>;
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
  /** Node ids sorted by y then x (for viewport queries by binary search). */
  byY: string[];
  /** Wall time the layout took, ms. */
  ms: number;
}
