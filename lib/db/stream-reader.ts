/**
 * Reading a streamed bundle in a worker thread while the main thread inserts its rows (issue 25
 * item 3): JSON splitting and parsing, validation, hashing and the row mapping run in
 * ./stream-reader-worker.ts, overlapped with the SQLite inserts of the rows it read before.
 * The result is that of lib/bundle `streamBundleFile` (same issues, hash, counts); the rows are
 * those of `bundleRowSink`, in the same order, so what is stored does not change.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { JsonStreamError } from "../bundle/json-stream";
import type { BundleStreamResult } from "../bundle/stream";
import { unpackRows, type PackedRows, type StreamRowSink } from "./stream-rows";
import { bundledWorkerFile } from "./stream-reader-bundle";

/**
 * The reader's young generation (V8 default 48 MB): its garbage is short-lived (parsed elements,
 * texts, packed batches), and a larger young generation collects it with fewer scavenges;
 * ~8% less reader CPU at 100k nodes (4.64 vs 5.00 CPU-s median of 5, load 4.8–8.4), at most
 * 48 MB more memory.
 */
const WORKER_YOUNG_GENERATION_MB = 96;

/** The worker's source file next to this module, or null when it is not there (e.g. inside a Next.js bundle). */
function workerFile(): string | null {
  try {
    const here = fileURLToPath(import.meta.url);
    const ext = path.extname(here);
    const f = path.join(/*turbopackIgnore: true*/ path.dirname(here), `stream-reader-worker${ext}`);
    return existsSync(/*turbopackIgnore: true*/ f) ? f : null;
  } catch {
    return null;
  }
}

/** URL of tsx's ESM register API (its package's `exports["./esm/api"].import`). */
function tsxEsmApi(): string {
  const pkgFile = createRequire(import.meta.url).resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(/*turbopackIgnore: true*/ pkgFile, "utf8")) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(path.join(/*turbopackIgnore: true*/ path.dirname(pkgFile), pkg.exports["./esm/api"].import.default)).href;
}

/**
 * Whether {@link readBundleRowsInWorker} can run here: not disabled by SYMTRACE_IMPORT_WORKER=0,
 * not inside the Next.js server (its bundles do not ship the worker's file), and the worker's
 * file found beside this module.
 */
export function canReadInWorker(): boolean {
  return process.env.SYMTRACE_IMPORT_WORKER !== "0" && !process.env.NEXT_RUNTIME && workerFile() !== null;
}

/**
 * Read, validate and hash `file` in a worker thread, inserting its rows through `rows` on this
 * thread as they arrive (one batch per 1 MiB of file, at most 4 batches waiting). From
 * TypeScript sources the worker runs as one bundled module (./stream-reader-bundle.ts; through
 * tsx when that cannot be had, or with SYMTRACE_IMPORT_WORKER_BUNDLE=0).
 * @param rows where rows go (lib/db importCaseStream's row sink; its caseId names the rows)
 * @param opts.onProgress bytes read so far, file size, nodes seen so far
 * @returns the stream result, as lib/bundle `streamBundleFile` returns it
 * @throws JsonStreamError when the file is not JSON; errors of `rows` pass through (the worker is stopped)
 */
export async function readBundleRowsInWorker(
  file: string,
  rows: StreamRowSink,
  opts: { onProgress?: (bytes: number, total: number, nodes: number) => void; tmpDir?: string } = {},
): Promise<BundleStreamResult> {
  const wf = workerFile();
  if (!wf) throw new Error("stream-reader-worker is not available here");
  const workerData = { file, caseId: rows.caseId, tmpDir: opts.tmpDir };
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  const bundled = wf.endsWith(".ts") && process.env.SYMTRACE_IMPORT_WORKER_BUNDLE !== "0" ? await bundledWorkerFile(wf) : null;
  // A TypeScript source without its bundle (tsx, vitest): the worker registers tsx's loader itself, then imports it.
  const worker = bundled
    ? new Worker(/*turbopackIgnore: true*/ bundled, { workerData, resourceLimits })
    : wf.endsWith(".ts")
    ? new Worker(/*turbopackIgnore: true*/ `import(${JSON.stringify(tsxEsmApi())}).then((m) => { m.register(); return import(${JSON.stringify(pathToFileURL(wf).href)}); });`, { eval: true, workerData, resourceLimits })
    : new Worker(/*turbopackIgnore: true*/ wf, { workerData, resourceLimits });
  return new Promise<BundleStreamResult>((resolve, reject) => {
    let settled = false;
    let queue = Promise.resolve();
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(e);
    };
    worker.on("message", (m: { t: string } & Record<string, unknown>) => {
      if (settled) return;
      if (m.t === "progress") {
        opts.onProgress?.(m.bytes as number, m.total as number, m.nodes as number);
      } else if (m.t === "rows") {
        queue = queue.then(async () => {
          if (settled) return;
          if (m.n) unpackRows(m.n as PackedRows, rows.node);
          if (m.e) unpackRows(m.e as PackedRows, rows.edge);
          if (m.r) unpackRows(m.r as PackedRows, rows.record);
          await rows.drain();
          worker.postMessage({ t: "ack" });
        }).catch(fail);
      } else if (m.t === "rows-end") {
        queue = queue.then(() => {
          if (!settled) rows.end?.();
        }).catch(fail);
      } else if (m.t === "done") {
        queue = queue.then(() => {
          if (settled) return;
          settled = true;
          const fixes = m.fixes as Array<[string, number]>;
          resolve({ ...(m.result as Omit<BundleStreamResult, "orderFixes">), orderFixes: () => fixes });
        });
      } else if (m.t === "error") {
        const err = m.name === "JsonStreamError" ? new JsonStreamError(m.message as string, (m.byteOffset as number) ?? 0) : Object.assign(new Error(m.message as string), { name: m.name as string });
        queue = queue.then(() => fail(err));
      }
    });
    worker.on("error", fail);
    worker.on("exit", (code) => {
      void queue.then(() => fail(new Error(`stream-reader-worker exited (${code}) before its result`)));
    });
  });
}
