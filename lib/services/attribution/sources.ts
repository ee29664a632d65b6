/**
 * The Who&When cases the server can reach for a run started from the app (issue 24, "every README
 * path working from the app"): the shipped dataset folders of the shared folder the app is
 * configured with (`SYMTRACE_SHARED_DIR`, default `../shared`): `datasets/who_and_when_full/
 * Hand-Crafted` and `…/Algorithm-Generated` — the same files `symtrace detect --eval
 * --attribution --dir ../shared/datasets/who_and_when_full` reads. A request never names a path:
 * it chooses subsets and how many of each.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { SUBSETS, type AttributionCase, type Subset } from "../../attribution";
import { sharedDir } from "../../env";
import { loadAttributionCases } from "./study";

/** One subset folder the server can read. */
export interface WhoWhenSource {
  subset: Subset;
  /** Absolute folder. */
  dir: string;
  /** Its Who&When files (`*.json`), in numeric file order (1.json, 2.json, …, 10.json). */
  files: string[];
}

/** The folder of the full Who&When dataset under the configured shared folder. */
export function whoWhenDatasetDir(): string {
  return path.join(sharedDir(), "datasets", "who_and_when_full");
}

/**
 * The subset folders present under `root` (default {@link whoWhenDatasetDir}), each with its files;
 * a missing folder is left out (an empty list when the dataset is not shipped with this server).
 */
export function whoWhenSources(root: string = whoWhenDatasetDir()): WhoWhenSource[] {
  return SUBSETS.flatMap((subset) => {
    const dir = path.join(root, subset);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
      .map((f) => path.join(dir, f));
    return files.length ? [{ subset, dir, files }] : [];
  });
}

/**
 * The cases of the chosen subsets: the first `limit` files of each (all when null), imported and
 * read as attribution cases (lib/services/attribution/study.ts `loadAttributionCases`).
 * @param sources from {@link whoWhenSources}
 * @returns the cases (subset order, then file order), the folders read, files that did not import
 *   (`skipped`) and the label warnings of the importer
 * @throws Error naming the subset when a chosen subset is not among `sources`
 */
export function loadWhoWhenCases(sources: readonly WhoWhenSource[], subsets: readonly Subset[], limit: number | null): { cases: AttributionCase[]; dirs: string[]; skipped: Array<{ file: string; message: string }>; warnings: Array<{ file: string; message: string }> } {
  const chosen = subsets.map((s) => {
    const src = sources.find((x) => x.subset === s);
    if (!src) throw new Error(`the ${s} subset of Who&When is not available on this server (no ${s} folder under ${whoWhenDatasetDir()})`);
    return src;
  });
  const files = chosen.flatMap((s) => (limit === null ? s.files : s.files.slice(0, limit)));
  return { ...loadAttributionCases(files), dirs: chosen.map((s) => s.dir) };
}
