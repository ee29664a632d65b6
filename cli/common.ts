/**
 * What several commands of the `symtrace` CLI share: the migrated database and the two input
 * errors (a usage error exits 2, a bad input 1; both name where the problem is).
 */

/** Open the database of DATABASE_URL and apply the migrations first (a fresh file works). */
export async function openMigratedDb() {
  const { openDb } = await import("../lib/db");
  const { migrate } = await import("../lib/db/migrate");
  const handle = openDb();
  await migrate(handle.url);
  return handle;
}

/** A command line that does not parse (exit 2), naming the flag or JSON path at fault. */
export class Usage extends Error {
  constructor(
    message: string,
    readonly at = "$",
  ) {
    super(message);
  }
}

/** A well-formed command whose input is refused (exit 1). */
export class BadInput extends Usage {}
