/// <reference lib="webworker" />
/**
 * Web Worker: ELK over a ready ELK input graph (e.g. lib/repair-search `treeElkInput`), off the
 * main thread. Message in: {id, graph}; out: {id, positions: [id, x, y][], width, height, ms} or
 * {id, error}.
 */
import ELK, { type ElkNode } from "elkjs/lib/elk.bundled.js";

const elk = new ELK();

self.onmessage = async (ev: MessageEvent<{ id: number; graph: ElkNode }>) => {
  const { id, graph } = ev.data;
  const t0 = performance.now();
  try {
    const out = await elk.layout(graph);
    (self as unknown as Worker).postMessage({
      id,
      positions: (out.children ?? []).map((c) => [c.id, c.x ?? 0, c.y ?? 0]),
      width: out.width ?? 0,
      height: out.height ?? 0,
      ms: performance.now() - t0,
    });
  } catch (e) {
    (self as unknown as Worker).postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
