/**
 * `manifest.json` of a release (issue 14 item 1; seeds/000 §4.3: "the release includes the task
 * manifest, linked traces and graphs, initial and final annotations, rationales, and supporting
 * evidence"): its shape (zod, so `release import` reports a bad manifest by JSON path), and the
 * counts computed from the released cases.
 */
import { z } from "zod";
import type { DatasetLicence } from "./licences";

export const RELEASE_FORMAT = "symtrace.release/v1";
export const MANIFEST_FILE = "manifest.json";
export const DATASHEET_FILE = "README.md";
export const AGREEMENT_FILE = "agreement.json";
export const ANNOTATIONS_FILE = "annotations/annotations.json";
export const SHA256SUMS_FILE = "SHA256SUMS";
export const BUNDLES_DIR = "bundles";

/** Group label of a missing MAS / benchmark / category in the counts. */
export const NONE = "(none)";

const fileChecksum = z.object({ path: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/, "sha256 must be 64 lowercase hex digits"), bytes: z.number().int().nonnegative() });

export const releaseCaseSchema = z.object({
  bundleId: z.string().min(1),
  /** Release-relative path of the bundle file (canonical JSON as `symtrace export` writes it). */
  file: z.string().min(1),
  /** SHA-256 of the bundle file's bytes (hex). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The bundle's identity in the database: "sha256:" + sha256(JCS(bundle)) (Case.bundleHash). */
  bundleHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  sourceDataset: z.string(),
  sourceSubset: z.string().nullable(),
  /** File name the case was imported from (Case.sourceFile), null when unknown. */
  sourceFile: z.string().nullable(),
  taskId: z.string().nullable(),
  mas: z.string().nullable(),
  benchmark: z.string().nullable(),
  model: z.string().nullable(),
  outcomePassed: z.boolean().nullable(),
  /** Submitted initial (blind) annotations released for the case. */
  initialAnnotations: z.number().int().nonnegative(),
  adjudicated: z.boolean(),
  /** Primary category of the final annotation, null when not adjudicated. */
  finalPrimary: z.string().nullable(),
});
export type ReleaseCase = z.infer<typeof releaseCaseSchema>;

const counts = z.record(z.string(), z.number().int().nonnegative());

export const releaseManifestSchema = z.object({
  format: z.literal(RELEASE_FORMAT, { error: `format must be "${RELEASE_FORMAT}"` }),
  release: z.object({ name: z.string().min(1), version: z.string().min(1), created: z.string().min(1) }),
  tool: z.object({ name: z.string(), version: z.string(), gitCommit: z.string().nullable() }),
  filter: z.object({ mas: z.string().nullable(), benchmark: z.string().nullable(), status: z.enum(["adjudicated", "all"]), cases: z.array(z.string()).nullable() }),
  pseudonymisation: z.object({ scheme: z.string(), people: z.number().int().nonnegative(), note: z.string() }),
  counts: z.object({
    cases: z.number().int().nonnegative(),
    adjudicated: z.number().int().nonnegative(),
    initialAnnotations: z.number().int().nonnegative(),
    finalAnnotations: z.number().int().nonnegative(),
    annotators: z.number().int().nonnegative(),
    adjudicators: z.number().int().nonnegative(),
    byMas: counts,
    byBenchmark: counts,
    bySourceDataset: counts,
    byPrimaryCategory: counts,
  }),
  agreement: z
    .object({
      file: z.string(),
      cases: z.number().int().nonnegative(),
      excluded: z.number().int().nonnegative(),
      resamples: z.number().int().positive(),
      seed: z.number().int(),
      primaryCategoryKappa: z.number().nullable(),
      categorySetKappa: z.number().nullable(),
      nodeTypeKappa: z.number().nullable(),
    })
    .nullable(),
  licences: z.array(
    z.object({
      dataset: z.string(),
      cases: z.number().int().nonnegative(),
      name: z.string(),
      licence: z.string(),
      origin: z.string(),
      attribution: z.string().nullable(),
      licenseFile: z.string().nullable(),
      note: z.string().nullable(),
    }),
  ),
  cases: z.array(releaseCaseSchema),
  /** Every file of the release except manifest.json and SHA256SUMS, sorted by path. */
  files: z.array(fileChecksum),
});
export type ReleaseManifest = z.infer<typeof releaseManifestSchema>;

/** Count by a key (null → {@link NONE}), keys sorted. */
export function countBy<T>(xs: ReadonlyArray<T>, key: (x: T) => string | null): Record<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) {
    const k = key(x) ?? NONE;
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return Object.fromEntries([...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The manifest's `counts` from the released cases and the pseudonymised people.
 * @param people.annotators / adjudicators distinct pseudonyms in each role
 */
export function releaseCounts(cases: ReadonlyArray<ReleaseCase>, people: { annotators: number; adjudicators: number }): ReleaseManifest["counts"] {
  return {
    cases: cases.length,
    adjudicated: cases.filter((c) => c.adjudicated).length,
    initialAnnotations: cases.reduce((n, c) => n + c.initialAnnotations, 0),
    finalAnnotations: cases.filter((c) => c.adjudicated).length,
    annotators: people.annotators,
    adjudicators: people.adjudicators,
    byMas: countBy(cases, (c) => c.mas),
    byBenchmark: countBy(cases, (c) => c.benchmark),
    bySourceDataset: countBy(cases, (c) => c.sourceDataset),
    byPrimaryCategory: countBy(cases, (c) => c.finalPrimary),
  };
}

/** The manifest's licence entries: one per source dataset present, with its case count. */
export function releaseLicences(cases: ReadonlyArray<ReleaseCase>, licenceOf: (dataset: string, files: Array<string | null>) => DatasetLicence): ReleaseManifest["licences"] {
  const by = new Map<string, Array<string | null>>();
  for (const c of cases) by.set(c.sourceDataset, [...(by.get(c.sourceDataset) ?? []), c.sourceFile]);
  return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([dataset, files]) => ({ ...licenceOf(dataset, files), cases: files.length }));
}

/** A file-system-safe file name of a bundle id (as `symtrace export` names bundle files). */
export function bundleFileName(bundleId: string): string {
  return bundleId.replace(/[^A-Za-z0-9._-]+/g, "__") + ".bundle.json";
}
