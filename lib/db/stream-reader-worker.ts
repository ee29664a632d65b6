/**
 * Worker-thread half of {@link readBundleRowsInWorker} (./stream-reader.ts): reads, validates and
 * hashes one bundle file (lib/bundle streamBundleFile), maps each node, edge and record to its
 * database row (./stream-rows bundleRowSink: no database client is loaded here) and posts the
 * rows, packed (./stream-rows RowPacker), to the main thread, which inserts them. Batches of
 * {@link BATCH_ROWS} rows; after each 1 MiB chunk of file the reader waits while more than
 * {@link MAX_IN_FLIGHT} batches wait to be inserted, so memory stays bounded; reading goes on
 * while the main thread writes the previous batches.
 *
 * workerData: `{ file, caseId, tmpDir? }`. Messages out: `rows` (n, e, r: ./stream-rows PackedRows or null),
 * `progress`, `rows-end` (the file is read, no row follows: the final checks and the bundle hash
 * run now), then `done` (the stream result, its order fixes as an array) or `error`.
 * Messages in: `ack` (one batch written).
 */
import { parentPort, workerData } from "node:worker_threads";
import { streamBundleFile } from "../bundle/stream";
import { bundleRowSink, RowPacker } from "./stream-rows";

/** Rows per batch: posted while young (a batch per 1 MiB chunk outlived scavenges: ~1.5 CPU-s of GC per 100k nodes). */
const BATCH_ROWS = 256;
/** Batches posted and not yet acknowledged before the reader waits (checked after each 1 MiB chunk). */
const MAX_IN_FLIGHT = 16;

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("stream-reader-worker must run in a worker thread");
  const { file, caseId, tmpDir } = workerData as { file: string; caseId: string; tmpDir?: string };
  const n = new RowPacker();
  const e = new RowPacker();
  const r = new RowPacker();
  let inFlight = 0;
  let wake: (() => void) | null = null;
  port.on("message", (m: { t: string }) => {
    if (m.t !== "ack") return;
    inFlight--;
    const w = wake;
    wake = null;
    w?.();
  });
  const post = () => {
    if (!n.count && !e.count && !r.count) return;
    const batch = { t: "rows", n: n.take(), e: e.take(), r: r.take() };
    port.postMessage(batch, [batch.n, batch.e, batch.r].flatMap((p) => (p ? [p.cells.buffer, p.nums.buffer] : [])));
    inFlight++;
  };
  let pending = 0;
  const add = (p: RowPacker) => (row: unknown[]) => {
    p.add(row);
    if (++pending >= BATCH_ROWS) {
      post();
      pending = 0;
    }
  };
  const rows = bundleRowSink(caseId, { node: add(n), edge: add(e), record: add(r) });
  try {
    const res = await streamBundleFile(
      file,
      {
        ...rows,
        async drain() {
          post();
          while (inFlight >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
        },
        end() {
          post();
          port.postMessage({ t: "rows-end" });
        },
      },
      { tmpDir, onProgress: (bytes, total, nodes) => port.postMessage({ t: "progress", bytes, total, nodes }) },
    );
    post();
    const { orderFixes, ...plain } = res;
    port.postMessage({ t: "done", result: plain, fixes: [...orderFixes()] });
  } catch (err) {
    const x = err as Error & { byteOffset?: number };
    port.postMessage({ t: "error", name: x?.name ?? "Error", message: x?.message ?? String(err), byteOffset: x?.byteOffset, stack: x?.stack });
  } finally {
    port.close();
  }
}

void main();
