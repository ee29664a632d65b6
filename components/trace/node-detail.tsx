import Link from "next/link";
import { caseHref } from "@/lib/case-links";
import { Badge, NODE_TYPE_TONE } from "@/components/ui/badge";

export interface NodeDetailView {
  nodeId: string;
  orderIndex: number;
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
  error: unknown;
  content: unknown;
  contentHash: string;
  hashVerifies: boolean;
  records: Array<{ seq: number; boundary: string; request: unknown; requestHash: string; requestHashVerifies: boolean; response: unknown; meta: unknown }>;
  parents: Array<{ nodeId: string; kind: string }>;
  children: Array<{ nodeId: string; kind: string }>;
}

/** Pretty JSON as text (never HTML); long payloads open collapsed. */
function JsonText({ value, title }: { value: unknown; title: string }) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const big = text.length > 20_000;
  return (
    <details open={!big} className="rounded border border-slate-200">
      <summary className="cursor-pointer bg-slate-50 px-2 py-1 text-xs font-medium text-slate-600">
        {title} <span className="text-slate-400">({text.length.toLocaleString("en")} chars)</span>
      </summary>
      <pre className="trace-text max-h-[32rem] overflow-auto p-2 font-mono text-xs" data-testid="node-content">
        {text}
      </pre>
    </details>
  );
}

function NodeLinks({ bundleId, items, label }: { bundleId: string; items: Array<{ nodeId: string; kind: string }>; label: string }) {
  return (
    <div>
      <h4 className="text-xs font-semibold uppercase text-slate-500">{label}</h4>
      {items.length === 0 ? (
        <p className="text-xs text-slate-400">none</p>
      ) : (
        <ul className="mt-1 flex flex-wrap gap-1">
          {items.map((p) => (
            <li key={p.nodeId + p.kind}>
              <Link href={caseHref(bundleId, p.nodeId)} scroll={false} className="font-mono text-xs text-blue-700 underline">
                {p.nodeId}
              </Link>
              <span className="ml-1 text-[10px] text-slate-400">{p.kind}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Everything about one node: content, hash check, boundary records, parents and children. */
export function NodeDetail({ bundleId, node }: { bundleId: string; node: NodeDetailView }) {
  return (
    <div className="flex flex-col gap-3 p-4 text-sm" data-testid="node-detail">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono font-semibold">{node.nodeId}</span>
        <Badge tone={NODE_TYPE_TONE[node.type] ?? "slate"}>{node.type}</Badge>
        {node.agent ? <span className="text-slate-600">{node.agent}</span> : null}
        {node.status ? <Badge tone={node.status === "success" ? "green" : "red"}>{node.status}</Badge> : null}
        <span className="text-xs text-slate-400">#{node.orderIndex} in observed order</span>
      </div>
      {node.label ? <p className="trace-text text-slate-700">{node.label}</p> : null}
      <p className="font-mono text-[11px] break-all text-slate-500">
        {node.contentHash}{" "}
        {node.hashVerifies ? <Badge tone="green">verifies</Badge> : <Badge tone="red">does not verify</Badge>}
      </p>
      {node.error ? <JsonText value={node.error} title="Error" /> : null}
      <JsonText value={node.content} title="Content" />
      <div className="grid grid-cols-2 gap-3">
        <NodeLinks bundleId={bundleId} items={node.parents} label="Parents" />
        <NodeLinks bundleId={bundleId} items={node.children} label="Children" />
      </div>
      {node.records.map((r) => (
        <div key={r.seq} className="flex flex-col gap-2 rounded border border-slate-200 p-2">
          <p className="text-xs text-slate-600">
            Boundary record <span className="font-mono">seq {r.seq}</span> · {r.boundary}{" "}
            {r.requestHashVerifies ? <Badge tone="green">request hash verifies</Badge> : <Badge tone="red">request hash does not verify</Badge>}
          </p>
          <JsonText value={r.request} title="Request" />
          <JsonText value={r.response} title="Response" />
        </div>
      ))}
    </div>
  );
}
