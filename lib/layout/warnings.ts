/**
 * Import warnings of one node (issue 20 item 11): the plain-text markers an importer wrote in the
 * node's `content.importWarnings` (lib/importers: "clock skew: ...", "not ended", "parent not in
 * trace: <id>", "span tree depth 6,000: deepest span", ...), shown as a badge on the node in the
 * graph and the timeline. Pure.
 */

/** Prefix of the nodes' JSON text that carries markers (a cheap pre-filter for the database query). */
export const IMPORT_WARNINGS_KEY = '"importWarnings"';

/**
 * @param content parsed node content (any JSON value)
 * @returns the markers (strings, in order), or null when there are none
 */
export function nodeImportWarningsOf(content: unknown): string[] | null {
  if (typeof content !== "object" || content === null || Array.isArray(content)) return null;
  const w = (content as { importWarnings?: unknown }).importWarnings;
  if (!Array.isArray(w)) return null;
  const out = w.filter((x): x is string => typeof x === "string" && x.length > 0);
  return out.length > 0 ? out : null;
}

/**
 * Counts of import warnings per kind, from a case's `source.importWarnings`
 * (`[{kind, path, message}]`, lib/importers ImportWarning), in first-seen order, and the message
 * of each `deep-span-tree` warning (it names the depth).
 */
export function importWarningCounts(source: unknown): { counts: Array<[kind: string, n: number]>; depth: string[]; total: number } {
  const list = typeof source === "object" && source !== null ? (source as { importWarnings?: unknown }).importWarnings : undefined;
  const counts = new Map<string, number>();
  const depth: string[] = [];
  let total = 0;
  for (const w of Array.isArray(list) ? list : []) {
    if (typeof w !== "object" || w === null) continue;
    const kind = typeof (w as { kind?: unknown }).kind === "string" ? (w as { kind: string }).kind : "other";
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    total++;
    const msg = (w as { message?: unknown }).message;
    if (kind === "deep-span-tree" && typeof msg === "string") depth.push(msg);
  }
  return { counts: [...counts], depth, total };
}
