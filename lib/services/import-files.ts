/**
 * Import trace files and folders into the database: the job behind `symtrace import`, the demo
 * seed and the e2e setup. Each file goes through lib/importers (parse, map, validate); each case
 * is stored in its own transaction (lib/db importCase), so a bad file or record is reported and
 * skipped while the others import, and nothing of a failed case is written.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { JsonStreamError, readJsonFileValue, streamBundleFile } from "../bundle";
import { importOtelValue, importText, type ImportError, type ImportFileResult, type ImportFormat, type ImportWarningKind } from "../importers";
import { importCase, importCaseStream, StreamedBundleInvalidError, type Db } from "../db";
import { isBusyError } from "../db/url";
import type * as StreamReader from "../db/stream-reader";

/**
 * lib/db/stream-reader (the import's reading worker thread), loaded only outside the Next.js
 * server: its bundles do not ship the worker's file, and a static import would make Turbopack try
 * to bundle every file the worker path could name. null inside Next.js.
 */
async function streamReader(): Promise<typeof StreamReader | null> {
  if (process.env.NEXT_RUNTIME) return null;
  return (await import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "../db/stream-reader")) as typeof StreamReader;
}

/**
 * Files at least this large are read as a stream (SYMTRACE_IMPORT_STREAM_MB, default 64 MiB, and
 * 8 MiB for replay bundles when the variable is unset): bundles are validated, hashed and
 * written in batches without being held in memory (from 8 MiB this is also the cheaper path:
 * ~1/3 less CPU and half the memory of parsing the whole file); OTLP/JSON and Langfuse files are
 * parsed without one string of the file's size (past the ~512 MB limit of a JavaScript string).
 * Other formats are read whole up to {@link MAX_IN_MEMORY_BYTES}.
 * @param kind "bundle" for symtrace.bundle/v1 files, "other" for every other format
 */
export function streamThresholdBytes(kind: "bundle" | "other" = "other"): number {
  const def = kind === "bundle" ? 8 : 64;
  const mb = Number(process.env.SYMTRACE_IMPORT_STREAM_MB ?? def);
  return Number.isFinite(mb) && mb >= 0 ? mb * 2 ** 20 : def * 2 ** 20;
}

/**
 * Streamed bundles of at least this size are read in a worker thread (SYMTRACE_IMPORT_WORKER_MB,
 * default 32 MiB): below it the worker's start-up (loading the reader's modules) costs more than
 * overlapping reading with inserting saves.
 */
export function workerThresholdBytes(): number {
  const mb = Number(process.env.SYMTRACE_IMPORT_WORKER_MB ?? 32);
  return (Number.isFinite(mb) && mb >= 0 ? mb : 32) * 2 ** 20;
}

/** Past this a file cannot be one JavaScript string (V8: 2^29 - 24 characters). */
export const MAX_IN_MEMORY_BYTES = 2 ** 29 - 24;

/** Progress of a streamed file (for the CLI's progress line). */
export interface ImportProgress {
  file: string;
  bytes: number;
  totalBytes: number;
  /** Nodes read so far (bundles only; 0 for OTel files). */
  nodes: number;
  elapsedMs: number;
}

export interface ImportReport {
  imported: number;
  skipped: number;
  replaced: number;
  failed: Array<{ file: string; errors: ImportError[] }>;
  /** Files passed over because they hold no trace (e.g. symtrace.annotations/v1). */
  ignored: string[];
  cases: Array<{ bundleId: string; caseId: string; status: "imported" | "skipped" | "replaced" }>;
  /**
   * Imperfections the importers repaired instead of rejecting (duplicate span ids, orphans,
   * skewed/open spans, unresolved links, tool arguments that are not a JSON object...):
   * `counts` per kind over all files, and each one with its file, bundle id and JSON path.
   */
  warnings: {
    counts: Partial<Record<ImportWarningKind, number>>;
    items: Array<{ file: string; bundleId: string; kind: ImportWarningKind; path: string; message: string }>;
  };
}

