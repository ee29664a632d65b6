"use client";

import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { caseHref } from "@/lib/case-links";
import { BLOCK_ROWS, blocksFor, type GraphNodeLite } from "@/lib/layout";
import { BigGraph, type BigEdge, type BigNode } from "@/components/graph/big-graph";
import type { SymptomLayer } from "@/lib/symptoms";
import type { WindowedSymptoms } from "@/lib/services/symptoms-case";
import { KeyboardHelp } from "./keyboard-help";
import { NodePanel } from "./node-panel";
import type { SideTab } from "./inspector";
import { SymptomRules } from "./symptom-rules";
import { WindowedTimeline } from "./timeline";

/** What the server sends for a large case instead of the whole graph (app/cases page). */
export interface BigTraceProps {
  count: number;
  /** Agents in order of first appearance (null = no agent). */
  lanes: Array<string | null>;
  /** The window around the initial node (rows [from, to)). */
  window: { from: number; to: number; nodes: BigNode[]; edges: BigEdge[] };
  initial: { id: string; orderIndex: number } | null;
  /** Time origin of the timeline's start offsets (ns since the epoch, digits), or null (lib/db getCaseTimeZero). */
  timeZeroNs?: string | null;
  /** The viewer may turn on the symptom layer (fetched from /symptoms on demand; blindness checked on the server). */
  symptomsAvailable?: boolean;
}

interface Block {
  from: number;
  nodes: BigNode[];
  edges: BigEdge[];
}

/** Windows kept in the browser at most (LRU): 60 × 200 rows. */
const MAX_BLOCKS = 60;

/**
 * The inspector for traces too large to send whole (issue 16 item 4): the browser holds windows
 * of 200 rows of the observed order around the viewport (fetched from /graph/window, at most 60
 * kept) and, once zoomed out, the 2-byte-per-node index (/graph/index) for the overview. Search
 * (server side, with positions), deep links (?node=), keyboard walk (j/k, p/c, n/N) and the
 * panel's parent/child links fetch the window holding their target before selecting it.
 * The timeline (left) is the observed order over the same windows (rows scrolled into view are
 * fetched); the "Symptoms" toggle (viewers allowed to see detector output) fetches the layer of
 * the whole case once (/symptoms: ids, rows, c_f, anchor), rings nodes by c_f, marks the anchor,
 * offers a jump to it and shows the selected node's rules under the node panel.
 */
