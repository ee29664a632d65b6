/**
 * Offline migrations and client generation for prisma/schema.prisma (the single source of truth).
 *
 * Prisma 7's CLI downloads a native schema engine, which cannot be fetched here; this script
 * drives the wasm schema engine (@prisma/schema-engine-wasm) through the driver adapters
 * instead, on SQLite (embedded default) and PostgreSQL (DATABASE_URL=postgresql://...).
 *
 * Needs node --experimental-wasm-modules (the wasm engine is an ES module with a .wasm import).
 * Used by scripts/db.ts (npm run db:*), the CLI and the e2e setup:
 *   generate                 generate both Prisma clients (lib/generated/{sqlite,postgresql})
 *   migrate                  apply pending migrations to DATABASE_URL
 *   create <name>            write a new migration for SQLite and PostgreSQL (no server needed)
 *   check                    exit 1 when the migrations do not reproduce schema.prisma (drift)
 *   reset                    drop everything in DATABASE_URL, then migrate
 *
 * SQLite migrations live in prisma/migrations, PostgreSQL ones in prisma/migrations-postgresql.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SchemaEngine, type MigrationList } from "@prisma/schema-engine-wasm";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import Database from "better-sqlite3";
import pg from "pg";
import { busyTimeoutMs, DatabaseBusyError, isBusyError, providerOf, sqliteFilePath, type Provider } from "./url";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCHEMA_PATH = path.join(ROOT, "prisma/schema.prisma");
const PG_SCHEMA_PATH = path.join(ROOT, "lib/generated/schema.postgresql.prisma");
const MIGRATIONS: Record<Provider, string> = {
  sqlite: path.join(ROOT, "prisma/migrations"),
  postgresql: path.join(ROOT, "prisma/migrations-postgresql"),
};
const FILTERS = { externalTables: [], externalEnums: [] };

/** schema.prisma as written (SQLite) or derived for PostgreSQL (provider and client output only). */
function schemaFor(provider: Provider): string {
  const src = readFileSync(SCHEMA_PATH, "utf8");
  if (provider === "sqlite") return src;
  const out = src
    .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
    .replace(/output\s*=\s*"\.\.\/lib\/generated\/sqlite"/, 'output       = "./postgresql"');
  if (out === src) throw new Error("could not derive the PostgreSQL schema from prisma/schema.prisma");
  return out;
}

function loadMigrations(provider: Provider): MigrationList {
  const baseDir = MIGRATIONS[provider];
  const lockPath = path.join(baseDir, "migration_lock.toml");
  const dirs = existsSync(baseDir)
    ? readdirSync(baseDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    : [];
  return {
    baseDir,
    lockfile: { path: "migration_lock.toml", content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((d) => ({
      path: d,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok" as const, value: readFileSync(path.join(baseDir, d, "migration.sql"), "utf8") },
      },
    })),
  };
}

/** Resolves once the connections of a freed engine are closed. */
const closing = new WeakMap<SchemaEngine, Promise<void>>();

interface Disposable {
  dispose(): Promise<void>;
}

/**
 * A schema engine on `url`. The engine does not close the driver connections it opens (a SQLite
 * connection left open keeps a lock), so they are tracked and closed by `engine.free()`.
 */
async function engineFor(url: string): Promise<SchemaEngine> {
  const provider = providerOf(url);
  if (provider === "sqlite") mkdirSync(path.dirname(sqliteFilePath(url)), { recursive: true });
  const base =
    provider === "sqlite"
      ? new PrismaBetterSqlite3({ url: "file:" + sqliteFilePath(url), timeout: busyTimeoutMs() })
      : new PrismaPg({ connectionString: url });
  const opened: Disposable[] = [];
  const tracking = {
    provider: base.provider,
    adapterName: base.adapterName,
    connect: async () => {
      const c = await base.connect();
      opened.push(c);
      return c;
    },
    connectToShadowDb: async () => {
      const c = await base.connectToShadowDb();
      opened.push(c);
      return c;
    },
  };
  const factory = bindMigrationAwareSqlAdapterFactory(tracking as never);
  const quiet = () => {};
  const engine = await SchemaEngine.new({ datamodels: [["schema.prisma", schemaFor(provider)]] }, quiet, factory);
  const free = engine.free.bind(engine);
  engine.free = () => {
    free();
    closing.set(engine, Promise.all(opened.splice(0).map((c) => c.dispose().catch(() => {}))).then(() => {}));
  };
  return engine;
}

/** Names of the migration folders (prisma/migrations or prisma/migrations-postgresql), sorted. */
export function migrationNames(provider: Provider): string[] {
  return loadMigrations(provider).migrationDirectories.map((d) => d.path);
}

/**
 * The migrations of the folder not yet applied to a database, found by reading
 * `_prisma_migrations` (finished, not rolled back) — one cheap read that takes no lock, unlike the
 * schema engine (which needs the write lock even when there is nothing to do).
 * @returns folder names not applied, in order (all of them for a new or empty database)
 * @throws DatabaseBusyError when the SQLite file stays locked past the busy timeout
 */
export async function pendingMigrations(url: string): Promise<string[]> {
  const provider = providerOf(url);
  const names = migrationNames(provider);
  let applied: string[];
  if (provider === "sqlite") {
    const file = sqliteFilePath(url);
    if (!existsSync(file)) return names;
    let sqlite: Database.Database | null = null;
    try {
      sqlite = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs() });
      const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
      if (!table) return names;
      applied = (sqlite.prepare("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL").all() as Array<{ migration_name: string }>).map((r) => r.migration_name);
    } catch (e) {
      if (isBusyError(e)) throw new DatabaseBusyError(url);
      throw e;
    } finally {
      sqlite?.close();
    }
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const t = await client.query("SELECT to_regclass('_prisma_migrations') AS t");
      if (!t.rows[0]?.t) return names;
      applied = (await client.query("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL")).rows.map((r: { migration_name: string }) => r.migration_name);
    } finally {
      await client.end();
    }
  }
  const done = new Set(applied);
  return names.filter((n) => !done.has(n));
}

