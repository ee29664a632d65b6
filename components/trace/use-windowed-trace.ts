"use client";

import { useCallback, useRef, useState } from "react";
import { BLOCK_ROWS, blocksFor } from "@/lib/layout";
import type { BigEdge, BigNode } from "@/components/graph/big-graph";

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

/** The windows of a large trace held in the browser, and how to get more (see {@link useWindowedTrace}). */
export interface WindowedTrace {
  /** The node at a row, when its window is loaded. */
  getRow: (row: number) => BigNode | undefined;
  /** Edges of loaded windows touching rows [first, last]. */
  edgesIn: (first: number, last: number) => BigEdge[];
  /** Ask for the windows of rows [first, last] (fetched in the background). */
  needRows: (first: number, last: number) => void;
  /** The window holding a row (fetched first when needed). */
  loadBlock: (b: number) => Promise<Block>;
  /** The loaded node of an id, if any window holds it. */
  findLoaded: (id: string) => BigNode | undefined;
  /** The first edge (lowest index) into (`parent`) or out of (`child`) a node, from its window. */
  firstEdge: (sel: { id: string; orderIndex: number }, dir: "parent" | "child") => BigEdge | undefined;
  /** The compact index of the whole case (overview), once asked for with `needIndex`. */
  index: { lane: Uint8Array; flags: Uint8Array } | null;
  needIndex: () => void;
}

/**
 * The browser side of a windowed trace (issue 16 item 4): blocks of 200 rows of the observed
 * order fetched from /graph/window (at most 60 kept, oldest dropped first) and, zoomed out, the
 * 2-byte-per-node index from /graph/index. `big` null: nothing is held or fetched.
 */
export function useWindowedTrace(caseKey: string, big: BigTraceProps | null): WindowedTrace {
  const count = big?.count ?? 0;
  // Loaded windows (an immutable Map replaced on each arrival; the ref mirrors it for callbacks).
  const [cache, setCache] = useState<Map<number, Block>>(() => (big ? initialBlocks(big.window) : new Map()));
  const cacheRef = useRef(cache);
  const inflight = useRef(new Map<number, Promise<Block>>());
  const [index, setIndex] = useState<{ lane: Uint8Array; flags: Uint8Array } | null>(null);
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
    [caseKey, count],
  );

  const getRow = useCallback(
    (row: number): BigNode | undefined => {
      const b = cache.get(Math.floor(row / BLOCK_ROWS));
      return b ? b.nodes[row - b.from] : undefined;
    },
    [cache],
  );
  const edgesIn = useCallback(
    (first: number, last: number): BigEdge[] => {
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
    if (indexAsked.current) return;
    indexAsked.current = true;
    fetch(`/api/cases/${caseKey}/graph/index`)
      .then((r) => r.arrayBuffer())
      .then((buf) => setIndex({ lane: new Uint8Array(buf, 0, count), flags: new Uint8Array(buf, count, count) }))
      .catch(() => {
        indexAsked.current = false;
      });
  }, [caseKey, count]);
  const findLoaded = useCallback(
    (id: string): BigNode | undefined => {
      for (const blk of cache.values()) {
        const n = blk.nodes.find((x) => x.id === id);
        if (n) return n;
      }
      return undefined;
    },
    [cache],
  );
  const firstEdge = useCallback((sel: { id: string; orderIndex: number }, dir: "parent" | "child") => {
    const b = cacheRef.current.get(Math.floor(sel.orderIndex / BLOCK_ROWS));
    return (b?.edges ?? []).filter((x) => (dir === "parent" ? x.to === sel.id : x.from === sel.id)).sort((x, y) => x.idx - y.idx)[0];
  }, []);
  return { getRow, edgesIn, needRows, loadBlock, findLoaded, firstEdge, index, needIndex };
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
