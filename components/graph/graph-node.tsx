"use client";

import { memo } from "react";
import { isFailedStatus } from "@/lib/bundle/schema";
import { NODE_H, NODE_W, type GraphNodeLite } from "@/lib/layout";
import { ImportWarningBadge } from "@/components/trace/import-warning-badge";
import { TYPE_BG, TYPE_COLOUR } from "./node-colours";

/** The Element Timing attribute of a node's label (not in React's typed attributes; passed through as is). */
const ELEMENT_TIMING = { elementtiming: "graph-node" } as Record<string, string>;

/** How one node box is drawn besides its data (trace-graph.tsx computes these per frame). */
export interface GraphNodeLook {
  /** Screen px of the box's top-left corner, and the zoom it is scaled by. */
  left: number;
  top: number;
  zoom: number;
  agentColor: string;
  selected: boolean;
  match: boolean;
  /** Symptom layer: c_f ∈ [0, 1] where a rule fired (a red ring whose strength is c_f). */
  cf?: number;
  /** Badges (annotators who chose it, "anchor", "diverged"). */
  marks?: string[];
  /** Edges of this node not drawn (far end off screen, or outside the layered window). */
  hidden?: { out: number; in: number };
}

/**
 * One event of the graph as a plain element (240 × 56 px at zoom 1, scaled by a transform): type
 * colour, agent stripe, label, failed mark, import-warning badge, marks, and the count of its
 * undrawn edges. Text only (trace content is never rendered as HTML). The box carries
 * data-node-id, data-order-index, data-selected, data-match and data-cf; a click on it is read
 * from those by the graph (one pointer handler for the pane, so a drag never selects).
 */
export const GraphNode = memo(function GraphNode({ node: n, look }: { node: GraphNodeLite; look: GraphNodeLook }) {
  const bad = isFailedStatus(n.status);
  const { selected: sel, match, cf } = look;
  return (
    <div
      data-testid="graph-node"
      data-node-id={n.id}
      data-order-index={n.orderIndex}
      data-type={n.type}
      data-selected={sel || undefined}
      data-match={match || undefined}
      data-cf={cf !== undefined ? cf.toFixed(3) : undefined}
      title={`${n.id} · ${n.type}${n.agent ? " · " + n.agent : ""}${n.status ? " · " + n.status : ""}`}
      className="absolute cursor-pointer overflow-hidden rounded-md border-2 px-2 py-1 text-[11px] leading-tight shadow-sm"
      style={{
        left: 0,
        top: 0,
        width: NODE_W,
        height: NODE_H,
        transform: `translate(${look.left}px, ${look.top}px) scale(${look.zoom})`,
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
      <span className="absolute inset-y-0 left-0 w-1.5" style={{ background: look.agentColor }} aria-hidden />
      <div className="flex items-center justify-between gap-1 pl-1">
        <span className="font-semibold text-slate-700">{n.type}</span>
        <span className="flex items-center gap-1 text-slate-400">
          <ImportWarningBadge warnings={n.warnings} />
          {bad ? <span className="rounded bg-red-600 px-1 text-[10px] font-bold text-white">{n.status}</span> : null}#{n.orderIndex}
        </span>
      </div>
      {/* elementtiming: the browser reports when this text is first painted (Element Timing API;
          the benchmark's "first node painted", server-rendered or not) */}
      <div className="truncate pl-1 text-slate-800" {...ELEMENT_TIMING}>
        {n.label ?? n.id}
      </div>
      <div className="flex items-center gap-1 truncate pl-1 font-mono text-[10px] text-slate-400">
        {look.marks?.map((m) => (
          <span key={m} className="rounded bg-indigo-600 px-1 font-sans font-semibold text-white" data-mark={m}>
            {m}
          </span>
        ))}
        {n.id}
      </div>
      {look.hidden && look.hidden.out + look.hidden.in > 0 ? <HiddenEdges {...look.hidden} /> : null}
    </div>
  );
}, sameLook);

/** Memo: a node re-renders only when its data or its look changed (not on every pan frame's new object). */
function sameLook(a: { node: GraphNodeLite; look: GraphNodeLook }, b: { node: GraphNodeLite; look: GraphNodeLook }): boolean {
  const x = a.look;
  const y = b.look;
  return (
    a.node === b.node &&
    x.left === y.left &&
    x.top === y.top &&
    x.zoom === y.zoom &&
    x.agentColor === y.agentColor &&
    x.selected === y.selected &&
    x.match === y.match &&
    x.cf === y.cf &&
    x.marks === y.marks &&
    x.hidden?.out === y.hidden?.out &&
    x.hidden?.in === y.hidden?.in
  );
}

/** "+1,988 out · +3 in edges": edges of a node left undrawn. */
function HiddenEdges({ out, in: inn }: { out: number; in: number }) {
  const parts = [out > 0 ? `+${out.toLocaleString("en")} out` : null, inn > 0 ? `+${inn.toLocaleString("en")} in` : null].filter(Boolean);
  return (
    <span
      className="absolute right-1 bottom-0.5 rounded bg-slate-700 px-1 text-[10px] font-semibold text-white"
      data-testid="hidden-edges"
      title={`${out + inn} edges not drawn: their other ends are off screen or outside the laid-out window`}
    >
      {parts.join(" · ")} edges
    </span>
  );
}
