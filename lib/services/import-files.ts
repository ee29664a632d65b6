/**
 * Import trace files and folders into the database: the job behind `symtrace import`, the demo
 * seed and the e2e setup. Each file goes through lib/importers (parse, map, validate); each case
 * is stored in its own transaction (lib/db importCase), so a bad file or record is reported and
 * skipped while the others import, and nothing of a failed case is written.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { importText, type ImportFormat, type ImportWarningKind } from "../importers";
import { importCase, type Db } from "../db";
import { isBusyError } from "../db/url";

export interface ImportReport {
  imported: number;
  skipped: number;
  replaced: number;
  failed: Array<{ file: string; errors: Array<{ path: string; message: string }> }>;
  /** Files passed over because they hold no trace (e.g. symtrace.annotations/v1). */
  ignored: string[];
  cases: Array<{ bundleId: string; caseId: string; status: "imported" | "skipped" | "replaced" }>;
  /**
   * Imperfections the importers repaired instead of rejecting (duplicate span ids, orphans,
   * skewed/open spans, unresolved links, tool arguments that are not a JSON object...):
   * `counts` per kind over all files, and each one with its file, bundle id and JSON path.
   */
  warnings: {
    counts: Partial<Record<ImportWarningKind, number>>;
    items: Array<{ file: string; bundleId: string; kind: ImportWarningKind; path: string; message: string }>;
  };
}

/** All .json files under a path (recursively, sorted), or the path itself when it is a file. */
export function listJsonFiles(p: string): string[] {
  const st = statSync(p);
  if (st.isFile()) return [p];
  const out: string[] = [];
  for (const e of readdirSync(p, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(p, e.name);
    if (e.isDirectory()) out.push(...listJsonFiles(full));
    else if (e.isFile() && e.name.toLowerCase().endsWith(".json")) out.push(full);
  }
  return out;
}

const NOT_TRACES = /"format"\s*:\s*"symtrace\.(annotations|agreement)\//;

/**
 * Import files and folders.
 * @param paths files or directories (directories are walked for *.json)
 * @param opts.format the importer to use, or "auto" to detect per file
 * @returns counts, per-file failures with JSON paths, and each stored case
 */
export async function importPaths(
  db: Db,
  paths: string[],
  opts: { format?: ImportFormat; actorId?: string | null } = {},
): Promise<ImportReport> {
  const report: ImportReport = {
    imported: 0,
    skipped: 0,
    replaced: 0,
    failed: [],
    ignored: [],
    cases: [],
    warnings: { counts: {}, items: [] },
  };
  const files: string[] = [];
  for (const p of paths) {
    try {
      files.push(...listJsonFiles(p));
    } catch (e) {
      report.failed.push({ file: p, errors: [{ path: "$", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
    }
  }
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      report.failed.push({ file, errors: [{ path: "$", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }] });
      continue;
    }
    if ((opts.format ?? "auto") === "auto" && NOT_TRACES.test(text.slice(0, 200))) {
      report.ignored.push(file);
      continue;
    }
    const res = importText(text, file, opts.format ?? "auto");
    for (const f of res.failures) {
      // `where` is the file name, optionally followed by "#<record>"
      const hash = f.where.indexOf("#");
      report.failed.push({ file: hash < 0 ? file : `${file}${f.where.slice(hash)}`, errors: f.errors });
    }
    for (const c of res.cases) {
      for (const w of c.warnings ?? []) {
        report.warnings.counts[w.kind] = (report.warnings.counts[w.kind] ?? 0) + 1;
        report.warnings.items.push({ file, bundleId: c.bundle.id, kind: w.kind, path: w.path, message: w.message });
      }
      try {
        const r = await importCase(db, c, { actorId: opts.actorId });
        report[r.status] += 1;
        report.cases.push({ bundleId: c.bundle.id, caseId: r.caseId, status: r.status });
      } catch (e) {
        // A locked database fails every case alike: stop and say so (nothing half-written).
        if (isBusyError(e)) throw e;
        report.failed.push({ file: `${file}#${c.bundle.id}`, errors: [{ path: "$", message: (e as Error).message }] });
      }
    }
  }
  return report;
}
