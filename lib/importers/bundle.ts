/**
 * Importer for our own format: a replay bundle file (`symtrace.bundle/v1`), validated with every
 * rule of the bundle v1 spec. `source` and `referenceLabels` keys inside the bundle,
 * when present (bundles exported by us), are kept.
 */
import { validateBundle, type ReplayBundle } from "../bundle";
import { parseImportText } from "./parse";
import type { BundleSource, ImportFileResult, ReferenceLabel } from "./types";

/** A value that declares itself a bundle (`format` starts with "symtrace.bundle/"). */
export function isBundleFile(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { format?: unknown }).format === "string" &&
    (value as { format: string }).format.startsWith("symtrace.bundle/");
}

/**
 * Validate one bundle file.
 * @returns one case, or one failure listing every violation with its JSON path
 */
export function importBundleFile(text: string, opts: { fileName: string }): ImportFileResult {
  const parsed = parseImportText(text, opts.fileName, { allowNaN: false });
  return "result" in parsed ? parsed.result : importBundleValue(parsed.value, opts);
}

/** Same as importBundleFile, for an already-parsed value. */
export function importBundleValue(value: unknown, opts: { fileName: string }): ImportFileResult {
  const res = validateBundle(value);
  if (!res.ok) {
    return {
      cases: [],
      failures: [{ where: opts.fileName, errors: res.issues.map((i) => ({ path: i.path, message: i.message })) }],
    };
  }
  const b: ReplayBundle = res.bundle;
  const raw = b as Record<string, unknown>;
  const source: BundleSource =
    raw.source && typeof raw.source === "object"
      ? (raw.source as BundleSource)
      : { dataset: "bundle", file: opts.fileName };
  const referenceLabels = Array.isArray(raw.referenceLabels) ? (raw.referenceLabels as ReferenceLabel[]) : [];
  return { cases: [{ bundle: b, source, referenceLabels }], failures: [] };
}