export function BigInspector({
  bundleId,
  big,
  sideTabs = [],
  marks,
  onQuote,
  evidence,
  onReplay,
  defaultTab = "node",
}: {
  bundleId: string;
  big: BigTraceProps;
  sideTabs?: SideTab[];
  marks?: Map<string, string[]>;
  onQuote?: (nodeId: string, quote: string) => void;
  evidence?: Array<{ nodeId: string; quote: string }>;
  onReplay?: (nodeId: string) => void;
  defaultTab?: string;
}) {
  const caseKey = encodeURIComponent(bundleId);
  // Loaded windows (an immutable Map replaced on each arrival; the ref mirrors it for callbacks).
  const [cache, setCache] = useState<Map<number, Block>>(() => initialBlocks(big.window));
  const cacheRef = useRef(cache);
  const inflight = useRef(new Map<number, Promise<Block>>());
  const [selected, setSelected] = useState<{ id: string; orderIndex: number } | null>(big.initial);
  const [index, setIndex] = useState<{ lane: Uint8Array; flags: Uint8Array } | null>(null);
  const indexAsked = useRef(false);
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<{ q: string; ids: string[]; pos: number[] }>({ q: "", ids: [], pos: [] });
  const [searching, setSearching] = useState(false);
  const pendingJump = useRef(0);
  const enterQuery = useRef("");
  const [help, setHelp] = useState(false);
  const [fitSignal, setFitSignal] = useState(0);
  const [centreSignal, setCentreSignal] = useState(0);
  const [tab, setTab] = useState<string>(defaultTab);
  const searchRef = useRef<HTMLInputElement>(null);
  const [showSymptoms, setShowSymptoms] = useState(false);
  const [symptoms, setSymptoms] = useState<{ status: "loading" } | { status: "error"; message: string } | { status: "ok"; layer: WindowedSymptoms } | null>(null);
  const toggleSymptoms = useCallback(() => {
    setShowSymptoms(!showSymptoms);
    if (showSymptoms || (symptoms && symptoms.status !== "error")) return;
    setSymptoms({ status: "loading" });
    fetch(`/api/cases/${caseKey}/symptoms`)
      .then(async (r) => {
        const body = (await r.json()) as WindowedSymptoms & { error?: string };
        setSymptoms(r.ok ? { status: "ok", layer: body } : { status: "error", message: body.error ?? `HTTP ${r.status}` });
      })
      .catch((e: Error) => setSymptoms({ status: "error", message: e.message }));
  }, [showSymptoms, symptoms, caseKey]);
  const layer = showSymptoms && symptoms?.status === "ok" ? symptoms.layer : null;
  const symptomCf = useMemo(() => (layer ? new Map(layer.ids.map((id, i) => [id, layer.cf[i]])) : undefined), [layer]);
  const shownMarks = useMemo(() => {
    const anchor = layer?.anchor ?? layer?.anchorNode;
    if (!anchor) return marks;
    const m = new Map(marks ?? []);
    m.set(anchor, [...(m.get(anchor) ?? []), "anchor"]);
    return m;
  }, [layer, marks]);

  const loadBlock = useCallback(
    (b: number): Promise<Block> => {
      const hit = cacheRef.current.get(b);
      if (hit) return Promise.resolve(hit);
      const running = inflight.current.get(b);
      if (running) return running;
      const from = b * BLOCK_ROWS;
      const p = fetch(`/api/cases/${caseKey}/graph/window?from=${from}&to=${Math.min(big.count, from + BLOCK_ROWS)}`)
        .then((r) => {
          if (!r.ok) throw new Error(`window ${from}: HTTP ${r.status}`);
          return r.json() as Promise<{ nodes: BigNode[]; edges: BigEdge[] }>;
        })
        .then((w) => {
          const blk = { from, nodes: w.nodes, edges: w.edges };
          const m = new Map(cacheRef.current);
          m.set(b, blk);
          while (m.size > MAX_BLOCKS) m.delete(m.keys().next().value as number); // oldest first
          cacheRef.current = m;
          setCache(m);
          return blk;
        })
        .finally(() => inflight.current.delete(b));
      inflight.current.set(b, p);
      return p;
    },
    [caseKey, big.count],
  );

  const getRow = useCallback(
    (row: number): BigNode | undefined => {
      const b = cache.get(Math.floor(row / BLOCK_ROWS));
      return b ? b.nodes[row - b.from] : undefined;
    },
    [cache],
  );
  const edgesIn = useCallback((first: number, last: number): BigEdge[] => {
    const seen = new Set<number>();
    const out: BigEdge[] = [];
    for (const blk of cache.values()) {
      if (blk.from > last + BLOCK_ROWS || blk.from + BLOCK_ROWS < first - BLOCK_ROWS) continue;
      for (const e of blk.edges) {
        if (seen.has(e.idx)) continue;
        const inView = (e.fromIndex >= first && e.fromIndex <= last) || (e.toIndex >= first && e.toIndex <= last);
        if (!inView) continue;
        seen.add(e.idx);
        out.push(e);
      }
    }
    return out;
  }, [cache]);
  const needRows = useCallback(
    (first: number, last: number) => {
      for (const b of blocksFor(first, last, big.count)) if (!cacheRef.current.has(b)) void loadBlock(b).catch(() => {});
    },
    [big.count, loadBlock],
  );
  const needIndex = useCallback(() => {
    if (indexAsked.current) return;
    indexAsked.current = true;
    fetch(`/api/cases/${caseKey}/graph/index`)
      .then((r) => r.arrayBuffer())
      .then((buf) => {
        const n = big.count;
        setIndex({ lane: new Uint8Array(buf, 0, n), flags: new Uint8Array(buf, n, n) });
      })
      .catch(() => {
        indexAsked.current = false;
      });
  }, [caseKey, big.count]);

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
      if (row < 0 || row >= big.count) return;
      const b = await loadBlock(Math.floor(row / BLOCK_ROWS));
      const n = b.nodes[row - b.from];
      if (n) select(n.id, n.orderIndex);
    },
    [big.count, loadBlock, select],
  );
  /** Select a node by id (position asked from the server when not loaded). */
  const selectId = useCallback(
    async (id: string) => {
      for (const blk of cache.values()) {
        const n = blk.nodes.find((x) => x.id === id);
        if (n) return select(n.id, n.orderIndex);
      }
      const r = await fetch(`/api/cases/${caseKey}/graph/locate?node=${encodeURIComponent(id)}`);
      if (!r.ok) return;
      const { orderIndex } = (await r.json()) as { orderIndex: number };
      await loadBlock(Math.floor(orderIndex / BLOCK_ROWS));
      select(id, orderIndex);
    },
    [cache, caseKey, loadBlock, select],
  );

  // ?node= changed by a link elsewhere on the page (soft navigation): follow it.
  const urlNode = useSearchParams().get("node");
  const lastUrlNode = useRef(urlNode);
  useEffect(() => {
    if (urlNode === lastUrlNode.current) return;
    lastUrlNode.current = urlNode;
    if (urlNode && urlNode !== selected?.id) requestAnimationFrame(() => void selectId(urlNode));
  }, [urlNode, selected?.id, selectId]);

  // Search on the server; the answer carries each match's position.
  useEffect(() => {
    const q = query.trim();
    if (!q) return;
    const ctl = new AbortController();
    const t = setTimeout(() => {
      setSearching(true);
      fetch(`/api/cases/${caseKey}/search?q=${encodeURIComponent(q)}`, { signal: ctl.signal })
        .then((r) => r.json() as Promise<{ nodeIds?: string[]; orderIndexes?: number[] }>)
        .then((r) => {
          if (!r.nodeIds?.length) pendingJump.current = 0;
          setFound({ q, ids: r.nodeIds ?? [], pos: r.orderIndexes ?? [] });
        })
        .catch(() => {})
        .finally(() => setSearching(false));
    }, 200);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [query, caseKey]);
  const active = useMemo(() => (query.trim() && found.q === query.trim() ? found : { q: "", ids: [] as string[], pos: [] as number[] }), [query, found]);
  const matchSet = useMemo(() => new Set(active.ids), [active.ids]);

  const jumpMatch = useCallback(
    (delta: number, fromStart = false) => {
      if (active.ids.length === 0) return;
      const cur = fromStart ? (delta > 0 ? -1 : big.count) : (selected?.orderIndex ?? -1);
      let k: number;
      if (delta > 0) {
        k = active.pos.findIndex((p) => p > cur);
        if (k < 0) k = 0;
      } else {
        k = -1;
        for (let i = active.pos.length - 1; i >= 0; i--) if (active.pos[i] < cur) {
          k = i;
          break;
        }
        if (k < 0) k = active.pos.length - 1;
      }
      void loadBlock(Math.floor(active.pos[k] / BLOCK_ROWS)).then(() => select(active.ids[k], active.pos[k]));
    },
    [active, big.count, selected, loadBlock, select],
  );
  useEffect(() => {
    if (pendingJump.current === 0 || active.ids.length === 0) return;
    const d = pendingJump.current;
    pendingJump.current = 0;
    jumpMatch(d, true);
  }, [active, jumpMatch]);

  const walk = useCallback(
    (dir: "parent" | "child") => {
      if (!selected) return;
      const b = cacheRef.current.get(Math.floor(selected.orderIndex / BLOCK_ROWS));
      const e = (b?.edges ?? []).filter((x) => (dir === "parent" ? x.to === selected.id : x.from === selected.id)).sort((x, y) => x.idx - y.idx)[0];
      if (!e) return;
      const [id, row] = dir === "parent" ? [e.from, e.fromIndex] : [e.to, e.toIndex];
      void loadBlock(Math.floor(row / BLOCK_ROWS)).then(() => select(id, row));
    },
    [selected, loadBlock, select],
  );

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
      const cur = selected?.orderIndex ?? -1;
      const handlers: Record<string, () => void> = {
        j: () => void selectRow(cur + 1),
        ArrowDown: () => void selectRow(cur + 1),
        k: () => void selectRow(Math.max(0, cur - 1)),
        ArrowUp: () => void selectRow(Math.max(0, cur - 1)),
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
  }, [selected, selectRow, walk, jumpMatch]);

  const selectedNode: GraphNodeLite | null = selected ? (getRow(selected.orderIndex) ?? null) : null;
  // A node chosen in a panel (parents/children, annotation links): selected once its window is known.
  const [wanted, setWanted] = useState<{ id: string } | null>(null);
  const panelSelect = useCallback((id: string) => setWanted({ id }), []);
  useEffect(() => {
    if (wanted) requestAnimationFrame(() => void selectId(wanted.id));
  }, [wanted]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <section className="flex h-[calc(100vh-4rem)] min-h-[32rem] flex-col rounded border border-slate-200 bg-white" aria-label="Trace inspector" data-testid="inspector" data-windowed="true">
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 text-sm">
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
        <span className="text-xs text-slate-600" data-testid="match-count" aria-live="polite">
          {query.trim() ? (searching ? "searching…" : `${active.ids.length} match${active.ids.length === 1 ? "" : "es"}`) : ""}
        </span>
        {active.ids.length > 0 ? (
          <>
            <button type="button" className="rounded border px-2 py-0.5 text-xs" onClick={() => jumpMatch(-1)} aria-label="Previous match">
              ↑
            </button>
            <button type="button" className="rounded border px-2 py-0.5 text-xs" onClick={() => jumpMatch(1)} aria-label="Next match">
              ↓
            </button>
          </>
        ) : null}
        <span className="ml-auto flex items-center gap-2 text-xs text-slate-600">
          <span data-testid="windowed-note" title="This trace is shown in windows of the observed order; zoom out for the overview">
            {big.count.toLocaleString("en")} nodes · windowed
          </span>
          {big.symptomsAvailable ? (
            <>
              <button
                type="button"
                aria-pressed={showSymptoms}
                data-testid="symptoms-toggle"
                title="Colour nodes by c_f and mark the intervention anchor (rules only, whole case)"
                className={`rounded border px-2 py-0.5 text-xs ${showSymptoms ? "border-red-600 bg-red-50 text-red-800" : ""}`}
                onClick={toggleSymptoms}
              >
                Symptoms
              </button>
              {showSymptoms && symptoms?.status === "loading" ? <span data-testid="symptoms-state">computing…</span> : null}
              {showSymptoms && symptoms?.status === "error" ? (
                <span data-testid="symptoms-state" role="alert" className="text-amber-800">
                  {symptoms.message}
                </span>
              ) : null}
              {layer ? (
                <span data-testid="symptoms-state">
                  {layer.ids.length.toLocaleString("en")} flagged
                  {(layer.anchorRow ?? layer.anchorNodeRow) !== null ? (
                    <button type="button" className="ml-1 rounded border px-1 text-xs" data-testid="symptoms-anchor" onClick={() => void selectRow((layer.anchorRow ?? layer.anchorNodeRow) as number)}>
                      anchor ↦
                    </button>
                  ) : null}
                </span>
              ) : null}
            </>
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
          <WindowedTimeline count={big.count} getRow={getRow} needRows={needRows} selected={selected} matches={matchSet} onSelect={select} marks={shownMarks} timeZeroNs={big.timeZeroNs ?? null} />
        </div>
        <div className="min-h-0">
          <BigGraph
            count={big.count}
            lanes={big.lanes}
            getRow={getRow}
            edgesIn={edgesIn}
            needRows={needRows}
            index={index}
            needIndex={needIndex}
            selected={selected}
            matches={matchSet}
            marks={shownMarks}
            symptomCf={symptomCf}
            onSelect={select}
            fitSignal={fitSignal}
            centreSignal={centreSignal}
          />
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
              selected ? (
                <>
                  <NodePanel caseKey={caseKey} nodeId={selected.id} onSelect={panelSelect} onQuote={onQuote} evidence={evidence} onReplay={onReplay} highlight={active.ids.length ? query : undefined} />
                  {layer ? <NodeSymptoms caseKey={caseKey} nodeId={selected.id} onSelect={panelSelect} /> : null}
                </>
              ) : (
                <p className="p-4 text-sm text-slate-500">Select a node.</p>
              )
            ) : (
              sideTabs.find((t) => t.id === tab)!.render({ selectedId: selected?.id ?? null, selectedNode, select: panelSelect })
            )}
          </div>
        </div>
      </div>
      {help ? <KeyboardHelp onClose={() => setHelp(false)} /> : null}
    </section>
  );
}

