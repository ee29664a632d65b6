/**
 * Attribution runs on disk for the page and its CSV route: each subdirectory of the base folder
 * (SYMTRACE_ATTRIBUTION_DIR, default data/attribution) holding a study.json is one run (what
 * `symtrace detect --eval --attribution --run-dir` wrote), tabulated from its persisted jobs.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import type { TableRow } from "../../attribution";
import { studyTable } from "./study";

export const attributionBaseDir = (env: NodeJS.ProcessEnv = process.env) => path.resolve(env.SYMTRACE_ATTRIBUTION_DIR || path.join(/*turbopackIgnore: true*/ process.cwd(), "data/attribution"));
const NAME = /^[A-Za-z0-9._-]{1,200}$/;

/** Run names (subfolders with a study.json), sorted. */
export function listAttributionRuns(base = attributionBaseDir()): string[] {
  if (!existsSync(/*turbopackIgnore: true*/ base)) return [];
  return readdirSync(/*turbopackIgnore: true*/ base, { withFileTypes: true })
    .filter((d) => d.isDirectory() && NAME.test(d.name) && existsSync(path.join(/*turbopackIgnore: true*/ base, d.name, "study.json")))
    .map((d) => d.name)
    .sort();
}

/**
 * The table of one run.
 * @returns null when `name` is not a run of `base` (bad name, no such folder)
 */
export function attributionRunTable(name: string, base = attributionBaseDir()): { name: string; about: Record<string, unknown> | null; rows: TableRow[]; progress: { finished: number; failed: number; total: number | null } } | null {
  if (!NAME.test(name) || !listAttributionRuns(base).includes(name)) return null;
  return { name, ...studyTable(path.join(/*turbopackIgnore: true*/ base, name)) };
}
