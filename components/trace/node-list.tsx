import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { Badge, NODE_TYPE_TONE } from "@/components/ui/badge";

export interface NodeListItem {
  nodeId: string;
  orderIndex: number;
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
}

const BAD_STATUS = new Set(["failed", "error", "timeout", "timed_out"]);

/** The nodes in observed order, each a link selecting it. Labels are rendered as text. */
export function NodeList({ bundleId, nodes, selected }: { bundleId: string; nodes: NodeListItem[]; selected?: string }) {
  return (
    <ol className="divide-y divide-slate-100 text-sm" data-testid="node-list" aria-label="Nodes in observed order">
      {nodes.map((n) => {
        const isSelected = n.nodeId === selected;
        return (
          <li key={n.nodeId} data-node-id={n.nodeId} aria-current={isSelected ? "true" : undefined}>
            <Link
              href={caseHref(bundleId, n.nodeId)}
              scroll={false}
              className={`grid grid-cols-[3rem_9rem_8rem_1fr] items-center gap-2 px-3 py-1.5 hover:bg-slate-50 ${isSelected ? "bg-blue-50 ring-1 ring-inset ring-blue-300" : ""}`}
            >
              <span className="text-right text-xs tabular-nums text-slate-400">{n.orderIndex}</span>
              <span className="flex items-center gap-1">
                <Badge tone={NODE_TYPE_TONE[n.type] ?? "slate"}>{n.type}</Badge>
                {n.status && BAD_STATUS.has(n.status) ? <Badge tone="red">{n.status}</Badge> : null}
              </span>
              <span className="truncate text-xs text-slate-600">{n.agent ?? ""}</span>
              <span className="truncate">
                <span className="mr-2 font-mono text-xs text-slate-400">{n.nodeId}</span>
                {n.label ?? ""}
              </span>
            </Link>
          </li>
        );
      })}
    </ol>
  );
}
