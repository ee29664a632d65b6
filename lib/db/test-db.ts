/**
 * Test databases for lib/db integration tests: a fresh SQLite file per call, or — when
 * TEST_DATABASE_URL names a PostgreSQL server — a fresh database on that server per call
 * (test files run in parallel, so they never share one), migrated.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { openDb, type DbHandle } from "./client";
import { migrate } from "./migrate";
import { providerOf } from "./url";

/** A migrated, empty database for one test file. */
export async function freshTestDb(): Promise<DbHandle> {
  const base = process.env.TEST_DATABASE_URL;
  if (base && providerOf(base) === "postgresql") {
    const u = new URL(base);
    const name = `${u.pathname.slice(1) || "symtrace_test"}_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
    } finally {
      await admin.end();
    }
    u.pathname = `/${name}`;
    await migrate(u.toString());
    return openDb(u.toString());
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-test-"));
  const url = "file:" + path.join(dir, "test.db");
  await migrate(url);
  return openDb(url);
}

/**
 * One fresh test database for the whole test file (vitest hooks): `h.db` is its client once the
 * file's tests run; it is disconnected after them.
 */
export function testDbPerFile(): { readonly db: DbHandle["db"] } {
  let handle: DbHandle | null = null;
  beforeAll(async () => {
    handle = await freshTestDb();
  });
  afterAll(async () => {
    await handle?.db.$disconnect();
  });
  return {
    get db() {
      if (!handle) throw new Error("testDbPerFile: the database is open only inside the file's tests");
      return handle.db;
    },
  };
}
