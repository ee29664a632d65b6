"use client";

import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import { isFailedStatus } from "@/lib/bundle/schema";
import { memo } from "react";
import { ImportWarningBadge } from "@/components/trace/import-warning-badge";

export type TraceNodeData = {
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
  orderIndex: number;
  isMatch: boolean;
  agentColor: string;
  marks?: string[];
  /** Import warnings marked on the node (lib/layout nodeImportWarningsOf), shown as a badge. */
  warnings?: string[];
  /** Symptom layer (issue 12): c_f ∈ [0, 1] of a node where a rule fired; undefined otherwise or when the layer is off. */
  cf?: number;
  /** Edges of this node not drawn (windowed out: their other end is off screen). */
  hiddenEdges?: { out: number; in: number };
};
export type TraceFlowNode = Node<TraceNodeData, "trace">;

const TYPE_STYLE: Record<string, string> = {
  agent_action: "border-blue-400 bg-blue-50",
  llm_call: "border-violet-400 bg-violet-50",
  tool_call: "border-amber-400 bg-amber-50",
  tool_result: "border-emerald-400 bg-emerald-50",
  message: "border-slate-300 bg-white",
  final_result: "border-rose-500 bg-rose-50",
};

/** One event of the graph: type colour, agent stripe, short label, failed/errored mark. */
export const TraceNode = memo(function TraceNode({ id, data, selected }: NodeProps<TraceFlowNode>) {
  const bad = isFailedStatus(data.status);
  return (
    <div
      className={`relative h-14 w-60 overflow-hidden rounded-md border-2 px-2 py-1 text-[11px] leading-tight shadow-sm ${TYPE_STYLE[data.type] ?? "border-slate-300 bg-white"} ${
        selected ? "ring-4 ring-blue-500" : data.isMatch ? "ring-4 ring-amber-400" : ""
      } ${bad ? "outline-2 outline-offset-2 outline-red-600" : ""}`}
      data-type={data.type}
      data-match={data.isMatch || undefined}
      data-cf={data.cf !== undefined ? data.cf.toFixed(3) : undefined}
      style={data.cf !== undefined ? { boxShadow: `0 0 0 ${2 + Math.round(data.cf * 6)}px rgba(220, 38, 38, ${(0.25 + 0.75 * data.cf).toFixed(2)})` } : undefined}
      title={`${id} · ${data.type}${data.agent ? " · " + data.agent : ""}${data.status ? " · " + data.status : ""}`}
    >
      <Handle type="target" position={Position.Top} className="!h-1.5 !w-1.5 !border-0 !bg-slate-400" />
      <span className="absolute inset-y-0 left-0 w-1.5" style={{ background: data.agentColor }} aria-hidden />
      <div className="flex items-center justify-between gap-1 pl-1">
        <span className="font-semibold text-slate-700">{data.type}</span>
        <span className="flex items-center gap-1 text-slate-400">
          <ImportWarningBadge warnings={data.warnings} />
          {bad ? <span className="rounded bg-red-600 px-1 text-[10px] font-bold text-white">{data.status}</span> : null}#{data.orderIndex}
        </span>
      </div>
      <div className="truncate pl-1 text-slate-800">{data.label ?? id}</div>
      <div className="flex items-center gap-1 truncate pl-1 font-mono text-[10px] text-slate-400">
        {data.marks?.map((m) => (
          <span key={m} className="rounded bg-indigo-600 px-1 font-sans font-semibold text-white" data-mark={m}>
            {m}
          </span>
        ))}
        {id}
      </div>
      {data.hiddenEdges ? <HiddenEdges {...data.hiddenEdges} /> : null}
      <Handle type="source" position={Position.Bottom} className="!h-1.5 !w-1.5 !border-0 !bg-slate-400" />
    </div>
  );
});

/** "+1,988 out · +3 in": edges of a node left undrawn because their other end is off screen. */
function HiddenEdges({ out, in: inn }: { out: number; in: number }) {
  const parts = [out > 0 ? `+${out.toLocaleString("en")} out` : null, inn > 0 ? `+${inn.toLocaleString("en")} in` : null].filter(Boolean);
  return (
    <span
      className="absolute right-1 bottom-0.5 rounded bg-slate-700 px-1 text-[10px] font-semibold text-white"
      data-testid="hidden-edges"
      title={`${out + inn} edges not drawn: their other ends are off screen (scroll to see them)`}
    >
      {parts.join(" · ")} edges
    </span>
  );
}

export const nodeTypes = { trace: TraceNode };

const PALETTE = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f", "#9333ea", "#0f766e"];

/** A stable colour per agent. */
export function agentColor(agent: string | null, agents: string[]): string {
  const i = agent ? agents.indexOf(agent) : -1;
  return i < 0 ? "#94a3b8" : PALETTE[i % PALETTE.length];
}
