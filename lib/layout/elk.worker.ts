/// <reference lib="webworker" />
/**
 * Web Worker: runs ELK off the main thread. Message in: {id, nodes, edges}; out: {id, result}
 * or {id, error}. Positions are sent as [id, x, y] triples (Maps do not cross postMessage).
 */
import ELK from "elkjs/lib/elk.bundled.js";
import { elkInput, elkResult } from "./elk";
import type { GraphEdgeLite, GraphNodeLite } from "./types";

const elk = new ELK();

self.onmessage = async (ev: MessageEvent<{ id: number; nodes: GraphNodeLite[]; edges: GraphEdgeLite[] }>) => {
  const { id, nodes, edges } = ev.data;
  const t0 = performance.now();
  try {
    const out = await elk.layout(elkInput(nodes, edges));
    const r = elkResult(out, performance.now() - t0);
    (self as unknown as Worker).postMessage({
      id,
      result: { ...r, positions: [...r.positions].map(([k, p]) => [k, p.x, p.y]) },
    });
  } catch (e) {
    (self as unknown as Worker).postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
