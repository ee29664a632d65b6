"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { Badge, NODE_TYPE_TONE } from "@/components/ui/badge";
import type { NodeDetailView } from "./node-types";
import { JsonTree } from "./json-tree";
import { QuoteControl } from "./quote-control";

/** Payloads larger than this (characters of JSON) open fully collapsed. */
const LARGE = 100_000;

type State = { status: "loading" } | { status: "error"; message: string } | { status: "ok"; node: NodeDetailView; size: number };

const NO_EVIDENCE: Array<{ nodeId: string; quote: string }> = [];

const cache = new Map<string, { node: NodeDetailView; size: number }>();

/**
 * The selected node in full: content as a foldable tree, hash check, error, boundary records,
 * parents and children (click to walk). Loads the node on demand from the API. With `onQuote`, offers
 * "Quote selection as evidence" (QuoteControl); the annotation's `evidence` quotes of this node are
 * marked in the content (`[data-evidence-quote]`).
 */
export function NodePanel({
  caseKey,
  nodeId,
  onSelect,
  onQuote,
  onReplay,
  highlight,
  evidence = NO_EVIDENCE,
}: {
  highlight?: string;
  /** The annotation's evidence so far (all nodes): this node's quotes are highlighted; duplicates are refused. */
  evidence?: Array<{ nodeId: string; quote: string }>;
  caseKey: string;
  nodeId: string;
  onSelect: (id: string) => void;
  onQuote?: (nodeId: string, quote: string) => void;
  onReplay?: (nodeId: string) => void;
}) {
  const contentRef = useRef<HTMLDivElement>(null);
  const quotesKey = JSON.stringify(evidence.filter((e) => e.nodeId === nodeId).map((e) => e.quote));
  const quotes = useMemo(() => JSON.parse(quotesKey) as string[], [quotesKey]);
  const url = `/api/cases/${caseKey}/nodes/${encodeURIComponent(nodeId)}`;
  const [fetched, setFetched] = useState<{ url: string; state: State } | null>(null);
  const hit = cache.get(url);
  useEffect(() => {
    if (cache.has(url)) return;
    const ctl = new AbortController();
    fetch(url, { signal: ctl.signal })
      .then(async (r) => {
        const text = await r.text();
        if (!r.ok) throw new Error((JSON.parse(text) as { error?: string }).error ?? `HTTP ${r.status}`);
        const v = { node: JSON.parse(text) as NodeDetailView, size: text.length };
        cache.set(url, v);
        setFetched({ url, state: { status: "ok", ...v } });
      })
      .catch((e: Error) => {
        if (e.name !== "AbortError") setFetched({ url, state: { status: "error", message: e.message } });
      });
    return () => ctl.abort();
  }, [url]);
  const state: State = hit ? { status: "ok", ...hit } : fetched?.url === url ? fetched.state : { status: "loading" };

  if (state.status === "loading") return <p className="p-4 text-sm text-slate-500">Loading {nodeId}…</p>;
  if (state.status === "error") return <p className="p-4 text-sm text-red-700" role="alert">{state.message}</p>;
  const { node, size } = state;
  const depth = size > LARGE ? 0 : 2;
  return (
    <div className="flex flex-col gap-3 p-3 text-sm" data-testid="node-detail" data-node-id={node.nodeId}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono font-semibold break-all">{node.nodeId}</span>
        <Badge tone={NODE_TYPE_TONE[node.type] ?? "slate"}>{node.type}</Badge>
        {node.agent ? <span className="text-slate-600">{node.agent}</span> : null}
        {node.status ? <Badge tone={node.status === "success" ? "green" : "red"}>{node.status}</Badge> : null}
        <span className="text-xs text-slate-400">#{node.orderIndex}</span>
        {onReplay ? (
          <button type="button" onClick={() => onReplay(node.nodeId)} className="ml-auto rounded bg-indigo-700 px-2 py-0.5 text-xs font-medium text-white hover:bg-indigo-600">
            Replay from here
          </button>
        ) : null}
      </div>
      {node.label ? <p className="trace-text text-slate-700">{node.label}</p> : null}
      <p className="font-mono text-[11px] break-all text-slate-500">
        {node.contentHash} {node.hashVerifies ? <Badge tone="green">verifies</Badge> : <Badge tone="red">does not verify</Badge>}
      </p>
      {size > LARGE ? (
        <p className="text-xs text-amber-800">Large node ({Math.round(size / 1024).toLocaleString("en")} KB): opened collapsed.</p>
      ) : null}
      <Walk label="Parents" items={node.parents} onSelect={onSelect} />
      <Walk label="Children" items={node.children} onSelect={onSelect} />
      {node.error ? (
        <Section title="Error">
          <JsonTree value={node.error} expandDepth={2} label="error" />
        </Section>
      ) : null}
      {onQuote ? <QuoteControl key={node.nodeId} nodeId={node.nodeId} content={node.content} evidence={evidence} contentRoot={() => contentRef.current} onQuote={onQuote} /> : null}
      <Section title="Content">
        <div data-testid="node-content" ref={contentRef}>
          <JsonTree value={node.content} expandDepth={depth} label="content" highlight={highlight} quotes={quotes} />
        </div>
      </Section>
      {node.records.map((r) => (
        <Section key={r.seq} title={`Boundary record seq ${r.seq} · ${r.boundary}`}>
          <p className="mb-1 font-mono text-[11px] break-all text-slate-500">
            request {r.requestHash} {r.requestHashVerifies ? <Badge tone="green">verifies</Badge> : <Badge tone="red">does not verify</Badge>}
          </p>
          <JsonTree value={r.request} expandDepth={size > LARGE ? 0 : 1} label="request" />
          <p className="mt-2 text-xs font-semibold text-slate-500">response</p>
          <JsonTree value={r.response} expandDepth={size > LARGE ? 0 : 1} label="response" />
        </Section>
      ))}
    </div>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="rounded border border-slate-200">
      <h4 className="border-b border-slate-100 bg-slate-50 px-2 py-1 text-xs font-semibold text-slate-600">{title}</h4>
      <div className="max-h-[28rem] overflow-auto p-2">{children}</div>
    </section>
  );
}

function Walk({ label, items, onSelect }: { label: string; items: Array<{ nodeId: string; kind: string }>; onSelect: (id: string) => void }) {
  return (
    <div className="flex flex-wrap items-center gap-1 text-xs">
      <span className="w-16 font-semibold uppercase text-slate-500">{label}</span>
      {items.length === 0 ? <span className="text-slate-400">none</span> : null}
      {items.map((p) => (
        <button
          key={p.nodeId + p.kind}
          type="button"
          onClick={() => onSelect(p.nodeId)}
          className="rounded border border-slate-200 px-1.5 py-0.5 font-mono hover:bg-blue-50"
          title={`${p.kind} edge`}
        >
          {p.nodeId}
          <span className={`ml-1 text-[10px] ${p.kind === "data" ? "text-blue-600" : "text-slate-400"}`}>{p.kind}</span>
        </button>
      ))}
    </div>
  );
}
