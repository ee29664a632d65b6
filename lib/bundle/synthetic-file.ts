/**
 * Writing a synthetic bundle of any size straight to a file (issue 16: the 1,000,002-node
 * benchmark bundle), without holding it in memory: the same content as `syntheticBundle` with the
 * same options (same hashes, same bundle hash), one node / edge / order entry / record per line.
 * Top-level keys are written as `format, id, graph, order, records, parent, task, initialState,
 * config, outcome` (the task's reference answer is drawn after the last turn).
 */
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { hashContent, hashRequest } from "./hash";
import { BUNDLE_FORMAT } from "./schema";
import { syntheticParts, type SyntheticBundleOptions } from "./synthetic";

/** Buffered line writer on a file descriptor. */
class Lines {
  private buf: string[] = [];
  private size = 0;
  count = 0;
  constructor(private fd: number) {}
  add(s: string): void {
    this.buf.push(this.count === 0 ? s : ",\n" + s);
    this.count++;
    this.size += s.length + 2;
    if (this.size > 1 << 22) this.flush();
  }
  flush(): void {
    if (this.buf.length) writeSync(this.fd, this.buf.join(""));
    this.buf = [];
    this.size = 0;
  }
}

/**
 * Write `syntheticBundle(opts)` to `file` as compact JSON, streaming.
 * @param opts as `syntheticBundle`, plus `historyTurns` (turns of history in each llm request,
 *   default 3; 0 gives ~0.5 KB per node instead of ~2 KB)
 * @returns counts and the file size in bytes
 */
export async function writeSyntheticBundleFile(
  file: string,
  opts: SyntheticBundleOptions & { historyTurns?: number },
): Promise<{ nodes: number; edges: number; records: number; bytes: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-synth-"));
  const fds = { edges: openSync(path.join(dir, "edges"), "w"), order: openSync(path.join(dir, "order"), "w"), records: openSync(path.join(dir, "records"), "w") };
  const out = openSync(file, "w");
  try {
    const { header, chunks } = syntheticParts(opts);
    writeSync(out, `{"format":${JSON.stringify(BUNDLE_FORMAT)},"id":${JSON.stringify(header.id)},"graph":{"nodes":[\n`);
    const nodes = new Lines(out);
    const edges = new Lines(fds.edges);
    const order = new Lines(fds.order);
    const records = new Lines(fds.records);
    for (const c of chunks) {
      for (const n of c.nodes) {
        nodes.add(JSON.stringify({ ...n, contentHash: hashContent(n.content) }));
        order.add(JSON.stringify(n.id));
      }
      for (const e of c.edges) edges.add(JSON.stringify(e));
      for (const r of c.records) {
        const seq = records.count;
        records.add(JSON.stringify({ ...r, seq, requestHash: hashRequest(r.request) }));
      }
    }
    for (const l of [nodes, edges, order, records]) l.flush();
    for (const fd of Object.values(fds)) closeSync(fd);
    const buf = Buffer.allocUnsafe(1 << 20);
    const append = (name: string, before: string) => {
      writeSync(out, before);
      const fd = openSync(path.join(dir, name), "r");
      try {
        for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) writeSync(out, buf, 0, n);
      } finally {
        closeSync(fd);
      }
    };
    append("edges", "\n],\n\"edges\":[\n");
    append("order", "\n]},\n\"order\":[\n");
    append("records", "\n],\n\"records\":[\n");
    const rest = { parent: null, task: header.task, initialState: header.initialState ?? {}, config: header.config, outcome: header.outcome };
    writeSync(out, "\n]," + JSON.stringify(rest).slice(1) + "\n");
    const bytes = fstatSync(out).size;
    return { nodes: nodes.count, edges: edges.count, records: records.count, bytes };
  } finally {
    closeSync(out);
    rmSync(dir, { recursive: true, force: true });
  }
}
