/**
 * Test databases for lib/db integration tests: a fresh SQLite file per call, or — when
 * TEST_DATABASE_URL names a PostgreSQL server — that database, reset and migrated.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type DbHandle } from "./client";
import { migrate, reset } from "./migrate";
import { providerOf } from "./url";

/** A migrated, empty database for one test file. */
export async function freshTestDb(): Promise<DbHandle> {
  const pg = process.env.TEST_DATABASE_URL;
  if (pg && providerOf(pg) === "postgresql") {
    await reset(pg);
    await migrate(pg);
    return openDb(pg);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-test-"));
  const url = "file:" + path.join(dir, "test.db");
  await migrate(url);
  return openDb(url);
}