/** All .json files under a path (recursively, sorted), or the path itself when it is a file. */
export function listJsonFiles(p: string): string[] {
  const st = statSync(p);
  if (st.isFile()) return [p];
  const out: string[] = [];
  for (const e of readdirSync(p, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(p, e.name);
    if (e.isDirectory()) out.push(...listJsonFiles(full));
    else if (e.isFile() && e.name.toLowerCase().endsWith(".json")) out.push(full);
  }
  return out;
}

const NOT_TRACES = /"format"\s*:\s*"symtrace\.(annotations|agreement)\//;

/**
 * Import files and folders.
 * @param paths files or directories (directories are walked for *.json)
 * @param opts.format the importer to use, or "auto" to detect per file
 * @returns counts, per-file failures with JSON paths, and each stored case
 */
export async function importPaths(
  db: Db,
  paths: string[],
  opts: {
    format?: ImportFormat;
    actorId?: string | null;
    /** Stream files of at least this many bytes, bundles included (default {@link streamThresholdBytes}). */
    streamMinBytes?: number;
    /** Called about every 0.5 s while a streamed file is read. */
    onProgress?: (p: ImportProgress) => void;
    /**
     * Read streamed bundles in a worker thread while this thread inserts their rows (default:
     * from {@link workerThresholdBytes} where the worker can run, lib/db `canReadInWorker`;
     * SYMTRACE_IMPORT_WORKER=0 turns it off).
     */
    readInWorker?: boolean;
  } = {},
): Promise<ImportReport> {
  const report: ImportReport = {
    imported: 0,
    skipped: 0,
    replaced: 0,
    failed: [],
    ignored: [],
    cases: [],
    warnings: { counts: {}, items: [] },
  };
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...listJsonFiles(p));
    } catch (e) {
      report.failed.push({ file: p, errors: [{ path: "$", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
    }
  }
  const min = { other: opts.streamMinBytes ?? streamThresholdBytes("other"), bundle: opts.streamMinBytes ?? streamThresholdBytes("bundle") };
  for (const file of files) {
    let size = 0;
    try {
      size = statSync(file).size;
    } catch (e) {
      report.failed.push({ file, errors: [{ path: "$", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
      continue;
    }
    if (size >= Math.min(min.other, min.bundle)) {
      const done = await importLargeFile(db, file, size, min, opts, report);
      if (done) continue;
    }
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      report.failed.push({ file, errors: [{ path: "$", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
      continue;
    }
    if ((opts.format ?? "auto") === "auto" && NOT_TRACES.test(text.slice(0, 200))) {
      report.ignored.push(file);
      continue;
    }
    const res = importText(text, file, opts.format ?? "auto");
    await storeResult(db, file, res, opts, report);
  }
  return report;
}

/** Store the cases of one file's import result and record its failures and warnings. */
async function storeResult(db: Db, file: string, res: ImportFileResult, opts: { actorId?: string | null }, report: ImportReport): Promise<void> {
  {
    for (const f of res.failures) {
      // `where` is the file name, optionally followed by "#<record>"
      const hash = f.where.indexOf("#");
      report.failed.push({ file: hash < 0 ? file : `${file}${f.where.slice(hash)}`, errors: f.errors });
    }
    for (const c of res.cases) {
      for (const w of c.warnings ?? []) {
        report.warnings.counts[w.kind] = (report.warnings.counts[w.kind] ?? 0) + 1;
        report.warnings.items.push({ file, bundleId: c.bundle.id, kind: w.kind, path: w.path, message: w.message });
      }
      try {
        const r = await importCase(db, c, { actorId: opts.actorId });
        report[r.status] += 1;
        report.cases.push({ bundleId: c.bundle.id, caseId: r.caseId, status: r.status });
      } catch (e) {
        // A locked database fails every case alike: stop and say so (nothing half-written).
        if (isBusyError(e)) throw e;
        report.failed.push({ file: `${file}#${c.bundle.id}`, errors: [{ path: "$", message: (e as Error).message }] });
      }
    }
  }
}

/** The first `n` bytes of a file as text (format detection without reading it all). */
function head(file: string, n = 65536): string {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(n);
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

const BUNDLE_HEAD = /"format"\s*:\s*"symtrace\.bundle\//;
const OTEL_HEAD = /"resourceSpans"\s*:|"observations"\s*:/;

/**
 * Import one large file through the streaming readers. Bundles: validated, hashed and written
 * in batches in one transaction (lib/db importCaseStream). OTLP/JSON and Langfuse: parsed as a
 * stream into a value (no file-sized string), then mapped as usual.
 * @returns false when the file is left to the in-memory path (another format, small enough)
 */
async function importLargeFile(
  db: Db,
  file: string,
  size: number,
  min: { other: number; bundle: number },
  opts: { format?: ImportFormat; actorId?: string | null; onProgress?: (p: ImportProgress) => void; readInWorker?: boolean },
  report: ImportReport,
): Promise<boolean> {
  const fmt = opts.format ?? "auto";
  let start = "";
  try {
    start = head(file);
  } catch (e) {
    report.failed.push({ file, errors: [{ path: "$", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
    return true;
  }
  if (fmt === "auto" && NOT_TRACES.test(start.slice(0, 200))) {
    report.ignored.push(file);
    return true;
  }
  const t0 = Date.now();
  let last = 0;
  const progress = (bytes: number, totalBytes: number, nodes: number) => {
    const now = Date.now();
    if (!opts.onProgress || (now - last < 500 && bytes < totalBytes)) return;
    last = now;
    opts.onProgress({ file, bytes, totalBytes, nodes, elapsedMs: now - t0 });
  };
  const isBundle = fmt === "bundle" || (fmt === "auto" && BUNDLE_HEAD.test(start));
  const isOtel = fmt === "otel" || (fmt === "auto" && !isBundle && OTEL_HEAD.test(start));
  if (size < (isBundle ? min.bundle : min.other)) return false;
  if (isBundle) {
    try {
      // Reading (parse, validate, hash) in a worker thread overlaps it with the inserts here.
      const reader = opts.readInWorker === false || (opts.readInWorker === undefined && size < workerThresholdBytes()) ? null : await streamReader();
      const inWorker = !!reader && (opts.readInWorker ?? reader.canReadInWorker());
      const r = await importCaseStream(db, (sink, rows) => (inWorker && reader ? reader.readBundleRowsInWorker(file, rows, { onProgress: progress }) : streamBundleFile(file, sink, { onProgress: progress })), {
        actorId: opts.actorId,
        fileName: path.basename(file),
      });
      report[r.status] += 1;
      report.cases.push({ bundleId: String(r.result.header.id), caseId: r.caseId, status: r.status });
    } catch (e) {
      if (isBusyError(e)) throw e;
      if (e instanceof StreamedBundleInvalidError) {
        const errors = e.issues.map((i) => ({ path: i.path, message: i.message }));
        if (e.moreIssues > 0) errors.push({ path: "$", message: `... and ${e.moreIssues} more issues not listed` });
        report.failed.push({ file, errors });
      } else {
        report.failed.push({ file, errors: [{ path: "$", message: (e as Error).message }] });
      }
    }
    return true;
  }
  if (isOtel) {
    let parsed: { value: unknown; sha256: string | null };
    try {
      parsed = await readJsonFileValue(file, { bigIntsAsStrings: true, sha256: true, onProgress: (b, t) => progress(b, t, 0) });
    } catch (e) {
      report.failed.push({ file, errors: [{ path: "$", message: e instanceof JsonStreamError ? e.message : `cannot read: ${(e as Error).message}` }] });
      return true;
    }
    const res = importOtelValue(parsed.value, { fileName: path.basename(file), traceSha256: parsed.sha256 ?? "" });
    await storeResult(db, file, res, opts, report);
    return true;
  }
  if (size > MAX_IN_MEMORY_BYTES) {
    report.failed.push({
      file,
      errors: [{ path: "$", code: "format-needed", message: `file is ${size} bytes: past the ${MAX_IN_MEMORY_BYTES}-byte limit of the in-memory importers, and only replay bundles, OTLP/JSON and Langfuse exports are read as a stream (choose the format bundle or otel if it is one of those)` }],
    });
    return true;
  }
  return false;
}
