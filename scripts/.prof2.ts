import { performance } from "node:perf_hooks";
import { producedIds, hasInventedIds, observedSpans, ReadyTracker, TraceBuilder } from "../lib/replay";
import { benchBundle } from "./bench-replay";
const { bundle } = benchBundle(2000);
for (let rep = 0; rep < 3; rep++) {
  const T = (f: () => void) => { const t = performance.now(); f(); return (performance.now() - t).toFixed(1); };
  let ids: Set<string> = new Set();
  console.log({
    produced: T(() => { ids = producedIds(bundle.records); }),
    invented: T(() => { bundle.records.some((r) => hasInventedIds(r.request, ids)); }),
    spans: T(() => { new ReadyTracker(observedSpans(bundle.records).spans); }),
    seed: T(() => { new TraceBuilder().seedOutputs(bundle.graph.nodes as never); }),
    nodeMap: T(() => { new Map(bundle.graph.nodes.map((n) => [n.id, n])); }),
  });
}