/** The server's first window (whole blocks of BLOCK_ROWS rows), split into blocks. */
function initialBlocks(w: BigTraceProps["window"]): Map<number, Block> {
  const m = new Map<number, Block>();
  for (let from = w.from; from < w.to; from += BLOCK_ROWS) {
    const nodes = w.nodes.filter((n) => n.orderIndex >= from && n.orderIndex < from + BLOCK_ROWS);
    const ids = new Set(nodes.map((n) => n.id));
    m.set(Math.floor(from / BLOCK_ROWS), { from, nodes, edges: w.edges.filter((e) => ids.has(e.from) || ids.has(e.to)) });
  }
  return m;
}

/** The selected node's rules and evidence (GET /symptoms?node=), shown as the small inspector's SymptomRules. */
function NodeSymptoms({ caseKey, nodeId, onSelect }: { caseKey: string; nodeId: string; onSelect: (id: string) => void }) {
  const url = `/api/cases/${caseKey}/symptoms?node=${encodeURIComponent(nodeId)}`;
  const [got, setGot] = useState<{ url: string; layer: SymptomLayer } | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    fetch(url, { signal: ctl.signal })
      .then((r) => (r.ok ? (r.json() as Promise<SymptomLayer>) : null))
      .then((layer) => {
        if (layer) setGot({ url, layer });
      })
      .catch(() => {});
    return () => ctl.abort();
  }, [url]);
  return got?.url === url ? <SymptomRules layer={got.layer} nodeId={nodeId} onSelect={onSelect} /> : null;
}
