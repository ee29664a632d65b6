/**
 * Which cases a release holds (issue 14): the `release export` filters, shared by every format
 * (bundle release, AED records, training views). Thin: one query through lib/db.
 */
import { canonicalBenchmark } from "../importers/benchmark-name";
import type { Db } from "../db";

/** The case filter of `release export` (and of the app's release button). */
export interface ReleaseFilter {
  /** Exact MAS name (Case.mas). */
  mas?: string | null;
  /** Benchmark name (canonicalised like the case list's filter). */
  benchmark?: string | null;
  /** "adjudicated" (default): only cases with a final annotation; "all": every selected case. */
  status?: "adjudicated" | "all";
  /** Bundle ids or case ids to restrict to; each must name a case. */
  cases?: string[] | null;
}

/** A case of a release, as the exporters need it. */
export interface ReleaseCaseRow {
  id: string;
  bundleId: string;
  bundleHash: string;
  sourceDataset: string;
  sourceSubset: string | null;
  sourceFile: string | null;
  taskId: string | null;
  mas: string | null;
  benchmark: string | null;
  model: string | null;
  outcomePassed: boolean | null;
  finalAnnotationId: string | null;
}

export class ReleaseSelectionError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "ReleaseSelectionError";
  }
}

/**
 * The cases matching a release filter, sorted by bundle id.
 * @throws ReleaseSelectionError naming `--cases` when an id names no case, or `$` when nothing matches
 */
export async function selectReleaseCases(db: Db, f: ReleaseFilter): Promise<ReleaseCaseRow[]> {
  let ids: string[] | null = null;
  if (f.cases?.length) {
    const rows = await db.case.findMany({ where: { OR: [{ bundleId: { in: f.cases } }, { id: { in: f.cases } }] }, select: { id: true, bundleId: true } });
    const known = new Set(rows.flatMap((r) => [r.id, r.bundleId]));
    const missing = f.cases.filter((c) => !known.has(c));
    if (missing.length) throw new ReleaseSelectionError("--cases", `no case with bundle id or case id ${missing.map((m) => JSON.stringify(m)).join(", ")}`);
    ids = rows.map((r) => r.id);
  }
  let benchmark: string | null = null;
  if (f.benchmark) {
    const seen = await db.case.findMany({ where: { benchmark: { not: null } }, distinct: ["benchmark"], select: { benchmark: true } });
    benchmark = canonicalBenchmark(f.benchmark, seen.map((s) => s.benchmark as string));
  }
  const rows = await db.case.findMany({
    where: {
      ...(ids ? { id: { in: ids } } : {}),
      ...(f.mas ? { mas: f.mas } : {}),
      ...(benchmark ? { benchmark } : {}),
      ...((f.status ?? "adjudicated") === "adjudicated" ? { finalAnnotationId: { not: null } } : {}),
    },
    select: {
      id: true,
      bundleId: true,
      bundleHash: true,
      sourceDataset: true,
      sourceSubset: true,
      sourceFile: true,
      taskId: true,
      mas: true,
      benchmark: true,
      model: true,
      outcomePassed: true,
      finalAnnotationId: true,
    },
    orderBy: { bundleId: "asc" },
  });
  if (rows.length === 0) {
    const what = [f.mas ? `mas "${f.mas}"` : "", f.benchmark ? `benchmark "${f.benchmark}"` : "", f.cases?.length ? `${f.cases.length} listed case(s)` : "", (f.status ?? "adjudicated") === "adjudicated" ? "adjudicated (with a final annotation)" : ""]
      .filter(Boolean)
      .join(", ");
    throw new ReleaseSelectionError("$", `no case matches the release filter${what ? ` (${what})` : ""}`);
  }
  return rows;
}

// ---------------------------------------------------------------- the exporters' contract (cli/release.ts)

/** A CLI result: exit code and the JSON printed. */
export type Result = { code: number; output: unknown };

/** What a `release export --format` exporter receives (parsed by cli/release.ts). */
export interface ReleaseExportArgs {
  /** Output folder. */
  out: string;
  format: string;
  filter: ReleaseFilter & { status: "adjudicated" | "all" };
  /** `--release-version V` (formats may ignore it). */
  releaseVersion?: string;
  /** `--parquet`: also write Parquet beside JSONL (formats that support it; bundle does not). */
  parquet: boolean;
  /** Options cli/release.ts did not recognise, left for the format (e.g. `--seed 7`); a format that takes none must reject them. */
  rest: string[];
}

/** An exporter of one `--format`: writes under `args.out`, returns the CLI result. */
export type ReleaseFormatExporter = (db: Db, args: ReleaseExportArgs) => Promise<Result>;
