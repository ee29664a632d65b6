/**
 * Release import (issue 14 item 1): load a release folder (lib/services/release-export.ts) into an
 * EMPTY database and prove the round trip.
 *
 * Order: (1) the database must hold no case, annotation, assignment, replay run or experiment; (2) manifest.json
 * is read and checked (zod, errors by JSON path); (3) every listed file's SHA-256 and size are
 * checked (a tampered or missing file is named; nothing is written); (4) every bundle is parsed and
 * validated and its canonical hash must equal the manifest's `bundleHash`; (5) bundles are stored
 * (lib/db importCase) and the annotations imported (lib/db importAnnotationsFile: each validated
 * against its case's graph as a form submission would be); (6) the stored bundle hashes and the
 * agreement figures recomputed from the database (lib/services/agreement, as `agreement --from-db`)
 * must equal the release's. A failure in (5) or (6) removes everything the import wrote.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { canonicalJson, parseJsonText, validateBundle, type ReplayBundle } from "../bundle";
import { bundleHash, importAnnotationsFile, importCase, type Db } from "../db";
import type { BundleSource } from "../importers/types";
import { AGREEMENT_FILE, ANNOTATIONS_FILE, MANIFEST_FILE, SHA256SUMS_FILE, releaseManifestSchema, verifyChecksums, type ReleaseManifest } from "../release";
import { agreementFromDb } from "./agreement";
import type { Result } from "./release-select";

export interface ReleaseImportProblem {
  /** The file (release-relative) or JSON path (`manifest.json $.cases[2].sha256`), or "$" / "database". */
  path: string;
  message: string;
}

/** The release was not imported; nothing of it is in the database. */
export class ReleaseImportError extends Error {
  constructor(readonly errors: ReleaseImportProblem[]) {
    super(errors.map((e) => `${e.path}: ${e.message}`).join("; "));
    this.name = "ReleaseImportError";
  }
}

export interface ReleaseImportResult {
  version: string;
  cases: number;
  annotations: { initial: number; final: number };
  accountsCreated: string[];
  verified: { files: number; bundleHashes: number; agreement: "equal" | "no agreement in the release" };
  /** Files in the folder that the manifest does not list (ignored). */
  unlisted: string[];
}

/** A release-relative path that stays inside the folder (no absolute path, no `..`). */
function safeRel(rel: string): boolean {
  return !path.isAbsolute(rel) && !rel.split(/[\\/]/).includes("..") && !rel.includes("\0");
}

