/**
 * Release export (issue 14 item 1; seeds/000 §4.3): a versioned folder with
 *
 * ```
 * manifest.json                  symtrace.release/v1: cases (bundle id, file, SHA-256, bundleHash),
 *                                counts by MAS / benchmark / source dataset / final primary category,
 *                                tool version + git commit, licence per source dataset, every file's SHA-256
 * README.md                      datasheet (Gebru et al.) filled from the data, κ included
 * SHA256SUMS                     the same checksums (+ manifest.json) for `sha256sum -c`
 * bundles/<id>.bundle.json       each case's bundle, canonical JSON as `symtrace export` writes it
 * annotations/annotations.json   symtrace.annotations/v1: initial (blind) + final annotations,
 *                                rationales, evidence; annotators pseudonymised
 * agreement.json                 the lib/agreement report (lib/services/agreement, = agreement --from-db)
 * licenses/*.LICENSE.txt         verbatim licence texts the source datasets require
 * ```
 *
 * The folder is written under a temporary name beside `out` and renamed at the end: a failed export
 * leaves nothing behind.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { canonicalJson, serializeBundle } from "../bundle";
import { bundleHash, exportAnnotations, exportBundle, type AnnotationsFileV1, type Db } from "../db";
import {
  AGREEMENT_FILE,
  ANNOTATIONS_FILE,
  BUNDLES_DIR,
  DATASHEET_FILE,
  LICENSE_FILES,
  MANIFEST_FILE,
  RELEASE_FORMAT,
  SHA256SUMS_FILE,
  bundleFileName,
  licenceOf,
  pseudonymMap,
  randomPseudonymKey,
  releaseCounts,
  releaseLicences,
  releaseManifestSchema,
  renderDatasheet,
  scrubIdentities,
  sha256Hex,
  sha256sumsText,
  type FileChecksum,
  type Identity,
  type ReleaseCase,
  type ReleaseManifest,
} from "../release";
import { agreementOfAnnotations } from "./agreement";
import { ReleaseSelectionError, selectReleaseCases, type ReleaseFilter, type ReleaseFormatExporter } from "./release-select";

/** Format of agreement.json. */
export const RELEASE_AGREEMENT_FORMAT = "symtrace.release-agreement/v1";
export const DEFAULT_RELEASE_NAME = "SymTrace failure-annotation release";

/** A release that cannot be written (nothing was written): `path` names the option or JSON path. */
export class ReleaseExportError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "ReleaseExportError";
  }
}

export interface ReleaseExportOptions {
  /** Folder to create; must not exist or be empty. */
  out: string;
  filter: ReleaseFilter;
  /** Default: `YYYY.MM.DD-<8 hex of the content>`. */
  releaseVersion?: string;
  name?: string;
  /**
   * HMAC key of the pseudonyms (lib/release/pseudonym.ts). Default SYMTRACE_RELEASE_PSEUDONYM_KEY
   * (stable pseudonyms across releases), else a random key used once and not stored.
   */
  pseudonymKey?: string;
  /** Bootstrap resamples / seed of agreement.json (defaults: lib/agreement's, as `agreement --from-db`). */
  resamples?: number;
  seed?: number;
  /** Creation time (tests). */
  now?: Date;
}

export interface ReleaseExportResult {
  dir: string;
  manifest: ReleaseManifest;
}

/** package.json version (npm sets npm_package_version; else read from the working directory). */
function toolVersion(): string {
  if (process.env.npm_package_version) return process.env.npm_package_version;
  try {
    return (JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** The git commit of the running code (SYMTRACE_GIT_COMMIT, else `git rev-parse HEAD`, else null). */
function gitCommit(): string | null {
  if (process.env.SYMTRACE_GIT_COMMIT) return process.env.SYMTRACE_GIT_COMMIT;
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: process.cwd(), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 5_000 }).trim() || null;
  } catch {
    return null;
  }
}

/** Neutral marker for an account named in a rationale who has no annotation in the release. */
export const OTHER_ACCOUNT = "[another account]";

/**
 * Replace every person's label by its pseudonym, and every account's email or name inside a
 * rationale by that person's pseudonym (or {@link OTHER_ACCOUNT}).
 * @param accounts every account of the database (email, name)
 * @returns the new file and the people per role
 */
