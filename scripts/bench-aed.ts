/**
 * AED export benchmark (issue 14 items 2, 5, 6): the pure per-row work of `release export
 * --format aed|sft-*|preference --parquet` — student trace, quote resolution, grade, split,
 * JSON Schema validation (ajv), the three views with the leak audit, and Parquet encoding — on
 * synthetic traces of 4,000 / 20,000 nodes (lib/bundle/synthetic.ts) with a diagnosis blaming the
 * last node and 10 evidence quotes from the second half plus 2 rationale quotes (the rationale
 * quotes are searched across every node up to the blamed one: the worst case). Each size runs
 * 3 times after a warm-up; the median is reported. Database loading is not timed here (it is the
 * import's export path, scripts/bench.ts).
 *
 * Prints an aligned table and one JSON line `{"bench":"aed",...}`. Alone:
 *   node --disable-warning=ExperimentalWarning --import tsx scripts/bench-aed.ts
 * BENCH_AED_SIZES=4000,20000 changes the sizes (node counts); BENCH_SMOKE=1 uses 400.
 */
import { performance } from "node:perf_hooks";
import { textLeaves } from "../lib/annotation/evidence";
import { syntheticBundle } from "../lib/bundle/synthetic";
import {
  aedRowsToParquet,
  buildAedRecord,
  chatRowsToParquet,
  diagnosisView,
  isViewItem,
  preferenceView,
  privilegedData,
  recoveryView,
  validateAedRecord,
  type ReplayBranch,
} from "../lib/release/aed";

const RUNS = 3;

export async function runAedBench(): Promise<void> {
  const sizes = (process.env.BENCH_AED_SIZES ?? (process.env.BENCH_SMOKE === "1" ? "400" : "4000,20000")).split(",").map((s) => Number(s.trim()));
  const rows: Array<{ nodes: number; quotes: number; ms: number; usPerNode: number; jsonlBytes: number; parquetBytes: number }> = [];
  for (const size of sizes) {
    const b = syntheticBundle({ id: `bench/aed/${size}`, turns: Math.max(1, Math.round(size / 4)), seed: 11 });
    b.outcome = { passed: false, evaluator: "bench", details: { log: "evaluator output that must not leak" } };
    b.task.reference = { expected: "a reference answer that must not leak" };
    const last = b.order[b.order.length - 1]!;
    const half = b.order.slice(Math.floor(b.order.length / 2));
    const evidence: Array<{ nodeId: string; quote: string }> = [];
    for (const id of half) {
      const n = b.graph.nodes.find((x) => x.id === id)!;
      const leaf = textLeaves(n.content).find((t) => t.length > 30);
      if (leaf) evidence.push({ nodeId: id, quote: leaf.slice(5, 25) });
      if (evidence.length === 10) break;
    }
    const lastLeaf = textLeaves(b.graph.nodes.find((x) => x.id === half[half.length - 2])!.content).find((t) => t.length > 20) ?? "x";
    const diagnosis = {
      kind: "final" as const,
      categories: ["C2"],
      primary: "C2",
      nodeId: last,
      nodeType: b.graph.nodes.find((x) => x.id === last)!.type,
      confidence: "high",
      rationale: `It says "${lastLeaf.slice(2, 18)}" late and "${b.task.prompt.slice(10, 30)}" in the task.`,
      evidence,
      correction: "Stop and answer.",
    };
    const branches: ReplayBranch[] = [
      { id: "pass", boundaryNodeId: last, passed: true, action: { nodeId: "n1", type: "final_result", agent: "A", content: { final: "the answer" } } },
      { id: "fail", boundaryNodeId: last, passed: false, action: { nodeId: "n2", type: "final_result", agent: "A", content: { final: "a wrong answer" } } },
    ];
    const once = () => {
      const r = buildAedRecord({ bundle: b, bundleHash: "sha256:" + "0".repeat(64), dataset: "bench" }, diagnosis, { replay: { source: "replay-runs", protocol: "guidance", treatment: [{ id: "pass", passed: true }], control: [] } });
      if (!r.ok) throw new Error(r.reject.reasons.join("; "));
      const errs = validateAedRecord(r.record);
      if (errs.length) throw new Error(JSON.stringify(errs));
      const priv = privilegedData(b);
      const d = diagnosisView(r.record, priv);
      const rec = recoveryView(r.record, branches, priv);
      const pref = preferenceView(r.record, branches, priv);
      if (!isViewItem(d) || !rec.every(isViewItem) || !pref.every(isViewItem)) throw new Error("a view row was skipped");
      const jsonl = JSON.stringify(r.record).length + JSON.stringify(d.row).length;
      const pq = aedRowsToParquet([r.record]).byteLength + chatRowsToParquet(["messages"], [d.row as unknown as Record<string, never>], "sft-diagnosis").byteLength;
      return { quotes: r.record.diagnosis.quotes.length, jsonl, pq };
    };
    const first = once();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      once();
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    const ms = times[Math.floor(RUNS / 2)]!;
    rows.push({ nodes: b.graph.nodes.length, quotes: first.quotes, ms: Math.round(ms * 10) / 10, usPerNode: Math.round((ms * 1000) / b.graph.nodes.length), jsonlBytes: first.jsonl, parquetBytes: first.pq });
  }
  console.log("AED export (pure part, one diagnosis row + 3 views + Parquet; median of 3)");
  console.log(["nodes", "quotes", "ms", "µs/node", "JSONL bytes", "Parquet bytes"].map((h) => h.padStart(14)).join(""));
  for (const r of rows) console.log([r.nodes, r.quotes, r.ms, r.usPerNode, r.jsonlBytes, r.parquetBytes].map((v) => String(v).padStart(14)).join(""));
  console.log(JSON.stringify({ bench: "aed", rows }));
}

if (import.meta.url === `file://${process.argv[1]}`) await runAedBench();
