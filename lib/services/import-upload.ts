/**
 * One file uploaded on the import page (/import → POST /api/import), imported by the very job
 * behind `symtrace import` (importPaths in ./import-files): the upload is spooled to a private
 * temporary folder under its own base name, imported from there, and the temporary prefix is
 * taken out of the report again. So the counts, statuses, error paths and any other fields of the
 * report (e.g. warnings) are exactly what the CLI prints for a file of that name, and each case is
 * stored in its own transaction as the CLI does (a failed file or record writes nothing).
 *
 * The body is counted while it is written: over the limit the spooling stops, nothing is
 * imported and UploadTooLargeError is thrown (the route answers 413).
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { formatBytes } from "../bytes";
import type { Db } from "../db";
import { readEnv, type Env } from "../env";
import type { ImportFormat } from "../importers";
import { importPaths, type ImportReport } from "./import-files";

/** Default largest upload: 256 MiB per file (SYMTRACE_IMPORT_MAX_BYTES overrides). */
export const DEFAULT_IMPORT_MAX_BYTES = 256 * 1024 * 1024;

/** The largest file the import page accepts, in bytes (SYMTRACE_IMPORT_MAX_BYTES or 256 MiB). */
export function importMaxBytes(env: Env = readEnv()): number {
  return env.SYMTRACE_IMPORT_MAX_BYTES ?? DEFAULT_IMPORT_MAX_BYTES;
}

/** An upload larger than the limit (the route answers 413 with `message`). */
export class UploadTooLargeError extends Error {
  constructor(
    readonly file: string,
    readonly limit: number,
  ) {
    super(
      `${file}: larger than the import limit of ${limit} bytes (${formatBytes(limit)}); ` +
        "import it with `npm run symtrace -- import <file>` (the CLI has no limit) or raise SYMTRACE_IMPORT_MAX_BYTES",
    );
    this.name = "UploadTooLargeError";
  }
}

/**
 * The name an uploaded file is imported (and reported) under: its base name only — no folders,
 * no control characters, at most 200 characters — or "upload.json" when nothing is left.
 */
export function uploadFileName(raw: string): string {
  const base = (raw.split(/[\\/]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(-200);
  return base === "" || base === "." || base === ".." ? "upload.json" : base;
}

/** What one upload gives: the CLI's import report (names relative to the upload) + size. */
export type UploadReport = ImportReport & {
  /** The name the file was imported under (see uploadFileName). */
  file: string;
  /** Size of the upload in bytes. */
  bytes: number;
};

/** Replace the temporary folder prefix in every string of the report (any shape, any field). */
function relabel(v: unknown, prefix: string): unknown {
  if (typeof v === "string") return v.startsWith(prefix) ? v.slice(prefix.length) : v;
  if (Array.isArray(v)) return v.map((x) => relabel(x, prefix));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, relabel(x, prefix)]));
  return v;
}

/**
 * Import one uploaded file.
 * @param input.name the client's file name (reduced by uploadFileName)
 * @param input.body the file's bytes as a stream (null: an empty file)
 * @param input.format the importer, or "auto" to detect (as `symtrace import --format`)
 * @param input.actorId the uploader, recorded in the audit trail of each stored case
 * @param input.maxBytes the size limit in bytes (default importMaxBytes())
 * @returns the import report with file names as the CLI prints them for a file of that name
 * @throws UploadTooLargeError when the body exceeds maxBytes (nothing imported)
 */
export async function importUpload(
  db: Db,
  input: { name: string; body: ReadableStream<Uint8Array> | null; format?: ImportFormat; actorId?: string | null; maxBytes?: number },
): Promise<UploadReport> {
  const name = uploadFileName(input.name);
  const limit = input.maxBytes ?? importMaxBytes();
  const dir = path.join(os.tmpdir(), `symtrace-upload-${randomUUID()}`);
  await mkdir(dir, { recursive: false, mode: 0o700 });
  try {
    const file = path.join(dir, name);
    let bytes = 0;
    const fh = await open(file, "wx", 0o600);
    try {
      if (input.body) {
        const reader = input.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          if (bytes > limit) {
            await reader.cancel().catch(() => undefined);
            throw new UploadTooLargeError(name, limit);
          }
          await fh.write(value);
        }
      }
    } finally {
      await fh.close();
    }
    const report = await importPaths(db, [file], { format: input.format ?? "auto", actorId: input.actorId ?? null });
    return { ...(relabel(report, dir + path.sep) as ImportReport), file: name, bytes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