function pseudonymise(file: AnnotationsFileV1, key: string, accounts: ReadonlyArray<{ email: string; name: string }>) {
  const labels = file.cases.flatMap((c) => [...c.initial.map((a) => a.annotator ?? ""), ...(c.final ? [c.final.adjudicator ?? c.final.annotator ?? ""] : [])]).filter(Boolean);
  const map = pseudonymMap(labels, key);
  // a label is an email, or an imported account's name (annotations-io accountLabel)
  const identities: Identity[] = accounts.map((u) => ({ texts: [u.email, u.name], replacement: map.get(u.email) ?? map.get(u.name) ?? OTHER_ACCOUNT }));
  const scrub = (t: string) => scrubIdentities(t, identities);
  const p = (l: string | undefined) => (l === undefined ? undefined : map.get(l)!);
  const annotators = new Set<string>();
  const adjudicators = new Set<string>();
  const cases = file.cases.map((c) => {
    const initial = c.initial.map((a) => {
      const { annotator, ...rest } = a;
      annotators.add(p(annotator)!);
      return { annotator: p(annotator), ...rest, rationale: scrub(rest.rationale) };
    });
    let final: typeof c.final = null;
    if (c.final) {
      const { adjudicator, annotator, ...rest } = c.final;
      const who = p(adjudicator ?? annotator)!;
      adjudicators.add(who);
      final = { adjudicator: who, ...rest, rationale: scrub(rest.rationale) };
    }
    // sorted by pseudonym, as `annotations export` sorts by label
    return { caseId: c.caseId, initial: initial.sort((a, b) => (a.annotator ?? "").localeCompare(b.annotator ?? "")), final };
  });
  return { file: { ...file, cases }, people: map.size, annotators: annotators.size, adjudicators: adjudicators.size };
}

/**
 * Write a release folder.
 * @returns the folder and its manifest
 * @throws ReleaseExportError when `out` exists and is not empty, or nothing matches the filter
 *   (path "--cases" for an unknown id); nothing is written then
 */
