"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { BLOCK_ROWS, blocksFor, type GraphEdgeLite, type GraphNodeLite, type WindowEdge } from "@/lib/layout";

/** What the server sends for a large case instead of the whole graph (app/cases page). */
export interface BigTraceProps {
  count: number;
  /** Agents in order of first appearance (null = no agent). */
  lanes: Array<string | null>;
  /** The window around the initial node (rows [from, to)). */
  window: { from: number; to: number; nodes: GraphNodeLite[]; edges: WindowEdge[] };
  initial: { id: string; orderIndex: number } | null;
  /** Time origin of the timeline's start offsets (ns since the epoch, digits), or null (lib/db getCaseTimeZero). */
  timeZeroNs?: string | null;
  /** The viewer may turn on the symptom layer (fetched from /symptoms on demand; blindness checked on the server). */
  symptomsAvailable?: boolean;
}

/** Rows [from, from + BLOCK_ROWS) of the observed order and every edge touching them (both ends' rows and agents). */
export interface Block {
  from: number;
  nodes: GraphNodeLite[];
  edges: WindowEdge[];
}

/** Windows kept in the browser at most (LRU) when they are fetched: 60 × 200 rows. */
const MAX_BLOCKS = 60;

/** The compact index of a whole case: lane and flags per row (/graph/index). */
export interface CompactIndex {
  lane: Uint8Array;
  flags: Uint8Array;
}

/** A trace as windows of its observed order held in the browser, and how to get more (see {@link useTraceWindows}). */
export interface TraceWindows {
  /** Rows in the trace. */
  count: number;
  /** Agents in order of first appearance (null = no agent): the lanes. */
  lanes: Array<string | null>;
  /** Every row is in the browser (a small trace: one window). */
  whole: boolean;
  /** The node at a row, when its window is loaded. */
  getRow: (row: number) => GraphNodeLite | undefined;
  /** Edges of loaded windows touching rows [first, last]. */
  edgesIn: (first: number, last: number) => WindowEdge[];
  /** Ask for the windows of rows [first, last] (fetched in the background; nothing to do for a whole trace). */
  needRows: (first: number, last: number) => void;
  /** The window holding a row (fetched first when needed). */
  loadBlock: (b: number) => Promise<Block>;
  /** The loaded node of an id, if any window holds it. */
  findLoaded: (id: string) => GraphNodeLite | undefined;
  /** The first edge (lowest index in the bundle) into (`parent`) or out of (`child`) a node, from its window. */
  firstEdge: (sel: { id: string; orderIndex: number }, dir: "parent" | "child") => WindowEdge | undefined;
  /** The compact index of the whole case (overview of a trace not wholly in the browser), once asked for with `needIndex`. */
  index: CompactIndex | null;
  needIndex: () => void;
}

/**
 * The browser side of a trace seen as windows of its observed order (issue 16 item 4, issue 23
 * item 3). A large trace (`big`): blocks of 200 rows fetched from /graph/window (at most 60 kept,
 * oldest dropped first) and, zoomed out, the 2-byte-per-node index from /graph/index. A small
 * trace (`big` null): `nodes`/`edges` are one window, split into blocks up front; nothing is
 * fetched. Either way the inspector and the graph read the same functions.
 * @param nodes a whole trace's nodes in observed order (orderIndex = position); ignored with `big`
 * @param edges a whole trace's edges (their position is the edge index); ignored with `big`
 */
