/**
 * `symtrace release`: dataset releases (issue 14). Thin: parsing here, work in lib/services/release-*.
 *
 *   release export --out <dir> [--format bundle|…] [--mas M] [--benchmark B]
 *                  [--status adjudicated|all] [--cases <id,id,…>] [--release-version V] [--parquet]
 *       --format bundle (default): the versioned release folder (manifest.json, README.md datasheet,
 *       bundles/, annotations/, agreement.json, licenses/), lib/services/release-export.ts.
 *       Other formats register themselves in RELEASE_FORMATS below (the extension point).
 *   release import <dir>
 *       load a release folder into an EMPTY database after verifying every checksum; then check that
 *       the stored bundle hashes and the agreement figures equal the release's.
 *
 * Returns `{ code, output }` and prints nothing: 0 ok; 1 invalid input or failure
 * (`{ ok: false, errors: [{ path, message }] }`); 2 bad usage. Never a stack trace.
 */
import type { Result, ReleaseExportArgs, ReleaseFormatExporter } from "../lib/services/release-select";
import { openMigratedDb } from "./common";

export type { Result, ReleaseExportArgs, ReleaseFormatExporter } from "../lib/services/release-select";

// ------------------------------------------------------------------------------------------------
// EXTENSION POINT (issue 14 items 2, 5, 6): one entry per `release export --format`. Each entry is a
// lazy loader, so a format's dependencies load only when it is used. Add formats here (or call
// registerReleaseFormat from a module imported here); keep "bundle" first (the default).
// ------------------------------------------------------------------------------------------------
const RELEASE_FORMATS = new Map<string, () => Promise<ReleaseFormatExporter>>([
  ["bundle", async () => (await import("../lib/services/release-export")).bundleReleaseFormat],
  // AED error–diagnosis records and training views (lib/services/release-aed.ts; options --seed, --train, --validation)
  ["aed", async () => (await import("../lib/services/release-aed")).aedReleaseFormat],
  ["sft-diagnosis", async () => (await import("../lib/services/release-aed")).viewReleaseFormat("sft-diagnosis")],
  ["sft-recovery", async () => (await import("../lib/services/release-aed")).viewReleaseFormat("sft-recovery")],
  ["preference", async () => (await import("../lib/services/release-aed")).viewReleaseFormat("preference")],
]);

/** Register (or replace) the exporter of a `--format` value. */
export function registerReleaseFormat(name: string, load: () => Promise<ReleaseFormatExporter>): void {
  RELEASE_FORMATS.set(name, load);
}

/** The registered `--format` values, default first. */
export function releaseFormats(): string[] {
  return [...RELEASE_FORMATS.keys()];
}

export const RELEASE_EXPORT_USAGE = () =>
  `symtrace release export --out <dir> [--format ${releaseFormats().join("|")}] [--mas M] [--benchmark B] [--status adjudicated|all] [--cases <id,id,...>] [--release-version V] [--parquet]`;
export const RELEASE_IMPORT_USAGE = "symtrace release import <dir>   (into an empty database; verifies checksums, bundle hashes and agreement figures)";

const fail = (code: number, message: string, p = "$"): Result => ({ code, output: { ok: false, errors: [{ path: p, message }] } });

/** Parse `release export` arguments. @returns the arguments, or a usage failure (code 2). */
export function parseReleaseExportArgs(args: string[]): ReleaseExportArgs | Result {
  const a = [...args];
  const take = (name: string): string | undefined | Result => {
    const i = a.indexOf(name);
    if (i < 0) return undefined;
    const v = a[i + 1];
    if (v === undefined || v.startsWith("--")) return fail(2, `${name} needs a value; usage: ${RELEASE_EXPORT_USAGE()}`, name);
    a.splice(i, 2);
    return v;
  };
  const vals: Record<string, string | undefined> = {};
  for (const n of ["--out", "--format", "--mas", "--benchmark", "--status", "--cases", "--release-version"]) {
    const v = take(n);
    if (typeof v === "object") return v;
    vals[n] = v;
  }
  const pi = a.indexOf("--parquet");
  const parquet = pi >= 0;
  if (parquet) a.splice(pi, 1);
  if (!vals["--out"]) return fail(2, `--out is required; usage: ${RELEASE_EXPORT_USAGE()}`, "--out");
  const format = vals["--format"] ?? "bundle";
  if (!RELEASE_FORMATS.has(format)) return fail(2, `--format must be one of ${releaseFormats().join(", ")}, got "${format}"`, "--format");
  const status = vals["--status"] ?? "adjudicated";
  if (status !== "adjudicated" && status !== "all") return fail(2, `--status must be adjudicated or all, got "${status}"`, "--status");
  const cases = vals["--cases"]
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (vals["--cases"] !== undefined && !cases?.length) return fail(2, "--cases needs at least one id", "--cases");
  // A value right after an option this parser does not know belongs to that option (`--seed 7`, left in `rest`).
  const positional = a.filter((x, i) => !x.startsWith("--") && !(i > 0 && a[i - 1]!.startsWith("--")));
  if (positional.length) return fail(2, `unexpected ${positional[0]}; usage: ${RELEASE_EXPORT_USAGE()}`);
  return {
    out: vals["--out"],
    format,
    filter: { mas: vals["--mas"], benchmark: vals["--benchmark"], status, cases },
    releaseVersion: vals["--release-version"],
    parquet,
    rest: a,
  };
}

/**
 * Run `release <export|import> ...` with the arguments after `release`.
 * @returns `{ code, output }` (see the module comment)
 */
export async function releaseCommand(args: string[]): Promise<Result> {
  const [sub, ...rest] = args;
  if (sub === "export") {
    const parsed = parseReleaseExportArgs(rest);
    if ("code" in parsed) return parsed;
    const exporter = await RELEASE_FORMATS.get(parsed.format)!();
    const { db } = await openMigratedDb();
    try {
      return await exporter(db, parsed);
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "import") {
    const unknown = rest.filter((x) => x.startsWith("--"));
    if (unknown.length) return fail(2, `unknown option ${unknown[0]}; usage: ${RELEASE_IMPORT_USAGE}`);
    if (rest.length !== 1) return fail(2, `usage: ${RELEASE_IMPORT_USAGE}`);
    const { importReleaseCommand } = await import("../lib/services/release-import");
    const { db } = await openMigratedDb();
    try {
      return await importReleaseCommand(db, rest[0]);
    } finally {
      await db.$disconnect();
    }
  }
  return fail(2, `unknown release command "${sub ?? ""}"; usage: ${RELEASE_EXPORT_USAGE()} | ${RELEASE_IMPORT_USAGE}`);
}
