/**
 * Test databases for lib/db integration tests: a fresh SQLite file per call (a copy of a migrated
 * template), or — when
 * TEST_DATABASE_URL names a PostgreSQL server — a fresh database on that server per call
 * (test files run in parallel, so they never share one), migrated.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createHash, randomUUID } from "node:crypto";
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
    const prefix = u.pathname.slice(1) || "symtrace_test";
    const name = `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const template = await migratedPostgresTemplate(base, `${prefix}_tpl_${migrationsKey(POSTGRES_MIGRATIONS)}`);
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
    } finally {
      await admin.end();
    }
    u.pathname = `/${name}`;
    await migrate(u.toString()); // nothing pending: checks the copy
    return openDb(u.toString());
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-test-"));
  const file = path.join(dir, "test.db");
  copyFileSync(await migratedSqliteTemplate(), file);
  const url = "file:" + file;
  await migrate(url); // nothing pending: checks the copy (no schema engine started)
  return openDb(url);
}

const SQLITE_MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations");
const POSTGRES_MIGRATIONS = path.resolve(import.meta.dirname, "../../prisma/migrations-postgresql");

/** 16 hex digits of sha256 over a migrations folder (names and SQL): a template's identity. */
function migrationsKey(dir: string): string {
  const h = createHash("sha256");
  for (const d of readdirSync(dir).sort()) {
    const sql = path.join(dir, d, "migration.sql");
    if (existsSync(sql)) h.update(d).update(readFileSync(sql));
  }
  return h.digest("hex").slice(0, 16);
}

/**
 * A migrated, empty PostgreSQL database named `name` on the server of `base`, made once (under an
 * advisory lock, so parallel test processes make it once) and copied per test file with
 * `CREATE DATABASE … TEMPLATE` (milliseconds, where migrating costs seconds).
 * @returns the template database's name
 */
async function migratedPostgresTemplate(base: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock(724001)");
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) {
      const partial = `${name}_part`;
      await admin.query(`DROP DATABASE IF EXISTS "${partial}"`);
      await admin.query(`CREATE DATABASE "${partial}"`);
      const u = new URL(base);
      u.pathname = `/${partial}`;
      await migrate(u.toString()); // closes its connections: the copy below needs none open
      await admin.query(`ALTER DATABASE "${partial}" RENAME TO "${name}"`);
    }
  } finally {
    await admin.query("SELECT pg_advisory_unlock(724001)").catch(() => undefined);
    await admin.end();
  }
  return name;
}

/**
 * An empty SQLite database with every migration applied, made once per set of migrations (the
 * file name carries a hash of prisma/migrations) and shared by every test process: copying it
 * costs milliseconds where applying the migrations with the wasm schema engine costs ~1 s. Made
 * in a temporary file and renamed into place, so a process never copies half a template.
 * @returns the template's path (in os.tmpdir())
 */
async function migratedSqliteTemplate(): Promise<string> {
  const template = path.join(os.tmpdir(), `symtrace-test-template-${migrationsKey(SQLITE_MIGRATIONS)}.db`);
  if (existsSync(template)) return template;
  const partial = `${template}.${randomUUID()}`;
  await migrate("file:" + partial); // closes its connections: the WAL is checkpointed into the file
  for (const suffix of ["-wal", "-shm"]) rmSync(partial + suffix, { force: true });
  renameSync(partial, template);
  return template;
}

/**
 * One fresh test database for the whole test file (vitest hooks): `h.db` is its client once the
 * file's tests run; it is disconnected after them.
 */
export function testDbPerFile(): { readonly db: DbHandle["db"]; readonly url: string } {
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
    /** Its connection string (for a worker process, pg-boss). */
    get url() {
      if (!handle) throw new Error("testDbPerFile: the database is open only inside the file's tests");
      return handle.url;
    },
  };
}