function walk(dir: string, base = ""): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, base), { withFileTypes: true })) {
    const rel = base ? `${base}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(dir, rel));
    else out.push(rel);
  }
  return out;
}

/** Counts that make a database non-empty for `release import`. */
async function contents(db: Db) {
  const [cases, annotations, assignments, replayRuns, experiments] = await Promise.all([db.case.count(), db.annotation.count(), db.assignment.count(), db.replayRun.count(), db.experiment.count()]);
  return { cases, annotations, assignments, replayRuns, experiments };
}

/** Read and check manifest.json. @throws ReleaseImportError */
export function readReleaseManifest(dir: string): ReleaseManifest {
  const file = path.join(dir, MANIFEST_FILE);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ReleaseImportError([{ path: "$", message: `${dir} is not a folder` }]);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ReleaseImportError([{ path: MANIFEST_FILE, message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }]);
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (e) {
    throw new ReleaseImportError([{ path: MANIFEST_FILE, message: `${MANIFEST_FILE} is not JSON: ${(e as Error).message}` }]);
  }
  const m = releaseManifestSchema.safeParse(value);
  if (!m.success) throw new ReleaseImportError(m.error.issues.map((i) => ({ path: `${MANIFEST_FILE} $${i.path.map((k) => (typeof k === "number" ? `[${k}]` : `.${String(k)}`)).join("")}`, message: i.message })));
  const bad = m.data.files.filter((f) => !safeRel(f.path)).map((f) => ({ path: MANIFEST_FILE, message: `file path "${f.path}" leaves the release folder` }));
  const listed = new Set(m.data.files.map((f) => f.path));
  const needed = [ANNOTATIONS_FILE, AGREEMENT_FILE, ...m.data.cases.map((c) => c.file)].filter((p) => !listed.has(p));
  for (const p of needed) bad.push({ path: MANIFEST_FILE, message: `${p} is used by the release but has no checksum in manifest.json` });
  if (bad.length) throw new ReleaseImportError(bad);
  return m.data;
}

/** Remove what a failed import wrote (the database was empty of cases before it). */
async function undo(db: Db, caseIds: string[], accounts: string[]) {
  if (caseIds.length) {
    await db.auditEvent.deleteMany({ where: { caseId: { in: caseIds } } });
    await db.case.deleteMany({ where: { id: { in: caseIds } } });
  }
  if (accounts.length) await db.user.deleteMany({ where: { name: { in: accounts }, email: { endsWith: "@imported.symtrace.local" }, annotations: { none: {} } } });
}

/**
 * Import a release folder into an empty database.
 * @returns what was imported and verified
 * @throws ReleaseImportError (nothing of the release left in the database) when the database is not
 *   empty, the manifest is invalid, a file is missing or altered, a bundle is invalid or its hash
 *   differs, an annotation does not validate, or the recomputed agreement differs
 */
export async function importRelease(db: Db, dir: string): Promise<ReleaseImportResult> {
  const before = await contents(db);
  if (before.cases + before.annotations + before.assignments + before.replayRuns + before.experiments > 0)
    throw new ReleaseImportError([
      {
        path: "database",
        message: `the database is not empty (${before.cases} case(s), ${before.annotations} annotation(s), ${before.assignments} assignment(s), ${before.replayRuns} replay run(s), ${before.experiments} experiment(s)); release import loads only into an empty database: point DATABASE_URL at a new one`,
      },
    ]);
  const m = readReleaseManifest(dir);

  // checksums of every listed file, before anything is parsed or written
  const bytes = new Map<string, Buffer>();
  const problems = verifyChecksums(m.files, (rel) => {
    try {
      const b = readFileSync(path.join(dir, rel));
      bytes.set(rel, b);
      return b;
    } catch {
      return null;
    }
  });
  if (problems.length) throw new ReleaseImportError(problems);
  const listed = new Set([...m.files.map((f) => f.path), MANIFEST_FILE, SHA256SUMS_FILE]);
  const unlisted = walk(dir).filter((f) => !listed.has(f));

  // bundles: valid, and the canonical hash the manifest records
  const bundles: Array<{ bundle: ReplayBundle; source: BundleSource | null }> = [];
  const errors: ReleaseImportProblem[] = [];
  for (const c of m.cases) {
    let value: unknown;
    try {
      value = parseJsonText(bytes.get(c.file)!.toString("utf8"));
    } catch (e) {
      errors.push({ path: c.file, message: `not JSON: ${(e as Error).message}` });
      continue;
    }
    const v = validateBundle(value);
    if (!v.ok) {
      errors.push(...v.issues.slice(0, 5).map((i) => ({ path: `${c.file} ${i.path}`, message: i.message })));
      continue;
    }
    if (v.bundle.id !== c.bundleId) errors.push({ path: c.file, message: `bundle id "${v.bundle.id}" differs from the manifest's "${c.bundleId}"` });
    const h = bundleHash(v.bundle);
    if (h !== c.bundleHash) errors.push({ path: c.file, message: `bundle hash ${h} differs from the manifest's ${c.bundleHash}` });
    const own = (v.bundle as Record<string, unknown>).source;
    bundles.push({ bundle: v.bundle, source: own && typeof own === "object" ? null : { dataset: c.sourceDataset, subset: c.sourceSubset ?? undefined, file: c.sourceFile ?? undefined } as BundleSource });
  }
  let annotations: unknown;
  let agreement: { report: unknown } | null = null;
  try {
    annotations = parseJsonText(bytes.get(ANNOTATIONS_FILE)!.toString("utf8"));
  } catch (e) {
    errors.push({ path: ANNOTATIONS_FILE, message: `not JSON: ${(e as Error).message}` });
  }
  try {
    agreement = parseJsonText(bytes.get(AGREEMENT_FILE)!.toString("utf8")) as { report: unknown };
  } catch (e) {
    errors.push({ path: AGREEMENT_FILE, message: `not JSON: ${(e as Error).message}` });
  }
  if (errors.length) throw new ReleaseImportError(errors);

  // write; on any failure remove what was written
  const caseIds: string[] = [];
  let accounts: string[] = [];
  try {
    for (const b of bundles) {
      const r = await importCase(db, { bundle: b.bundle, ...(b.source ? { source: b.source } : {}) });
      caseIds.push(r.caseId);
    }
    const ann = await importAnnotationsFile(db, annotations, { source: `release ${m.release.version}` });
    accounts = ann.accountsCreated;
    if (ann.failed.length)
      throw new ReleaseImportError(ann.failed.flatMap((f) => f.errors.map((e) => ({ path: `${ANNOTATIONS_FILE} ${e.path}`, message: `case ${f.caseId ?? "?"}: ${e.message}` }))));

    // the round trip: stored hashes and recomputed agreement equal the release's
    const stored = await db.case.findMany({ where: { id: { in: caseIds } }, select: { bundleId: true, bundleHash: true } });
    const want = new Map(m.cases.map((c) => [c.bundleId, c.bundleHash] as const));
    const hashErrors = stored.filter((s) => want.get(s.bundleId) !== s.bundleHash).map((s) => ({ path: "database", message: `case ${s.bundleId} was stored with bundle hash ${s.bundleHash}, the release has ${want.get(s.bundleId)}` }));
    if (hashErrors.length) throw new ReleaseImportError(hashErrors);
    const expected = agreement?.report ?? null;
    let agreementState: ReleaseImportResult["verified"]["agreement"] = "no agreement in the release";
    if (expected && typeof expected === "object") {
      const b = (expected as { bootstrap?: { resamples?: number; seed?: number } }).bootstrap;
      const got = await agreementFromDb(db, {}, { resamples: b?.resamples, seed: b?.seed });
      if (!got.ok || canonicalJson(got) !== canonicalJson(expected))
        throw new ReleaseImportError([{ path: AGREEMENT_FILE, message: `the agreement recomputed from the imported annotations differs from ${AGREEMENT_FILE}${got.ok ? ` (primary-category κ ${got.primaryCategory.kappa} vs ${(expected as { primaryCategory?: { kappa?: unknown } }).primaryCategory?.kappa})` : `: ${got.errors.map((e) => e.message).join("; ")}`}` }]);
      agreementState = "equal";
    }
    return {
      version: m.release.version,
      cases: caseIds.length,
      annotations: { initial: ann.imported.initial, final: ann.imported.final },
      accountsCreated: accounts,
      verified: { files: m.files.length, bundleHashes: stored.length, agreement: agreementState },
      unlisted,
    };
  } catch (e) {
    await undo(db, caseIds, accounts);
    throw e;
  }
}

/** `release import <dir>` for cli/release.ts. */
export async function importReleaseCommand(db: Db, dir: string): Promise<Result> {
  try {
    const r = await importRelease(db, dir);
    return { code: 0, output: { ok: true, ...r } };
  } catch (e) {
    if (e instanceof ReleaseImportError) return { code: 1, output: { ok: false, errors: e.errors } };
    throw e;
  }
}
