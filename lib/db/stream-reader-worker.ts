/**
 * Worker-thread half of {@link readBundleRowsInWorker} (./stream-reader.ts): reads, validates and
 * hashes one bundle file (lib/bundle streamBundleFile), maps each node, edge and record to its
 * database row (./stream-rows bundleRowSink: no database client is loaded here) and posts the rows to the main thread, which inserts
 * them. At most {@link MAX_IN_FLIGHT} batches (one per 1 MiB of file) wait to be inserted, so
 * memory stays bounded; reading goes on while the main thread writes the previous batches.
 *
 * workerData: `{ file, caseId, tmpDir? }`. Messages out: `rows` (n, e, r: row arrays),
 * `progress`, `rows-end` (the file is read, no row follows: the final checks and the bundle hash
 * run now), then `done` (the stream result, its order fixes as an array) or `error`.
 * Messages in: `ack` (one batch written).
 */
import { parentPort, workerData } from "node:worker_threads";
import { streamBundleFile } from "../bundle/stream";
import { bundleRowSink } from "./stream-rows";

/** Batches posted and not yet acknowledged before the reader waits. */
const MAX_IN_FLIGHT = 4;

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("stream-reader-worker must run in a worker thread");
  const { file, caseId, tmpDir } = workerData as { file: string; caseId: string; tmpDir?: string };
  let n: unknown[][] = [];
  let e: unknown[][] = [];
  let r: unknown[][] = [];
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
    if (!n.length && !e.length && !r.length) return;
    port.postMessage({ t: "rows", n, e, r });
    inFlight++;
    n = [];
    e = [];
    r = [];
  };
  const rows = bundleRowSink(caseId, { node: (row) => n.push(row), edge: (row) => e.push(row), record: (row) => r.push(row) });
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
