"use client";

import { useEffect, useState } from "react";
import { elkResult, type GraphEdgeLite, type GraphNodeLite, type LayoutResult } from "@/lib/layout";

type WorkerReply = { id: number; error?: string; result?: Omit<LayoutResult, "positions"> & { positions: Array<[string, number, number]> } };

let seq = 0;

/**
 * ELK layered layout computed in a Web Worker (lib/layout/elk.worker.ts), so the page never
 * freezes. Returns null while computing or when disabled, and the error message if ELK fails.
 */
export function useElkLayout(nodes: GraphNodeLite[], edges: GraphEdgeLite[], enabled: boolean): { layout: LayoutResult | null; error: string | null } {
  const [state, setState] = useState<{ layout: LayoutResult | null; error: string | null }>({ layout: null, error: null });
  useEffect(() => {
    if (!enabled) return;
    const worker = new Worker(new URL("../../lib/layout/elk.worker.ts", import.meta.url), { type: "module" });
    const id = ++seq;
    worker.onmessage = (ev: MessageEvent<WorkerReply>) => {
      if (ev.data.id !== id) return;
      if (ev.data.error || !ev.data.result) {
        setState({ layout: null, error: ev.data.error ?? "layout failed" });
      } else {
        const r = ev.data.result;
        const base = elkResult({ children: r.positions.map(([cid, x, y]) => ({ id: cid, x, y })), width: r.width, height: r.height }, r.ms);
        setState({ layout: base, error: null });
      }
      worker.terminate();
    };
    worker.onerror = (e) => {
      setState({ layout: null, error: e.message || "layout worker failed" });
      worker.terminate();
    };
    worker.postMessage({ id, nodes, edges });
    return () => worker.terminate();
  }, [nodes, edges, enabled]);
  return enabled ? state : { layout: null, error: null };
}
