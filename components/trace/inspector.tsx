"use client";

import dynamic from "next/dynamic";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { caseHref } from "@/lib/case-links";
import { BLOCK_ROWS, ELK_MAX_NODES, type GraphEdgeLite, type GraphNodeLite } from "@/lib/layout";
import type { SymptomLayer } from "@/lib/symptoms";
import type { WindowedSymptoms } from "@/lib/services/symptoms-case";
import { TraceGraph } from "@/components/graph/trace-graph";
import { useLayeredWindow } from "@/components/graph/use-layered-window";
import { KeyboardHelp } from "./keyboard-help";
import { matchIndex, NodeSymptoms, SearchBar, SidePanel, useInspectorKeys, useTraceSearch, withAnchorMark, type Found, type SideTab } from "./inspector-parts";
import { SymptomRules } from "./symptom-rules";
// Code-split (issue 25 item 2): the timeline's chunk loads beside the graph's and hydrates on its own,
// so the first window's graph does not wait for it. elkjs is only in its worker's chunk (use-elk-layout.ts).
const Timeline = dynamic(() => import("./timeline").then((m) => m.Timeline));
const WindowedTimeline = dynamic(() => import("./timeline").then((m) => m.WindowedTimeline));
import { useTraceWindows, type BigTraceProps } from "./use-trace-windows";

export type { SideTab } from "./inspector-parts";
export type { BigTraceProps } from "./use-trace-windows";

type Selection = { id: string; orderIndex: number } | null;
type FetchedSymptoms = { status: "loading" } | { status: "error"; message: string } | { status: "ok"; layer: WindowedSymptoms } | null;

/**
 * The trace inspector, one for every size: event-dependency graph, timeline (observed order) and
 * node detail, with one shared selection (kept in the URL as ?node=), text search (server side)
 * and keyboard navigation (keyboard-help.tsx).
 *
 * A trace is a set of windows of its observed order (use-trace-windows.ts). A small one is one
 * window: `nodes`/`edges` hold all of it. A large one (`big`, issue 16 item 4) is fetched in
 * windows of 200 rows around the viewport, with a canvas overview when zoomed out; its "Symptoms"
 * toggle fetches the layer of the whole case once (/symptoms) instead of receiving it. Selection,
 * search, deep links, j/k, p/c, n/N and the panel's links go through the windows either way (the
 * window holding a target is fetched first when needed), and one graph draws both
 * (components/graph/trace-graph.tsx): agent lanes, or the ELK layered layout of one window of at
 * most ELK_MAX_NODES rows (the whole trace, or the rows around the selection).
 */
