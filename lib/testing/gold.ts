import { readFileSync } from "node:fs";
import path from "node:path";
import { parseJsonText, validateBundle } from "../bundle";
import { importCase } from "../db/cases";
import type { Db } from "../db/client";

/** The shared folder of samples and fixtures (SYMTRACE_SHARED_DIR, else "shared" beside the repo). */
export const SHARED_DIR = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");

/** A JSON file of the shared folder, parsed as the importers parse (big integers kept). */
export function readShared(rel: string): unknown {
  return parseJsonText(readFileSync(path.join(SHARED_DIR, rel), "utf8"));
}

/** Import the four gold bundles (fixtures/bundles/gold-c1..c4) into a test database. */
export async function importGoldBundles(db: Db): Promise<void> {
  for (const c of ["c1", "c2", "c3", "c4"]) {
    const r = validateBundle(readShared(`fixtures/bundles/gold-${c}.bundle.json`));
    if (!r.ok) throw new Error("gold invalid");
    await importCase(db, { bundle: r.bundle });
  }
}
