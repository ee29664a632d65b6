/**
 * Attribution runs for the page and its CSV route: the runs stored in the database
 * (lib/db/attribution-runs.ts; made by `symtrace detect --eval --attribution --run <name>` or the
 * page's New run form, ./app-start.ts),
 * each tabulated from its jobs.
 */
import type { TableRow } from "../../attribution";
import { getAttributionRun, listAttributionRuns as listRuns, type AttributionRunView, type Db } from "../../db";
import { attributionRunReport } from "./study";

/** Every run (name, status, plan, progress), by name. */
export function listAttributionRuns(db: Db): Promise<AttributionRunView[]> {
  return listRuns(db);
}

/**
 * The table of one run.
 * @returns null when there is no run named `name`
 */
export async function attributionRunTable(db: Db, name: string): Promise<{ name: string; run: AttributionRunView; rows: TableRow[]; progress: { finished: number; failed: number; total: number } } | null> {
  const run = await getAttributionRun(db, name);
  if (!run) return null;
  return { name: run.name, run, ...(await attributionRunReport(db, run)) };
}
