/**
 * migrate() beside another writer on the same SQLite file (issue 10 item 12): nothing pending
 * means no schema engine and no lock; pending + locked means DatabaseBusyError, not WASM_ERROR.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { migrate, migrationNames, pendingMigrations } from "./migrate";
import { busyTimeoutMs, DatabaseBusyError, isBusyError, sqliteFilePath } from "./url";

const fresh = () => "file:" + path.join(mkdtempSync(path.join(os.tmpdir(), "symtrace-migrate-test-")), "m.db");

/** Another connection holding the write lock (BEGIN IMMEDIATE + a write) until released. */
function holdWriteLock(url: string): () => void {
  const other = new Database(sqliteFilePath(url));
  other.exec("BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS other_writer (x INTEGER); INSERT INTO other_writer VALUES (1);");
  return () => {
    other.exec("ROLLBACK");
    other.close();
  };
}

let saved: string | undefined;
beforeEach(() => {
  saved = process.env.SYMTRACE_DB_BUSY_TIMEOUT_MS;
  process.env.SYMTRACE_DB_BUSY_TIMEOUT_MS = "300";
});
afterEach(() => {
  if (saved === undefined) delete process.env.SYMTRACE_DB_BUSY_TIMEOUT_MS;
  else process.env.SYMTRACE_DB_BUSY_TIMEOUT_MS = saved;
});

describe("migrate beside another writer (SQLite)", () => {
  test("pendingMigrations: every folder for a new file, none once migrated; the file is in WAL mode", async () => {
    const url = fresh();
    const all = migrationNames("sqlite");
    expect(all.length).toBeGreaterThan(0);
    expect(await pendingMigrations(url)).toEqual(all);
    expect(await migrate(url)).toEqual(all);
    expect(await pendingMigrations(url)).toEqual([]);
    const db = new Database(sqliteFilePath(url), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  test("nothing pending: migrate succeeds while another connection holds the write lock", async () => {
    const url = fresh();
    await migrate(url);
    const release = holdWriteLock(url);
    try {
      expect(await migrate(url)).toEqual([]);
    } finally {
      release();
    }
  });

  test("migrations pending and the file locked past the busy timeout: DatabaseBusyError with the one-line advice", async () => {
    const url = fresh();
    // An empty database file in WAL mode, locked by another writer before its first migration.
    const init = new Database(sqliteFilePath(url));
    init.pragma("journal_mode = WAL");
    init.close();
    const release = holdWriteLock(url);
    try {
      const err = await migrate(url).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DatabaseBusyError);
      expect((err as Error).message).toBe(
        `database ${url} is busy (locked by another process for over 300 ms) — stop the app or retry; set SYMTRACE_DB_BUSY_TIMEOUT_MS to wait longer`,
      );
    } finally {
      release();
    }
    // Once the lock is gone the same call migrates.
    expect((await migrate(url)).length).toBe(migrationNames("sqlite").length);
  });
});

describe("busy detection", () => {
  test("busyTimeoutMs reads SYMTRACE_DB_BUSY_TIMEOUT_MS, default 10000", () => {
    expect(busyTimeoutMs("2500")).toBe(2500);
    expect(busyTimeoutMs("")).toBe(10_000);
    expect(busyTimeoutMs()).toBe(300); // from the environment (set above)
    expect(busyTimeoutMs("soon")).toBe(10_000);
  });

  test("isBusyError recognises SQLITE_BUSY from the driver, the adapter and the Prisma client, nothing else", () => {
    expect(isBusyError(Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }))).toBe(true);
    // Prisma client P1008 carrying the driver adapter error (as seen from a locked file).
    const adapterError = Object.assign(new Error("SocketTimeout"), { cause: { originalCode: "SQLITE_BUSY", originalMessage: "database is locked", kind: "SocketTimeout" } });
    expect(isBusyError(Object.assign(new Error("Operation has timed out"), { code: "P1008", meta: { driverAdapterError: adapterError } }))).toBe(true);
    // What the wasm schema engine said before the fix.
    expect(isBusyError(new Error("Error in the underlying connector (WASM_ERROR): Error: unknown variant `SocketTimeout`, expected one of `GenericJs`"))).toBe(true);
    expect(isBusyError(Object.assign(new Error("UNIQUE constraint failed: User.email"), { code: "SQLITE_CONSTRAINT_UNIQUE" }))).toBe(false);
    expect(isBusyError(new Error("Operation has timed out"))).toBe(false);
  });
});