/**
 * Apply pending migrations (prisma/migrations or prisma/migrations-postgresql) to a database.
 * Starts the schema engine only when `pendingMigrations` finds some, so a CLI command beside a
 * running app (which keeps the file open) neither waits for nor takes the write lock for nothing.
 * SQLite: also turns on WAL (persistent in the file).
 * @returns names of the migrations applied now ([] when up to date)
 * @throws DatabaseBusyError when a SQLite file stays locked by another process past the busy
 *   timeout (SYMTRACE_DB_BUSY_TIMEOUT_MS)
 */
export async function migrate(url: string): Promise<string[]> {
  const sqlite = providerOf(url) === "sqlite";
  const pending = await pendingMigrations(url);
  if (sqlite) {
    // WAL is persistent in the file: the app and the CLI can then read and write at once,
    // and commits cost one sync instead of several (see npm run bench). Switching needs the
    // file to itself, so only when it is not WAL yet. Before the migrations, so that a fresh
    // file's migrations commit in WAL too: in the rollback journal each of the 16 commits synced
    // several times (1 s of a fresh `experiment run` at load ~10, scripts/bench-experiments.ts).
    const file = sqliteFilePath(url);
    mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file, { timeout: busyTimeoutMs() });
    try {
      if (String(db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") db.pragma("journal_mode = WAL");
    } catch (e) {
      if (isBusyError(e)) throw new DatabaseBusyError(url);
      throw e;
    } finally {
      db.close();
    }
  }
  let applied: string[] = [];
  if (pending.length > 0) {
    const engine = await engineFor(url);
    try {
      const res = await engine.applyMigrations({ migrationsList: loadMigrations(providerOf(url)), filters: FILTERS });
      applied = res.appliedMigrationNames;
    } catch (e) {
      if (sqlite && isBusyError(e)) throw new DatabaseBusyError(url);
      throw e;
    } finally {
      engine.free();
      await closing.get(engine);
    }
  }
  return applied;
}

/**
 * Diff "migrations applied to a scratch database" -> schema.prisma. The wasm engine cannot open
 * a shadow database by itself, so we apply the migrations to `scratchUrl` (which must be empty
 * and disposable) and diff from that live datasource, which needs no shadow database.
 * @returns the SQL script turning the migrated database into the schema ("" when they match)
 */
async function diffMigrationsToSchema(scratchUrl: string): Promise<string> {
  const provider = providerOf(scratchUrl);
  const engine = await engineFor(scratchUrl);
  try {
    await engine.applyMigrations({ migrationsList: loadMigrations(provider), filters: FILTERS });
    const files = [{ path: "schema.prisma", content: schemaFor(provider) }];
    const res = await engine.diff({
      from: { tag: "schemaDatasource", files, configDir: ROOT },
      to: { tag: "schemaDatamodel", files },
      script: true,
      exitCode: null,
      filters: FILTERS,
    });
    const script = res.stdout ?? "";
    return /^\s*(--[^\n]*\n?\s*)*$/.test(script) || /This is an empty migration/.test(script) ? "" : script;
  } finally {
    engine.free();
  }
}

export function scratchSqliteUrl(): string {
  const p = path.join(os.tmpdir(), `symtrace-migrate-${process.pid}-${Date.now()}.db`);
  return "file:" + p;
}

/**
 * PostgreSQL: the wasm engine cannot introspect PostgreSQL through @prisma/adapter-pg
 * ("Column type 'char' could not be deserialized") nor open a shadow database, so the PostgreSQL
 * migrations are diffed datamodel -> datamodel: from the schema as of the last PostgreSQL
 * migration (kept beside them as schema-at-last-migration.prisma) to the current one.
 */
export async function diffPostgres(): Promise<string> {
  const snap = path.join(MIGRATIONS.postgresql, "schema-at-last-migration.prisma");
  // Diffing two datamodels needs no connection; any adapter satisfies the constructor.
  const engine = await engineFor(scratchSqliteUrl());
  try {
    const to = { tag: "schemaDatamodel" as const, files: [{ path: "schema.prisma", content: schemaFor("postgresql") }] };
    const from = existsSync(snap)
      ? { tag: "schemaDatamodel" as const, files: [{ path: "schema.prisma", content: readFileSync(snap, "utf8") }] }
      : { tag: "empty" as const };
    const res = await engine.diff({ from, to, script: true, exitCode: null, filters: FILTERS });
    return isEmptyScript(res.stdout ?? "") ? "" : (res.stdout ?? "");
  } finally {
    engine.free();
  }
}

function isEmptyScript(script: string): boolean {
  return /This is an empty migration/.test(script) || script.split("\n").every((l) => l.trim() === "" || l.trim().startsWith("--"));
}

function writeMigration(provider: Provider, name: string, script: string): void {
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  const dir = path.join(MIGRATIONS[provider], `${stamp}_${name.replace(/[^A-Za-z0-9_]+/g, "_")}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "migration.sql"), script);
  writeFileSync(
    path.join(MIGRATIONS[provider], "migration_lock.toml"),
    `# Written by scripts/db.ts; do not edit.\nprovider = "${provider}"\n`,
  );
  if (provider === "postgresql") {
    writeFileSync(path.join(MIGRATIONS.postgresql, "schema-at-last-migration.prisma"), schemaFor("postgresql"));
  }
  console.log(`${provider}: wrote ${path.relative(ROOT, dir)}/migration.sql`);
}

export async function create(name: string): Promise<void> {
  const scratch = scratchSqliteUrl();
  const sqlite = await diffMigrationsToSchema(scratch);
  rmSync(sqliteFilePath(scratch), { force: true });
  if (sqlite) writeMigration("sqlite", name, sqlite);
  else console.log("sqlite: no changes");
  const pg = await diffPostgres();
  if (pg) writeMigration("postgresql", name, pg);
  else console.log("postgresql: no changes");
}

/** true when the migrations folder reproduces schema.prisma exactly (no drift). */
export async function check(scratchUrl: string): Promise<boolean> {
  const provider = providerOf(scratchUrl);
  const script = await diffMigrationsToSchema(scratchUrl);
  if (script) {
    console.error(`${provider}: migrations drift from prisma/schema.prisma; missing:\n${script}`);
    return false;
  }
  console.log(`${provider}: migrations match prisma/schema.prisma`);
  return true;
}

export async function reset(url: string): Promise<void> {
  if (providerOf(url) === "sqlite") {
    for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(sqliteFilePath(url) + suffix, { force: true });
  } else {
    const engine = await engineFor(url);
    try {
      await engine.reset({ filter: FILTERS } as never);
    } finally {
      engine.free();
    }
  }
}

export function generate(): void {
  mkdirSync(path.dirname(PG_SCHEMA_PATH), { recursive: true });
  writeFileSync(PG_SCHEMA_PATH, "// GENERATED from prisma/schema.prisma by scripts/db.ts; do not edit.\n" + schemaFor("postgresql"));
  // `prisma generate` needs no schema engine, but Prisma 7 insists on locating one:
  // any existing file satisfies the check (it is never executed for generate).
  const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
  const prisma = path.join(ROOT, "node_modules/prisma/build/index.js");
  for (const schema of [SCHEMA_PATH, PG_SCHEMA_PATH]) {
    execFileSync(process.execPath, [prisma, "generate", "--schema", schema], { env, stdio: ["ignore", "ignore", "inherit"] });
  }
  console.log("generated lib/generated/sqlite and lib/generated/postgresql");
}

