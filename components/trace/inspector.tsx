"use client";

import { ReactFlowProvider } from "@xyflow/react";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { caseHref } from "@/lib/case-links";
import { adjacency, ELK_MAX_NODES, laneLayout, NO_AGENT, type GraphEdgeLite, type GraphNodeLite } from "@/lib/layout";
import { TraceGraph } from "@/components/graph/trace-graph";
import { useElkLayout } from "@/components/graph/use-elk-layout";
import { KeyboardHelp } from "./keyboard-help";
import { NodePanel } from "./node-panel";
import { SymptomRules } from "./symptom-rules";
import type { SymptomLayer } from "@/lib/symptoms";
import { Timeline } from "./timeline";

/**
 * The trace inspector: event-dependency graph, timeline (observed order) and node detail, with
 * one shared selection (kept in the URL as ?node=), text search and keyboard navigation.
 */
export interface SideTab {
  id: string;
  label: string;
  render: (ctx: { selectedId: string | null; selectedNode: GraphNodeLite | null; select: (id: string) => void }) => React.ReactNode;
}

export function Inspector({
  bundleId,
  nodes,
  edges,
  initialNodeId,
  sideTabs = [],
  marks,
  onQuote,
  evidence,
  onReplay,
  defaultTab = "node",
  symptoms,
}: {
  bundleId: string;
  nodes: GraphNodeLite[];
  edges: GraphEdgeLite[];
  initialNodeId: string | null;
  /** Extra tabs beside "Node" in the right panel (annotation, adjudication). */
  sideTabs?: SideTab[];
  /** Short badges per node id (e.g. which annotators chose it), shown in graph and timeline. */
  marks?: Map<string, string[]>;
  /** When set, the node panel offers "Quote selection as evidence". */
  onQuote?: (nodeId: string, quote: string) => void;
  /** The annotation's evidence quotes: marked in the node content, duplicates refused when quoting. */
  evidence?: Array<{ nodeId: string; quote: string }>;
  /** When set, the node panel offers "Replay from here". */
  onReplay?: (nodeId: string) => void;
  /** The side tab open at first ("node" unless given). */
  defaultTab?: string;
  /** The symptom layer, when the server sent it to this viewer (lib/services symptomLayerFor); enables the "Symptoms" toggle. */
  symptoms?: SymptomLayer | null;
}) {
  const caseKey = encodeURIComponent(bundleId);
  // The URL's ?node= (kept current by select() through history.replaceState) wins over the server's
  // initial node: a remount after a refresh (e.g. the workbench after submitting) keeps the selection.
  const urlNode = useSearchParams().get("node");
  const [selectedId, setSelectedId] = useState<string | null>(() =>
    urlNode && nodes.some((n) => n.id === urlNode) ? urlNode : (initialNodeId ?? nodes[0]?.id ?? null),
  );
  const [query, setQuery] = useState("");
  // Search results and the query they answer (results of an older query are never used).
  const [found, setFound] = useState<{ q: string; ids: string[] }>({ q: "", ids: [] });
  // Enter pressed before the current query's results arrived: jump when they do (+1 / -1).
  const pendingJump = useRef(0);
  // The query of the last Enter: the first Enter on a new query goes to its first match, later ones cycle.
  const enterQuery = useRef("");
  const [searching, setSearching] = useState(false);
  const [help, setHelp] = useState(false);
  const [mode, setMode] = useState<"lanes" | "layered">("lanes");
  const [fitSignal, setFitSignal] = useState(0);
  const [centreSignal, setCentreSignal] = useState(0);
  const [tab, setTab] = useState<string>(defaultTab);
  const [showSymptoms, setShowSymptoms] = useState(false);
  const symptomCf = useMemo(() => (showSymptoms && symptoms ? new Map(symptoms.nodes.map((n) => [n.id, n.cf])) : undefined), [showSymptoms, symptoms]);
  const shownMarks = useMemo(() => {
    const anchor = symptoms?.anchor ?? symptoms?.anchorNode;
    if (!showSymptoms || !anchor) return marks;
    const m = new Map(marks ?? []);
    m.set(anchor, [...(m.get(anchor) ?? []), "anchor"]);
    return m;
  }, [showSymptoms, symptoms, marks]);
  const searchRef = useRef<HTMLInputElement>(null);
  // A link elsewhere on the page (e.g. a reference label's node) changes ?node= by soft
  // navigation: follow it (adjusting state during render, not in an effect).
  const [lastUrlNode, setLastUrlNode] = useState(urlNode);
  if (urlNode !== lastUrlNode) {
    setLastUrlNode(urlNode);
    if (urlNode && urlNode !== selectedId && nodes.some((n) => n.id === urlNode)) setSelectedId(urlNode);
  }

  const agents = useMemo(() => [...new Set(nodes.map((n) => n.agent).filter((a): a is string => !!a))], [nodes]);
  const lanes = useMemo(() => laneLayout(nodes), [nodes]);
  const canElk = nodes.length <= ELK_MAX_NODES;
  const elk = useElkLayout(nodes, edges, mode === "layered" && canElk);
  const layout = mode === "layered" && elk.layout ? elk.layout : lanes;
  const adj = useMemo(() => adjacency(edges), [edges]);
  const indexOf = useMemo(() => new Map(nodes.map((n, i) => [n.id, i])), [nodes]);
  const activeMatches = useMemo(() => (query.trim() && found.q === query.trim() ? found.ids : []), [query, found]);
  const matchSet = useMemo(() => new Set(activeMatches), [activeMatches]);

  useEffect(() => {
    (window as unknown as { __symtraceLayoutMs?: number }).__symtraceLayoutMs = lanes.ms;
  }, [lanes]);

  const select = useCallback(
    (id: string) => {
      setSelectedId(id);
      window.history.replaceState(window.history.state, "", caseHref(bundleId, id));
    },
    [bundleId],
  );

  // Text search inside the trace (server side: node content can be megabytes).
  useEffect(() => {
    const q = query.trim();
    if (!q) return;
    const ctl = new AbortController();
    const t = setTimeout(() => {
      setSearching(true);
      fetch(`/api/cases/${caseKey}/search?q=${encodeURIComponent(q)}`, { signal: ctl.signal })
        .then((r) => r.json() as Promise<{ nodeIds?: string[] }>)
        .then((r) => {
          if (!r.nodeIds?.length) pendingJump.current = 0;
          setFound({ q, ids: r.nodeIds ?? [] });
        })
        .catch(() => {})
        .finally(() => setSearching(false));
    }, 200);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [query, caseKey]);

  const step = useCallback(
    (delta: number) => {
      const i = selectedId ? (indexOf.get(selectedId) ?? -1) : -1;
      const next = nodes[Math.min(nodes.length - 1, Math.max(0, i + delta))];
      if (next) select(next.id);
    },
    [selectedId, indexOf, nodes, select],
  );
  const walk = useCallback(
    (dir: "parent" | "child") => {
      if (!selectedId) return;
      const idx = (dir === "parent" ? adj.incoming : adj.outgoing).get(selectedId) ?? [];
      const e = edges[idx[0]];
      if (e) select(dir === "parent" ? e.from : e.to);
    },
    [selectedId, adj, edges, select],
  );
  const jumpMatch = useCallback(
    (delta: number, fromStart = false) => {
      if (activeMatches.length === 0) return;
      const ordered = activeMatches.map((id) => indexOf.get(id) ?? 0).sort((a, b) => a - b);
      // fromStart (the first Enter on a new query): the first match (Shift: the last), else the next after the selection.
      const cur = fromStart ? (delta > 0 ? -1 : nodes.length) : selectedId ? (indexOf.get(selectedId) ?? -1) : -1;
      let target: number;
      if (delta > 0) target = ordered.find((i) => i > cur) ?? ordered[0];
      else target = [...ordered].reverse().find((i) => i < cur) ?? ordered[ordered.length - 1];
      select(nodes[target].id);
    },
    [activeMatches, selectedId, indexOf, nodes, select],
  );
  // Enter pressed while the results were on their way: jump once they are in.
  useEffect(() => {
    if (pendingJump.current === 0 || activeMatches.length === 0) return;
    const d = pendingJump.current;
    pendingJump.current = 0;
    jumpMatch(d, true);
  }, [activeMatches, jumpMatch]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      const typing = !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
      if (e.key === "Escape") {
        setHelp(false);
        if (typing) el?.blur();
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
      const handlers: Record<string, () => void> = {
        j: () => step(1),
        ArrowDown: () => step(1),
        k: () => step(-1),
        ArrowUp: () => step(-1),
        p: () => walk("parent"),
        c: () => walk("child"),
        "/": () => searchRef.current?.focus(),
        n: () => jumpMatch(1),
        N: () => jumpMatch(-1),
        f: () => setFitSignal((s) => s + 1),
        ".": () => setCentreSignal((s) => s + 1),
        "?": () => setHelp((h) => !h),
        "]": () => (document.querySelector("[data-queue-next]") as HTMLAnchorElement | null)?.click(),
        "[": () => (document.querySelector("[data-queue-prev]") as HTMLAnchorElement | null)?.click(),
      };
      const h = handlers[e.key];
      if (h) {
        e.preventDefault();
        h();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, walk, jumpMatch]);

  return (
    <section className="flex h-[calc(100vh-4rem)] min-h-[32rem] flex-col rounded border border-slate-200 bg-white" aria-label="Trace inspector" data-testid="inspector">
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 text-sm">
        <label className="flex items-center gap-2">
          <span className="sr-only">Search in this trace</span>
          <input
            ref={searchRef}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                const d = e.shiftKey ? -1 : 1;
                const q = query.trim();
                const fresh = q !== enterQuery.current;
                enterQuery.current = q;
                if (q && found.q !== q) pendingJump.current = d;
                else jumpMatch(d, fresh);
              }
            }}
            placeholder="Search this trace  ( / )"
            className="w-64 rounded border border-slate-300 px-2 py-1"
            aria-label="Search in this trace"
          />
        </label>
        <span className="text-xs text-slate-600" data-testid="match-count" aria-live="polite">
          {query.trim() ? (searching ? "searching…" : `${activeMatches.length} match${activeMatches.length === 1 ? "" : "es"}`) : ""}
        </span>
        {activeMatches.length > 0 ? (
          <>
            <button type="button" className="rounded border px-2 py-0.5 text-xs" onClick={() => jumpMatch(-1)} aria-label="Previous match">
              ↑
            </button>
            <button type="button" className="rounded border px-2 py-0.5 text-xs" onClick={() => jumpMatch(1)} aria-label="Next match">
              ↓
            </button>
          </>
        ) : null}
        <span className="ml-auto flex items-center gap-2">
          <label className="flex items-center gap-1 text-xs text-slate-600">
            Layout
            <select
              value={mode}
              onChange={(e) => setMode(e.target.value as "lanes" | "layered")}
              className="rounded border border-slate-300 px-1 py-0.5 text-xs"
              aria-label="Graph layout"
            >
              <option value="lanes">Agent lanes (observed order)</option>
              <option value="layered" disabled={!canElk}>
                Layered (ELK){canElk ? "" : ` — over ${ELK_MAX_NODES} nodes`}
              </option>
            </select>
          </label>
          {mode === "layered" && !elk.layout && !elk.error ? <span className="text-xs text-slate-500">laying out…</span> : null}
          {elk.error ? <span className="text-xs text-red-700">ELK: {elk.error}</span> : null}
          {symptoms ? (
            <button
              type="button"
              aria-pressed={showSymptoms}
              data-testid="symptoms-toggle"
              title={`Colour nodes by c_f and mark the intervention anchor (${symptoms.mode})`}
              className={`rounded border px-2 py-0.5 text-xs ${showSymptoms ? "border-red-600 bg-red-50 text-red-800" : ""}`}
              onClick={() => setShowSymptoms((x) => !x)}
            >
              Symptoms
            </button>
          ) : null}
          <button type="button" className="rounded border px-2 py-0.5 text-xs" onClick={() => setFitSignal((s) => s + 1)}>
            Fit (f)
          </button>
          <button type="button" className="rounded border px-2 py-0.5 text-xs" onClick={() => setHelp(true)} aria-label="Keyboard shortcuts">
            ?
          </button>
        </span>
      </div>
      <div className="grid min-h-0 flex-1 grid-cols-[20rem_minmax(0,1fr)_26rem]">
        <div className="min-h-0 border-r border-slate-200">
          <Timeline nodes={nodes} selectedId={selectedId} matches={matchSet} onSelect={select} marks={shownMarks} />
        </div>
        <div className="min-h-0">
          <ReactFlowProvider>
            <TraceGraph
              nodes={nodes}
              edges={edges}
              layout={layout}
              agents={agents.length ? agents : [NO_AGENT]}
              selectedId={selectedId}
              matches={matchSet}
              onSelect={select}
              fitSignal={fitSignal}
              centreSignal={centreSignal}
              marks={shownMarks}
              symptomCf={symptomCf}
            />
          </ReactFlowProvider>
        </div>
        <div className="flex min-h-0 flex-col border-l border-slate-200">
          {sideTabs.length ? (
            <div role="tablist" aria-label="Side panel" className="flex border-b border-slate-200 text-xs">
              {[{ id: "node", label: "Node" }, ...sideTabs].map((t) => (
                <button
                  key={t.id}
                  role="tab"
                  type="button"
                  data-tab-id={t.id}
                  aria-selected={tab === t.id}
                  onClick={() => setTab(t.id)}
                  className={`px-3 py-2 font-medium ${tab === t.id ? "border-b-2 border-blue-600 text-blue-700" : "text-slate-600 hover:text-slate-900"}`}
                >
                  {t.label}
                </button>
              ))}
            </div>
          ) : null}
          <div className="min-h-0 flex-1 overflow-auto">
            {tab === "node" || !sideTabs.some((t) => t.id === tab) ? (
              selectedId ? (
                <>
                  <NodePanel caseKey={caseKey} nodeId={selectedId} onSelect={select} onQuote={onQuote} evidence={evidence} onReplay={onReplay} highlight={activeMatches.length ? query : undefined} />
                  {showSymptoms && symptoms ? <SymptomRules layer={symptoms} nodeId={selectedId} onSelect={select} /> : null}
                </>
              ) : (
                <p className="p-4 text-sm text-slate-500">Select a node.</p>
              )
            ) : (
              sideTabs.find((t) => t.id === tab)!.render({ selectedId, selectedNode: selectedId ? (nodes[indexOf.get(selectedId) ?? -1] ?? null) : null, select })
            )}
          </div>
        </div>
      </div>
      {help ? <KeyboardHelp onClose={() => setHelp(false)} /> : null}
    </section>
  );
}