export function Inspector({
  bundleId,
  nodes = [],
  edges = [],
  initialNodeId = null,
  big = null,
  sideTabs = [],
  marks,
  onQuote,
  evidence,
  onReplay,
  defaultTab = "node",
  symptoms,
}: {
  bundleId: string;
  /** A trace that is one window: every node, in observed order. */
  nodes?: GraphNodeLite[];
  edges?: GraphEdgeLite[];
  initialNodeId?: string | null;
  /** A trace seen through windows (then `nodes`/`edges` are not used). */
  big?: BigTraceProps | null;
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
  /** One window: the symptom layer, when the server sent it to this viewer (lib/services symptomLayerFor); enables the "Symptoms" toggle. */
  symptoms?: SymptomLayer | null;
}) {
  const caseKey = encodeURIComponent(bundleId);
  const windowed = big !== null;
  // ---- the trace as windows (a small trace: one window holding every row)
  const win = useTraceWindows(caseKey, big, nodes, edges);
  const count = win.count;

  // The URL's ?node= (kept current by select() through history.replaceState) wins over the server's
  // initial node: a remount after a refresh (e.g. the workbench after submitting) keeps the selection.
  const urlNode = useSearchParams().get("node");
  const [selected, setSelected] = useState<Selection>(() => {
    if (big) return big.initial;
    const byId = (id: string | null) => (id ? nodes.find((n) => n.id === id) : undefined);
    const n = byId(urlNode) ?? byId(initialNodeId) ?? nodes[0];
    return n ? { id: n.id, orderIndex: n.orderIndex } : null;
  });
  const select = useCallback(
    (id: string, orderIndex: number) => {
      setSelected({ id, orderIndex });
      window.history.replaceState(window.history.state, "", caseHref(bundleId, id));
    },
    [bundleId],
  );
  /** Select the node at a row (its window fetched first when needed). */
  const selectRow = useCallback(
    async (row: number) => {
      if (row < 0 || row >= count) return;
      const b = await win.loadBlock(Math.floor(row / BLOCK_ROWS));
      const n = b.nodes[row - b.from];
      if (n) select(n.id, n.orderIndex);
    },
    [count, win, select],
  );
  /** Select a node by id (its position asked from the server when no loaded window holds it). */
  const selectId = useCallback(
    async (id: string) => {
      const n = win.findLoaded(id);
      if (n) return select(n.id, n.orderIndex);
      if (!windowed) return;
      const r = await fetch(`/api/cases/${caseKey}/graph/locate?node=${encodeURIComponent(id)}`);
      if (!r.ok) return;
      const { orderIndex } = (await r.json()) as { orderIndex: number };
      await win.loadBlock(Math.floor(orderIndex / BLOCK_ROWS));
      select(id, orderIndex);
    },
    [windowed, win, caseKey, select],
  );

  // A link elsewhere on the page (e.g. a reference label's node) changes ?node= by soft navigation: follow it.
  const lastUrl = useRef(urlNode);
  useEffect(() => {
    if (urlNode === lastUrl.current) return;
    lastUrl.current = urlNode;
    if (urlNode && urlNode !== selected?.id) requestAnimationFrame(() => void selectId(urlNode));
  }, [urlNode, selected?.id, selectId]);
  // A node chosen in a panel (parents/children, annotation links): selected once its window is known.
  const [wanted, setWanted] = useState<{ id: string } | null>(null);
  const panelSelect = useCallback((id: string) => setWanted({ id }), []);
  useEffect(() => {
    if (wanted) requestAnimationFrame(() => void selectId(wanted.id));
  }, [wanted]); // eslint-disable-line react-hooks/exhaustive-deps

  // ---- search
  const rowOf = useCallback((id: string) => win.findLoaded(id)?.orderIndex, [win]);
  const jumpIn = useCallback(
    (m: Found, delta: number, fromStart: boolean) => {
      const cur = fromStart ? (delta > 0 ? -1 : count) : (selected?.orderIndex ?? -1);
      const k = matchIndex(m.pos, cur, delta);
      if (k < 0) return;
      void win.loadBlock(Math.floor(m.pos[k] / BLOCK_ROWS)).then(() => select(m.ids[k], m.pos[k]));
    },
    [count, selected, win, select],
  );
  const search = useTraceSearch(caseKey, rowOf, jumpIn);
  const { active, matchSet } = search;
  const jumpMatch = useCallback((delta: number, fromStart = false) => jumpIn(active, delta, fromStart), [jumpIn, active]);

  const walk = useCallback(
    (dir: "parent" | "child") => {
      if (!selected) return;
      const e = win.firstEdge(selected, dir);
      if (!e) return;
      const [id, row] = dir === "parent" ? [e.from, e.fromIndex] : [e.to, e.toIndex];
      void win.loadBlock(Math.floor(row / BLOCK_ROWS)).then(() => select(id, row));
    },
    [selected, win, select],
  );

  // ---- view state
  const [help, setHelp] = useState(false);
  const [fitSignal, setFitSignal] = useState(0);
  const [centreSignal, setCentreSignal] = useState(0);
  const [tab, setTab] = useState<string>(defaultTab);
  const searchRef = useRef<HTMLInputElement>(null);
  const cur = selected?.orderIndex ?? -1;
  useInspectorKeys({
    step: (d) => void selectRow(d > 0 ? cur + 1 : Math.max(0, cur - 1)),
    walk,
    jumpMatch: (d) => jumpMatch(d),
    focusSearch: () => searchRef.current?.focus(),
    fit: () => setFitSignal((s) => s + 1),
    centre: () => setCentreSignal((s) => s + 1),
    toggleHelp: () => setHelp((h) => !h),
    closeHelp: () => setHelp(false),
  });

  // ---- layout: agent lanes, or ELK layered over one window of at most ELK_MAX_NODES rows
  const [mode, setMode] = useState<"lanes" | "layered">("lanes");
  const elk = useLayeredWindow(win, selected?.orderIndex ?? null, mode === "layered");
  const layered = useMemo(() => (elk.placement && elk.minimap ? { placement: elk.placement, minimap: elk.minimap } : null), [elk.placement, elk.minimap]);

  // ---- symptom layer: given with one window, fetched for windows
  const [showSymptoms, setShowSymptoms] = useState(false);
  const [fetched, setFetched] = useState<FetchedSymptoms>(null);
  const toggleSymptoms = useCallback(() => {
    setShowSymptoms(!showSymptoms);
    if (!windowed || showSymptoms || (fetched && fetched.status !== "error")) return;
    setFetched({ status: "loading" });
    fetch(`/api/cases/${caseKey}/symptoms`)
      .then(async (r) => {
        const body = (await r.json()) as WindowedSymptoms & { error?: string };
        setFetched(r.ok ? { status: "ok", layer: body } : { status: "error", message: body.error ?? `HTTP ${r.status}` });
      })
      .catch((e: Error) => setFetched({ status: "error", message: e.message }));
  }, [showSymptoms, windowed, fetched, caseKey]);
  const layer = windowed && showSymptoms && fetched?.status === "ok" ? fetched.layer : null;
  const given = !windowed && showSymptoms && symptoms ? symptoms : null;
  const symptomCf = useMemo(
    () => (layer ? new Map(layer.ids.map((id, i) => [id, layer.cf[i]])) : given ? new Map(given.nodes.map((n) => [n.id, n.cf])) : undefined),
    [layer, given],
  );
  const shownMarks = useMemo(() => withAnchorMark(marks, layer ? (layer.anchor ?? layer.anchorNode) : given ? (given.anchor ?? given.anchorNode) : null), [marks, layer, given]);
  const symptomsAvailable = windowed ? !!big?.symptomsAvailable : !!symptoms;
  const anchorRow = layer ? (layer.anchorRow ?? layer.anchorNodeRow) : null;

  const selectedNode: GraphNodeLite | null = selected ? (win.getRow(selected.orderIndex) ?? null) : null;
  const symptomRules = !selected ? null : layer ? (
    <NodeSymptoms caseKey={caseKey} nodeId={selected.id} onSelect={panelSelect} />
  ) : given ? (
    <SymptomRules layer={given} nodeId={selected.id} onSelect={panelSelect} />
  ) : null;

  return (
    <section
      className="flex h-[calc(100vh-4rem)] min-h-[32rem] flex-col rounded border border-slate-200 bg-white"
      aria-label="Trace inspector"
      data-testid="inspector"
      data-windowed={windowed ? "true" : undefined}
    >
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 text-sm">
        <SearchBar search={search} jumpMatch={jumpMatch} inputRef={searchRef} />
        <span className="ml-auto flex items-center gap-2 text-xs text-slate-600">
          {windowed ? (
            <span data-testid="windowed-note" title="This trace is shown in windows of the observed order; zoom out for the overview">
              {count.toLocaleString("en")} nodes · windowed
            </span>
          ) : null}
          <label className="flex items-center gap-1 text-xs text-slate-600">
            Layout
            <select
              value={mode}
              onChange={(e) => setMode(e.target.value as "lanes" | "layered")}
              className="rounded border border-slate-300 px-1 py-0.5 text-xs"
              aria-label="Graph layout"
            >
              <option value="lanes">Agent lanes (observed order)</option>
              <option value="layered">{count > ELK_MAX_NODES ? `Layered (ELK), ${ELK_MAX_NODES} rows around the selection` : "Layered (ELK)"}</option>
            </select>
          </label>
          {elk.range && count > ELK_MAX_NODES ? (
            <span data-testid="layered-window">
              rows {elk.range.from.toLocaleString("en")}–{(elk.range.to - 1).toLocaleString("en")}
            </span>
          ) : null}
          {mode === "layered" && !layered && !elk.error ? <span className="text-xs text-slate-500">laying out…</span> : null}
          {elk.error ? <span className="text-xs text-red-700">ELK: {elk.error}</span> : null}
          {symptomsAvailable ? (
            <button
              type="button"
              aria-pressed={showSymptoms}
              data-testid="symptoms-toggle"
              title={`Colour nodes by c_f and mark the intervention anchor (${windowed ? "rules only, whole case" : symptoms?.mode})`}
              className={`rounded border px-2 py-0.5 text-xs ${showSymptoms ? "border-red-600 bg-red-50 text-red-800" : ""}`}
              onClick={toggleSymptoms}
            >
              Symptoms
            </button>
          ) : null}
          {windowed && showSymptoms && fetched?.status === "loading" ? <span data-testid="symptoms-state">computing…</span> : null}
          {windowed && showSymptoms && fetched?.status === "error" ? (
            <span data-testid="symptoms-state" role="alert" className="text-amber-800">
              {fetched.message}
            </span>
          ) : null}
          {layer ? (
            <span data-testid="symptoms-state">
              {layer.ids.length.toLocaleString("en")} flagged
              {anchorRow !== null ? (
                <button type="button" className="ml-1 rounded border px-1 text-xs" data-testid="symptoms-anchor" onClick={() => void selectRow(anchorRow)}>
                  anchor ↦
                </button>
              ) : null}
            </span>
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
          {windowed ? (
            <WindowedTimeline count={count} getRow={win.getRow} needRows={win.needRows} selected={selected} matches={matchSet} onSelect={select} marks={shownMarks} timeZeroNs={big?.timeZeroNs ?? null} />
          ) : (
            <Timeline nodes={nodes} selectedId={selected?.id ?? null} matches={matchSet} onSelect={(id) => void selectId(id)} marks={shownMarks} />
          )}
        </div>
        <div className="min-h-0">
          <TraceGraph
            trace={win}
            layered={mode === "layered" ? layered : null}
            selected={selected}
            matches={matchSet}
            marks={shownMarks}
            symptomCf={symptomCf}
            onSelect={select}
            fitSignal={fitSignal}
            centreSignal={centreSignal}
          />
        </div>
        <SidePanel
          tabs={sideTabs}
          tab={tab}
          setTab={setTab}
          caseKey={caseKey}
          selectedId={selected?.id ?? null}
          selectedNode={selectedNode}
          select={panelSelect}
          onQuote={onQuote}
          evidence={evidence}
          onReplay={onReplay}
          highlight={active.ids.length ? search.query : undefined}
          symptomRules={symptomRules}
        />
      </div>
      {help ? <KeyboardHelp onClose={() => setHelp(false)} /> : null}
    </section>
  );
}
