"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import type { GraphNodeLite } from "@/lib/layout";
import type { SymptomLayer } from "@/lib/symptoms";
import { NodePanel } from "./node-panel";
import { SymptomRules } from "./symptom-rules";

/** A tab of the inspector's right panel beside "Node" (annotation, adjudication, replays). */
export interface SideTab {
  id: string;
  label: string;
  render: (ctx: { selectedId: string | null; selectedNode: GraphNodeLite | null; select: (id: string) => void }) => React.ReactNode;
}

/** Search results and the query they answer, each match with its row in the observed order (ascending). */
export interface Found {
  q: string;
  ids: string[];
  pos: number[];
}

const NONE: Found = { q: "", ids: [], pos: [] };

/**
 * Text search inside a trace (server side: node content can be megabytes), 200 ms after the last
 * keystroke. `rowOf` places a match in the observed order when the server gives no position.
 * Results of an older query are never used (`active` is empty until the current query's arrive).
 * `jump(found, delta, fromStart)` goes to a match: Enter (`onEnter`) on a query whose results are
 * not in yet jumps when they arrive.
 */
export function useTraceSearch(caseKey: string, rowOf: (id: string) => number | undefined, jump: (found: Found, delta: number, fromStart: boolean) => void) {
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<Found>(NONE);
  const [searching, setSearching] = useState(false);
  // Enter pressed before the current query's results arrived: jump when they do (+1 / -1).
  const pendingJump = useRef(0);
  // The query of the last Enter: the first Enter on a new query goes to its first match, later ones cycle.
  const enterQuery = useRef("");
  const rowOfRef = useRef(rowOf);
  const jumpRef = useRef(jump);
  useEffect(() => {
    rowOfRef.current = rowOf;
    jumpRef.current = jump;
  }, [rowOf, jump]);
  useEffect(() => {
    const q = query.trim();
    if (!q) return;
    const ctl = new AbortController();
    const t = setTimeout(() => {
      setSearching(true);
      fetch(`/api/cases/${caseKey}/search?q=${encodeURIComponent(q)}`, { signal: ctl.signal })
        .then((r) => r.json() as Promise<{ nodeIds?: string[]; orderIndexes?: number[] }>)
        .then((r) => {
          const ids = r.nodeIds ?? [];
          const pairs = ids.map((id, i) => ({ id, pos: rowOfRef.current(id) ?? r.orderIndexes?.[i] ?? 0 })).sort((a, b) => a.pos - b.pos);
          const f = { q, ids: pairs.map((p) => p.id), pos: pairs.map((p) => p.pos) };
          setFound(f);
          // Enter pressed while the results were on their way: jump once they are in.
          const d = pendingJump.current;
          pendingJump.current = 0;
          if (d !== 0 && f.ids.length > 0) jumpRef.current(f, d, true);
        })
        .catch(() => {})
        .finally(() => setSearching(false));
    }, 200);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [query, caseKey]);
  const active = useMemo(() => (query.trim() && found.q === query.trim() ? found : NONE), [query, found]);
  const matchSet = useMemo(() => new Set(active.ids), [active.ids]);
  /** Enter (Shift: backwards) in the search box: the first match of a new query, else the next one. */
  const onEnter = (shift: boolean) => {
    const d = shift ? -1 : 1;
    const q = query.trim();
    const fresh = q !== enterQuery.current;
    enterQuery.current = q;
    if (q && found.q !== q) pendingJump.current = d;
    else jump(active, d, fresh);
  };
  return { query, setQuery, searching, active, matchSet, onEnter };
}

/**
 * The match to go to from row `cur`: the next after it (delta > 0) or the last before it, wrapping;
 * `fromStart` (the first Enter on a new query): the first match (Shift: the last).
 * @returns the index into `active.pos`, or -1 when there is no match
 */
export function matchIndex(pos: readonly number[], cur: number, delta: number): number {
  if (pos.length === 0) return -1;
  if (delta > 0) {
    const k = pos.findIndex((p) => p > cur);
    return k < 0 ? 0 : k;
  }
  for (let i = pos.length - 1; i >= 0; i--) if (pos[i] < cur) return i;
  return pos.length - 1;
}

/** The search box, match count and previous/next buttons of the toolbar. */
export function SearchBar({
  search,
  jumpMatch,
  inputRef,
}: {
  search: ReturnType<typeof useTraceSearch>;
  jumpMatch: (delta: number, fromStart?: boolean) => void;
  inputRef: React.RefObject<HTMLInputElement | null>;
}) {
  const { query, setQuery, searching, active, onEnter } = search;
  return (
    <>
      <label className="flex items-center gap-2">
        <span className="sr-only">Search in this trace</span>
        <input
          ref={inputRef}
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              onEnter(e.shiftKey);
            }
          }}
          placeholder="Search this trace  ( / )"
          className="w-64 rounded border border-slate-300 px-2 py-1"
          aria-label="Search in this trace"
        />
      </label>
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
    </>
  );
}

