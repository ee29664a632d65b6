/**
 * The app's releases (the Releases page and its downloads): release folders written server-side
 * under SYMTRACE_RELEASES_DIR (default data/releases), one folder per release version. The page
 * offers the whole release as one .tar.gz (streamed with tar-stream and zlib, nothing buffered
 * whole) and the folder's files one by one (manifest, datasheet, annotations, agreement, bundles).
 */
import { createReadStream, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { pack as tarPack } from "tar-stream";
import type { Db } from "../db";
import { releasesDir } from "../env";
import { MANIFEST_FILE, SHA256SUMS_FILE, type ReleaseManifest } from "../release";
import { exportRelease, ReleaseExportError } from "./release-export";
import { readReleaseManifest, ReleaseImportError } from "./release-import";
import type { ReleaseFilter } from "./release-select";

/** A release folder name: its version (letters, digits, dot, dash, underscore). */
export const RELEASE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface StoredRelease {
  name: string;
  dir: string;
  manifest: ReleaseManifest;
}

/** The releases in the folder, newest first (folders without a valid manifest are skipped). */
export function listReleases(dir = releasesDir()): StoredRelease[] {
  if (!existsSync(dir)) return [];
  const out: StoredRelease[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || !RELEASE_NAME.test(e.name)) continue;
    try {
      out.push({ name: e.name, dir: path.join(dir, e.name), manifest: readReleaseManifest(path.join(dir, e.name)) });
    } catch (err) {
      if (!(err instanceof ReleaseImportError)) throw err;
    }
  }
  return out.sort((a, b) => b.manifest.release.created.localeCompare(a.manifest.release.created));
}

/**
 * Write a new release into the releases folder.
 * @returns the stored release
 * @throws ReleaseExportError (nothing matches, or a release of that version exists)
 */
export async function createStoredRelease(db: Db, filter: ReleaseFilter, o: { dir?: string; now?: Date } = {}): Promise<StoredRelease> {
  const dir = o.dir ?? releasesDir();
  const tmpName = `.creating-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;
  const { dir: written, manifest } = await exportRelease(db, { out: path.join(dir, tmpName), filter, now: o.now });
  const name = manifest.release.version;
  const final = path.join(dir, name);
  if (existsSync(final)) {
    rmSync(written, { recursive: true, force: true });
    throw new ReleaseExportError("$", `a release named ${name} exists already`);
  }
  renameSync(written, final);
  return { name, dir: final, manifest };
}

/** A stored release's folder and manifest, or null (a bad name, no folder, an unreadable manifest). */
function storedRelease(name: string, dir: string): { root: string; m: ReleaseManifest } | null {
  if (!RELEASE_NAME.test(name)) return null;
  const root = path.join(dir, name);
  try {
    return { root, m: readReleaseManifest(root) };
  } catch {
    return null;
  }
}

/**
 * One file of a stored release, for download: only manifest.json, SHA256SUMS and the files the
 * manifest lists (so no path outside the release can be asked for).
 * @returns the bytes and a content type, or null when there is no such release or file
 */
export function readReleaseFile(name: string, rel: string, dir = releasesDir()): { bytes: Buffer; contentType: string } | null {
  const stored = storedRelease(name, dir);
  if (!stored) return null;
  const { root, m } = stored;
  const allowed = rel === MANIFEST_FILE || rel === SHA256SUMS_FILE || m.files.some((f) => f.path === rel);
  if (!allowed) return null;
  const bytes = readFileSync(path.join(root, rel));
  const contentType = rel.endsWith(".json") ? "application/json" : rel.endsWith(".md") ? "text/markdown; charset=utf-8" : "text/plain; charset=utf-8";
  return { bytes, contentType };
}

/**
 * The whole stored release as one gzip-compressed tar stream: `<name>/manifest.json`,
 * `<name>/SHA256SUMS` and every file the manifest lists, in manifest order, each streamed from
 * disk (memory stays at one chunk whatever the bundles' sizes). Unpacked, it is a folder that
 * `symtrace release import` loads.
 * @returns a readable byte stream (application/gzip), or null when there is no such release
 */
export function releaseArchive(name: string, dir = releasesDir()): Readable | null {
  const stored = storedRelease(name, dir);
  if (!stored) return null;
  const { root, m } = stored;
  const files = [MANIFEST_FILE, SHA256SUMS_FILE, ...m.files.map((f) => f.path)].filter((f, i, all) => all.indexOf(f) === i && existsSync(path.join(root, f)));
  const tar = tarPack();
  const gz = tar.pipe(createGzip());
  void (async () => {
    for (const rel of files) {
      const abs = path.join(root, rel);
      const st = statSync(abs);
      const entry = tar.entry({ name: `${name}/${rel}`, size: st.size, mtime: st.mtime, mode: 0o644 });
      await pipeline(createReadStream(abs), entry);
    }
    tar.finalize();
  })().catch((e: Error) => gz.destroy(e));
  return gz;
}
