import path from "node:path";

/**
 * The demo's own data in the repo (not ../shared): demo/reference-orchestrator.bundle.json, one
 * run of the reference MAS (mas/orchestrator.ts, Hilltop Gardens task) recorded with
 * `symtrace record --runner orchestrator` against the scripted stand-in and the tool server
 * (how to re-record: demo/README.md). demo/ is data, never imported by the app's code, so the
 * Next.js build does not watch it.
 */
export function demoPaths(root: string = path.resolve(import.meta.dirname, "..")): string[] {
  return [path.join(root, "demo/reference-orchestrator.bundle.json")];
}
