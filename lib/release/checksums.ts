/**
 * Checksums of release files: SHA-256 of the exact bytes, lowercase hex (what `sha256sum` prints,
 * so `sha256sum -c SHA256SUMS` checks a release without this tool).
 */
import { createHash } from "node:crypto";

/** SHA-256 of bytes or UTF-8 text, lowercase hex (64 digits). */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** One file of a release: path relative to the release folder (forward slashes), digest, size in bytes. */
export interface FileChecksum {
  path: string;
  sha256: string;
  bytes: number;
}

/** A file whose bytes do not match the manifest, or that is missing. */
export interface ChecksumProblem {
  path: string;
  message: string;
}

/**
 * Compare files against their recorded checksums.
 * @param expected the manifest's `files`
 * @param read bytes of a release-relative path, or null when the file does not exist
 * @returns one problem per missing or altered file (empty when all match)
 */
export function verifyChecksums(expected: ReadonlyArray<FileChecksum>, read: (path: string) => Uint8Array | null): ChecksumProblem[] {
  const out: ChecksumProblem[] = [];
  for (const f of expected) {
    const bytes = read(f.path);
    if (bytes === null) {
      out.push({ path: f.path, message: `${f.path} is listed in manifest.json but missing from the release` });
      continue;
    }
    const got = sha256Hex(bytes);
    if (got !== f.sha256 || bytes.byteLength !== f.bytes)
      out.push({ path: f.path, message: `${f.path} was altered: sha256 ${got} (${bytes.byteLength} bytes), manifest.json records ${f.sha256} (${f.bytes} bytes)` });
  }
  return out;
}

/** `SHA256SUMS` text (`<hex>  <path>` per line, sorted by path), checkable with `sha256sum -c`. */
export function sha256sumsText(files: ReadonlyArray<FileChecksum>): string {
  return [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => `${f.sha256}  ${f.path}\n`)
    .join("");
}