/** Keyboard shortcuts of the inspector (keyboard-help.tsx lists them); ignored while typing, Escape leaves a field. */
export function useInspectorKeys(h: {
  step: (delta: number) => void;
  walk: (dir: "parent" | "child") => void;
  jumpMatch: (delta: number) => void;
  focusSearch: () => void;
  fit: () => void;
  centre: () => void;
  toggleHelp: () => void;
  closeHelp: () => void;
}) {
  const ref = useRef(h);
  useEffect(() => {
    ref.current = h;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const k = ref.current;
      const el = e.target as HTMLElement | null;
      const typing = !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable);
      if (e.key === "Escape") {
        k.closeHelp();
        if (typing) el?.blur();
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
      const handlers: Record<string, () => void> = {
        j: () => k.step(1),
        ArrowDown: () => k.step(1),
        k: () => k.step(-1),
        ArrowUp: () => k.step(-1),
        p: () => k.walk("parent"),
        c: () => k.walk("child"),
        "/": () => k.focusSearch(),
        n: () => k.jumpMatch(1),
        N: () => k.jumpMatch(-1),
        f: () => k.fit(),
        ".": () => k.centre(),
        "?": () => k.toggleHelp(),
        "]": () => (document.querySelector("[data-queue-next]") as HTMLAnchorElement | null)?.click(),
        "[": () => (document.querySelector("[data-queue-prev]") as HTMLAnchorElement | null)?.click(),
      };
      const fn = handlers[e.key];
      if (fn) {
        e.preventDefault();
        fn();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** The right panel: the "Node" tab (node detail, then the selected node's symptom rules) and the extra tabs. */
export function SidePanel({
  tabs,
  tab,
  setTab,
  caseKey,
  selectedId,
  selectedNode,
  select,
  onQuote,
  evidence,
  onReplay,
  highlight,
  symptomRules,
}: {
  tabs: SideTab[];
  tab: string;
  setTab: (id: string) => void;
  caseKey: string;
  selectedId: string | null;
  selectedNode: GraphNodeLite | null;
  select: (id: string) => void;
  onQuote?: (nodeId: string, quote: string) => void;
  evidence?: Array<{ nodeId: string; quote: string }>;
  onReplay?: (nodeId: string) => void;
  highlight?: string;
  /** Shown under the node panel (the symptom layer's rules of the selected node), or null. */
  symptomRules: React.ReactNode;
}) {
  return (
    <div className="flex min-h-0 flex-col border-l border-slate-200">
      {tabs.length ? (
        <div role="tablist" aria-label="Side panel" className="flex border-b border-slate-200 text-xs">
          {[{ id: "node", label: "Node" }, ...tabs].map((t) => (
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
        {tab === "node" || !tabs.some((t) => t.id === tab) ? (
          selectedId ? (
            <>
              <NodePanel caseKey={caseKey} nodeId={selectedId} onSelect={select} onQuote={onQuote} evidence={evidence} onReplay={onReplay} highlight={highlight} />
              {symptomRules}
            </>
          ) : (
            <p className="p-4 text-sm text-slate-500">Select a node.</p>
          )
        ) : (
          tabs.find((t) => t.id === tab)!.render({ selectedId, selectedNode, select })
        )}
      </div>
    </div>
  );
}

/** The selected node's rules and evidence (GET /symptoms?node=) for a windowed trace, shown as SymptomRules. */
export function NodeSymptoms({ caseKey, nodeId, onSelect }: { caseKey: string; nodeId: string; onSelect: (id: string) => void }) {
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

/** Marks with "anchor" added on the intervention anchor (when the symptom layer is shown). */
export function withAnchorMark(marks: Map<string, string[]> | undefined, anchor: string | null | undefined): Map<string, string[]> | undefined {
  if (!anchor) return marks;
  const m = new Map(marks ?? []);
  m.set(anchor, [...(m.get(anchor) ?? []), "anchor"]);
  return m;
}