export async function exportRelease(db: Db, o: ReleaseExportOptions): Promise<ReleaseExportResult> {
  const out = path.resolve(o.out);
  if (existsSync(out) && readdirSync(out).length > 0) throw new ReleaseExportError("--out", `${o.out} exists and is not empty; a release is written into a new (or empty) folder`);
  let rows;
  try {
    rows = await selectReleaseCases(db, o.filter);
  } catch (e) {
    if (e instanceof ReleaseSelectionError) throw new ReleaseExportError(e.path, e.message);
    throw e;
  }
  const now = o.now ?? new Date();
  const key = o.pseudonymKey || process.env.SYMTRACE_RELEASE_PSEUDONYM_KEY || randomPseudonymKey();

  // annotations of the released cases (submitted only; cases without any are not in the file)
  const released = new Set(rows.map((r) => r.bundleId));
  const all = await exportAnnotations(db, { submittedOnly: true });
  const accounts = await db.user.findMany({ select: { email: true, name: true } });
  const anon = pseudonymise({ ...all, about: "", cases: all.cases.filter((c) => released.has(c.caseId)) }, key, accounts);
  const annotationsFile: AnnotationsFileV1 = {
    ...anon.file,
    about: `Initial (blind) and final (adjudicated) annotations of a SymTrace Studio release; annotators pseudonymised (HMAC-SHA256, key not published).`,
  };
  const byCase = new Map(annotationsFile.cases.map((c) => [c.caseId, c] as const));

  const files: FileChecksum[] = [];
  const texts = new Map<string, string>();
  const put = (rel: string, text: string) => {
    texts.set(rel, text);
    files.push({ path: rel, sha256: sha256Hex(text), bytes: Buffer.byteLength(text, "utf8") });
  };

  // bundles
  const cases: ReleaseCase[] = [];
  const usedNames = new Set<string>();
  for (const r of rows) {
    const b = await exportBundle(db, { caseId: r.id });
    if (!b) throw new ReleaseExportError("$", `case ${r.bundleId} vanished during the export`);
    let name = bundleFileName(r.bundleId);
    for (let i = 2; usedNames.has(name); i++) name = bundleFileName(r.bundleId).replace(/\.bundle\.json$/, `.${i}.bundle.json`);
    usedNames.add(name);
    const rel = `${BUNDLES_DIR}/${name}`;
    const text = serializeBundle(b);
    put(rel, text);
    const a = byCase.get(r.bundleId);
    cases.push({
      bundleId: r.bundleId,
      file: rel,
      sha256: sha256Hex(text),
      bundleHash: bundleHash(b),
      sourceDataset: r.sourceDataset,
      sourceSubset: r.sourceSubset,
      sourceFile: r.sourceFile,
      taskId: r.taskId,
      mas: r.mas,
      benchmark: r.benchmark,
      model: r.model,
      outcomePassed: r.outcomePassed,
      initialAnnotations: a?.initial.length ?? 0,
      adjudicated: !!a?.final,
      finalPrimary: a?.final?.primary ?? null,
    });
  }
  put(ANNOTATIONS_FILE, JSON.stringify(annotationsFile, null, 2) + "\n");

  // agreement: the same service and options as `agreement --from-db`
  const report = annotationsFile.cases.length ? agreementOfAnnotations(annotationsFile, { resamples: o.resamples, seed: o.seed }) : null;
  const ok = report && report.ok ? report : null;
  put(
    AGREEMENT_FILE,
    JSON.stringify(
      {
        format: RELEASE_AGREEMENT_FORMAT,
        computedBy: "lib/agreement analyzeAnnotations through lib/services/agreement (the numbers of `symtrace agreement --from-db`); recompute with `symtrace agreement annotations/annotations.json`",
        report: ok,
        ...(ok ? {} : { reason: report && !report.ok ? report.errors.map((e) => e.message).join("; ") : "no released case has annotations" }),
      },
      null,
      2,
    ) + "\n",
  );

  const licences = releaseLicences(cases, licenceOf);
  for (const l of licences) if (l.licenseFile) put(l.licenseFile, LICENSE_FILES[l.licenseFile]);

  const contentId = sha256Hex(canonicalJson({ bundles: cases.map((c) => c.bundleHash), annotations: files.find((f) => f.path === ANNOTATIONS_FILE)!.sha256 })).slice(0, 8);
  const version = o.releaseVersion ?? `${now.toISOString().slice(0, 10).replaceAll("-", ".")}-${contentId}`;
  const draft: ReleaseManifest = {
    format: RELEASE_FORMAT,
    release: { name: o.name ?? DEFAULT_RELEASE_NAME, version, created: now.toISOString() },
    tool: { name: "symtrace-studio", version: toolVersion(), gitCommit: gitCommit() },
    filter: { mas: o.filter.mas ?? null, benchmark: o.filter.benchmark ?? null, status: o.filter.status ?? "adjudicated", cases: o.filter.cases?.length ? [...o.filter.cases] : null },
    pseudonymisation: {
      scheme: "HMAC-SHA256 of the account label, first 8+ hex digits as person-<hex>",
      people: anon.people,
      note: "The same person has the same pseudonym in every file of this release; the key is not published.",
    },
    counts: releaseCounts(cases, { annotators: anon.annotators, adjudicators: anon.adjudicators }),
    agreement: ok
      ? {
          file: AGREEMENT_FILE,
          cases: ok.cases,
          excluded: ok.excluded.length,
          resamples: ok.bootstrap.resamples,
          seed: ok.bootstrap.seed,
          primaryCategoryKappa: ok.primaryCategory.kappa,
          categorySetKappa: ok.categorySet.kappa,
          nodeTypeKappa: ok.nodeType.kappa,
        }
      : null,
    licences,
    cases,
    files: [],
  };
  put(DATASHEET_FILE, renderDatasheet(draft, ok));
  const manifest: ReleaseManifest = { ...draft, files: [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
  releaseManifestSchema.parse(manifest); // our own output must satisfy what the importer checks
  const manifestText = JSON.stringify(manifest, null, 2) + "\n";

  // write under a temporary name, then rename: all or nothing
  const tmp = `${out}.partial-${randomUUID().slice(0, 8)}`;
  try {
    for (const [rel, text] of [...texts, [MANIFEST_FILE, manifestText] as const]) {
      const f = path.join(tmp, rel);
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, text);
    }
    writeFileSync(path.join(tmp, SHA256SUMS_FILE), sha256sumsText([...manifest.files, { path: MANIFEST_FILE, sha256: sha256Hex(manifestText), bytes: Buffer.byteLength(manifestText) }]));
    if (existsSync(out)) rmSync(out, { recursive: true }); // empty (checked above)
    renameSync(tmp, out);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return { dir: out, manifest };
}

/** `release export --format bundle` (the default format of cli/release.ts). */
export const bundleReleaseFormat: ReleaseFormatExporter = async (db, args) => {
  if (args.parquet) return { code: 2, output: { ok: false, errors: [{ path: "--parquet", message: "--parquet applies to the JSONL formats, not --format bundle" }] } };
  if (args.rest.length) return { code: 2, output: { ok: false, errors: [{ path: args.rest[0], message: `unknown option ${args.rest[0]} for --format bundle` }] } };
  try {
    const { dir, manifest } = await exportRelease(db, { out: args.out, filter: args.filter, releaseVersion: args.releaseVersion });
    return {
      code: 0,
      output: {
        ok: true,
        dir,
        version: manifest.release.version,
        cases: manifest.counts.cases,
        annotations: { initial: manifest.counts.initialAnnotations, final: manifest.counts.finalAnnotations },
        files: manifest.files.length + 2,
        agreement: manifest.agreement,
        licences: manifest.licences.map((l) => ({ dataset: l.dataset, licence: l.licence, cases: l.cases })),
      },
    };
  } catch (e) {
    if (e instanceof ReleaseExportError) return { code: 1, output: { ok: false, errors: [{ path: e.path, message: e.message }] } };
    throw e;
  }
};
