/**
 * `npm run db:seed`: import the bundled sample data from the shared folder
 * (SYMTRACE_SHARED_DIR, default ../shared): the paper's four gold replay bundles and the public
 * dataset samples (Who&When, MAST/MAD, Langfuse OTel traces). Idempotent (re-runs skip).
 * Prints the import report as JSON.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { openDb } from "../lib/db";
import { migrate } from "../lib/db/migrate";
import { sharedDir } from "../lib/env";
import { importPaths } from "../lib/services/import-files";

export function samplePaths(shared: string): string[] {
  return [
    path.join(shared, "fixtures/bundles/gold-c1.bundle.json"),
    path.join(shared, "fixtures/bundles/gold-c2.bundle.json"),
    path.join(shared, "fixtures/bundles/gold-c3.bundle.json"),
    path.join(shared, "fixtures/bundles/gold-c4.bundle.json"),
    path.join(shared, "datasets/who_and_when"),
    path.join(shared, "datasets/mast_mad/MAD_human_labelled_sample.json"),
    path.join(shared, "datasets/langfuse_framework_traces"),
  ];
}

async function main() {
  const shared = sharedDir();
  if (!existsSync(shared)) throw new Error(`shared folder not found at ${shared}; set SYMTRACE_SHARED_DIR`);
  const { db, url } = openDb();
  await migrate(url);
  const r = await importPaths(db, samplePaths(shared));
  await db.$disconnect();
  console.log(JSON.stringify({ imported: r.imported, skipped: r.skipped, replaced: r.replaced, failed: r.failed }));
  if (r.failed.length) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`seed: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
