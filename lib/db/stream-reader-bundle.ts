/**
 * The stream reader's worker (./stream-reader-worker.ts) as one bundled ES module, for a fast
 * start when the app runs from TypeScript sources (tsx: `npm run symtrace`, the benchmarks,
 * vitest). A worker started through tsx resolves and compiles each of its ~120 modules (lib/bundle,
 * zod, …) over tsx's loader thread: 1.5–2 s before the first row at load ~18 on 2 cores, against
 * 0.2–0.5 s for the bundle. Issue 25 item 3.
 *
 * The bundle is built with esbuild (tsx's own compiler) and kept in `node_modules/.cache/symtrace/`
 * under the sha256 of its text, with a manifest of its inputs (path, size, mtime): it is built
 * again when any input changed. Building takes 0.6–1.2 s, so the first import after a change
 * pays it once.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

interface Manifest {
  /** File name of the bundle in the cache directory (`<sha256 prefix>.mjs`). */
  bundle: string;
  /** sha256 (hex) of the bundle's text. */
  sha256: string;
  /** Every input file: absolute path, size in bytes, mtime in ms. */
  inputs: Array<[string, number, number]>;
}

/** `node_modules/.cache/symtrace`: next to the packages the bundle is made of, written by their owner. */
function cacheDir(): string {
  const tsxPkg = createRequire(import.meta.url).resolve("tsx/package.json");
  return path.join(/*turbopackIgnore: true*/ path.dirname(tsxPkg), "..", ".cache", "symtrace");
}

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** Write `text` to `file` through a temporary name (another process may be reading or writing it). */
function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`; // threads of one process too
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** The cached bundle of `manifestFile` when every input is unchanged and its text is intact, else null. */
function cached(dir: string, manifestFile: string): string | null {
  let m: Manifest;
  try {
    m = JSON.parse(readFileSync(manifestFile, "utf8")) as Manifest;
  } catch {
    return null;
  }
  for (const [file, size, mtime] of m.inputs) {
    try {
      const st = statSync(file);
      if (st.size !== size || st.mtimeMs !== mtime) return null;
    } catch {
      return null;
    }
  }
  const bundle = path.join(dir, m.bundle);
  try {
    return sha256(readFileSync(bundle)) === m.sha256 ? bundle : null;
  } catch {
    return null;
  }
}

let pending: Promise<string | null> | null = null;

/**
 * The bundled worker for the TypeScript source `src`: from the cache, or built now (once per
 * process at most).
 * @param src absolute path of stream-reader-worker.ts
 * @returns the bundle's path, or null when it cannot be had here (no esbuild, a build error, a
 *   read-only cache directory): then start the worker through tsx as before
 */
export function bundledWorkerFile(src: string): Promise<string | null> {
  return (pending ??= moduleBundle(src, cacheDir()).catch(() => null));
}

/**
 * One ES module bundling `src` and everything it imports (node: built-ins stay imports), from
 * `dir` when its manifest's inputs are unchanged, else built with esbuild and stored there.
 * @param src absolute path of the entry module (TypeScript or JavaScript)
 * @param dir cache directory (created when missing)
 * @returns absolute path of the bundle (`<dir>/stream-reader-<sha256 prefix>.mjs`)
 * @throws when esbuild is missing or the build fails, or `dir` cannot be written
 */
export async function moduleBundle(src: string, dir: string): Promise<string> {
  const manifestFile = path.join(dir, `stream-reader-${sha256(src).slice(0, 16)}.json`);
  const hit = cached(dir, manifestFile);
  if (hit !== null) return hit;
  const esbuild = await import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "esbuild");
  const out = await esbuild.build({
    entryPoints: [src],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "silent",
    // CommonJS packages inside an ES module bundle still call require().
    banner: { js: 'import { createRequire as __symtraceCreateRequire } from "node:module"; const require = __symtraceCreateRequire(import.meta.url);' },
  });
  const text = out.outputFiles[0].text;
  const hash = sha256(text);
  mkdirSync(dir, { recursive: true });
  const bundle = `stream-reader-${hash.slice(0, 16)}.mjs`;
  writeAtomic(path.join(dir, bundle), text);
  const inputs: Manifest["inputs"] = Object.keys(out.metafile.inputs).map((f) => {
    const abs = path.resolve(f);
    const st = statSync(abs);
    return [abs, st.size, st.mtimeMs];
  });
  writeAtomic(manifestFile, JSON.stringify({ bundle, sha256: hash, inputs } satisfies Manifest));
  return path.join(dir, bundle);
}