export function useTraceWindows(caseKey: string, big: BigTraceProps | null, nodes: GraphNodeLite[], edges: GraphEdgeLite[]): TraceWindows {
  const whole = big === null;
  const count = big ? big.count : nodes.length;
  const lanes = useMemo(() => (big ? big.lanes : lanesOf(nodes)), [big, nodes]);
  // Loaded windows: a whole trace's blocks follow its props; fetched ones are an immutable Map
  // replaced on each arrival. The ref mirrors the current map for callbacks.
  const wholeCache = useMemo(() => (big ? null : wholeBlocks(nodes, edges)), [big, nodes, edges]);
  const [fetched, setCache] = useState<Map<number, Block>>(() => (big ? splitBlocks(big.window) : new Map()));
  const cache = wholeCache ?? fetched;
  const cacheRef = useRef(cache);
  useEffect(() => {
    cacheRef.current = cache;
  }, [cache]);
  const inflight = useRef(new Map<number, Promise<Block>>());
  const [index, setIndex] = useState<CompactIndex | null>(null);
  const indexAsked = useRef(false);

  const loadBlock = useCallback(
    (b: number): Promise<Block> => {
      const hit = cacheRef.current.get(b);
      if (hit) return Promise.resolve(hit);
      const running = inflight.current.get(b);
      if (running) return running;
      const from = b * BLOCK_ROWS;
      const p = fetch(`/api/cases/${caseKey}/graph/window?from=${from}&to=${Math.min(count, from + BLOCK_ROWS)}`)
        .then((r) => {
          if (!r.ok) throw new Error(`window ${from}: HTTP ${r.status}`);
          return r.json() as Promise<{ nodes: GraphNodeLite[]; edges: WindowEdge[] }>;
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
    [caseKey, count],
  );

  const getRow = useCallback(
    (row: number): GraphNodeLite | undefined => {
      const b = cache.get(Math.floor(row / BLOCK_ROWS));
      return b ? b.nodes[row - b.from] : undefined;
    },
    [cache],
  );
  const edgesIn = useCallback(
    (first: number, last: number): WindowEdge[] => {
      const seen = new Set<number>();
      const out: WindowEdge[] = [];
      for (let b = Math.max(0, Math.floor(first / BLOCK_ROWS)); b <= Math.floor(last / BLOCK_ROWS); b++) {
        const blk = cache.get(b);
        if (!blk) continue;
        for (const e of blk.edges) {
          if (seen.has(e.idx)) continue;
          const inView = (e.fromIndex >= first && e.fromIndex <= last) || (e.toIndex >= first && e.toIndex <= last);
          if (!inView) continue;
          seen.add(e.idx);
          out.push(e);
        }
      }
      return out;
    },
    [cache],
  );
  const needRows = useCallback(
    (first: number, last: number) => {
      for (const b of blocksFor(first, last, count)) if (!cacheRef.current.has(b)) void loadBlock(b).catch(() => {});
    },
    [count, loadBlock],
  );
  const needIndex = useCallback(() => {
    if (whole || indexAsked.current) return;
    indexAsked.current = true;
    fetch(`/api/cases/${caseKey}/graph/index`)
      .then((r) => r.arrayBuffer())
      .then((buf) => setIndex({ lane: new Uint8Array(buf, 0, count), flags: new Uint8Array(buf, count, count) }))
      .catch(() => {
        indexAsked.current = false;
      });
  }, [whole, caseKey, count]);
  const byId = useMemo(() => {
    const m = new Map<string, GraphNodeLite>();
    for (const blk of cache.values()) for (const n of blk.nodes) m.set(n.id, n);
    return m;
  }, [cache]);
  const findLoaded = useCallback((id: string) => byId.get(id), [byId]);
  const firstEdge = useCallback((sel: { id: string; orderIndex: number }, dir: "parent" | "child") => {
    const b = cacheRef.current.get(Math.floor(sel.orderIndex / BLOCK_ROWS));
    return (b?.edges ?? []).filter((x) => (dir === "parent" ? x.to === sel.id : x.from === sel.id)).sort((x, y) => x.idx - y.idx)[0];
  }, []);
  return useMemo(
    () => ({ count, lanes, whole, getRow, edgesIn, needRows, loadBlock, findLoaded, firstEdge, index, needIndex }),
    [count, lanes, whole, getRow, edgesIn, needRows, loadBlock, findLoaded, firstEdge, index, needIndex],
  );
}

/** Agents in order of first appearance in the observed order (null = a node without an agent). */
function lanesOf(nodes: readonly GraphNodeLite[]): Array<string | null> {
  return [...new Set(nodes.map((n) => n.agent || null))];
}

/** A window given whole (rows [from, to) and every edge touching them), split into blocks of BLOCK_ROWS rows. */
function splitBlocks(w: { from: number; to: number; nodes: GraphNodeLite[]; edges: WindowEdge[] }): Map<number, Block> {
  const m = new Map<number, Block>();
  for (let from = w.from; from < w.to; from += BLOCK_ROWS) m.set(Math.floor(from / BLOCK_ROWS), { from, nodes: [], edges: [] });
  for (const n of w.nodes) m.get(Math.floor(n.orderIndex / BLOCK_ROWS))?.nodes.push(n);
  for (const blk of m.values()) blk.nodes.sort((a, b) => a.orderIndex - b.orderIndex);
  for (const e of w.edges) {
    const a = Math.floor(e.fromIndex / BLOCK_ROWS);
    const b = Math.floor(e.toIndex / BLOCK_ROWS);
    m.get(a)?.edges.push(e);
    if (b !== a) m.get(b)?.edges.push(e);
  }
  return m;
}

/** A whole trace as one window: its edges with both ends' rows and agents, in blocks. */
function wholeBlocks(nodes: readonly GraphNodeLite[], edges: readonly GraphEdgeLite[]): Map<number, Block> {
  const at = new Map(nodes.map((n) => [n.id, n]));
  const wedges: WindowEdge[] = [];
  edges.forEach((e, idx) => {
    const f = at.get(e.from);
    const t = at.get(e.to);
    if (f && t) wedges.push({ idx, from: e.from, to: e.to, kind: e.kind, fromIndex: f.orderIndex, toIndex: t.orderIndex, fromAgent: f.agent, toAgent: t.agent });
  });
  return splitBlocks({ from: 0, to: nodes.length, nodes: [...nodes], edges: wedges });
}
