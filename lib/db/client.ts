/**
 * The one Prisma client of the app, the CLI and the tests. SQLite (embedded default, file under
 * ./data) or PostgreSQL, chosen by DATABASE_URL (see ./url.ts). Both generated clients come from
 * prisma/schema.prisma and have the same model API; the SQLite one's types are used for both.
 */
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client";
import { PrismaClient as PostgresClient } from "../generated/postgresql/client";
import { busyTimeoutMs, providerOf, resolveDatabaseUrl, sqliteFilePath, type Provider } from "./url";

export type Db = InstanceType<typeof SqliteClient>;

// Process-wide, not per module instance: Next.js bundles this module more than once (the
// instrumentation hook, each route), while getDb() shares one client through globalThis.
const dbMeta = globalThis as unknown as { __symtraceDbProviders?: WeakMap<object, Provider>; __symtraceDbUrls?: WeakMap<object, string> };
const providers = (dbMeta.__symtraceDbProviders ??= new WeakMap<object, Provider>());
const urls = (dbMeta.__symtraceDbUrls ??= new WeakMap<object, string>());

/** Which database a client talks to. */
export function providerOfDb(db: Db): Provider {
  return providers.get(db) ?? "sqlite";
}

/** The URL a client was opened with (null for a client not made by openDb). */
export function urlOfDb(db: Db): string | null {
  return urls.get(db) ?? null;
}

export interface DbHandle {
  db: Db;
  provider: Provider;
  url: string;
}

/** The better-sqlite3 handle inside a driver-adapter connection (not part of its typed API). */
interface WithSqliteClient {
  client?: { prepare(sql: string): unknown; pragma(sql: string, o?: { simple: boolean }): unknown };
}

/**
 * The better-sqlite3 connection under a SQLite client (the subset lib/db uses). Statements run on
 * it join whatever transaction the Prisma client has open on it: lib/db/cases-stream writes a
 * streamed case's rows this way inside its Prisma transaction (one connection, all or nothing).
 */
export interface RawSqlite {
  readonly inTransaction: boolean;
  prepare(sql: string): { run(...params: unknown[]): unknown };
}

const rawSqlite = (dbMeta as { __symtraceRawSqlite?: WeakMap<object, { client: RawSqlite | null }> }).__symtraceRawSqlite ??= new WeakMap();

/**
 * The better-sqlite3 connection of a SQLite client opened by {@link openDb}, once the client has
 * connected (null for PostgreSQL, before the first query, or for clients made elsewhere).
 */
export function rawSqliteOf(db: Db): RawSqlite | null {
  return rawSqlite.get(db)?.client ?? null;
}

/**
 * A one-row INSERT prepared on the raw SQLite connection of `db`, usable only while `db` has a
 * transaction open (the rows join it: all or nothing with the Prisma calls around them). Bulk
 * imports use it: one prepared statement per row costs ~1/3 of the CPU of Prisma's multi-row
 * `$executeRawUnsafe` (which re-prepares a 6,500-parameter statement per batch).
 * @param table, cols constants of lib/db (quoted here, never user input)
 * @returns an insert function (undefined values become NULL), or null when `db` is not SQLite,
 *   has not connected, or has no transaction open (then use the Prisma path)
 */
export function prepareRowInsert(db: Db, table: string, cols: readonly string[]): ((row: unknown[]) => void) | null {
  const raw = providerOfDb(db) === "sqlite" ? rawSqliteOf(db) : null;
  if (!raw || !raw.inTransaction) return null;
  const stmt = raw.prepare(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
  return (row: unknown[]) => {
    for (let i = 0; i < row.length; i++) if (row[i] === undefined) row[i] = null;
    stmt.run(row);
  };
}

/**
 * The driver adapter for one SQLite file, set up so the app, its embedded worker and any number
 * of CLI processes share the file:
 * - `PRAGMA busy_timeout` = busyTimeoutMs() (SYMTRACE_DB_BUSY_TIMEOUT_MS, default 10 s): a
 *   connection waits for another process's write lock instead of failing at once;
 * - `journal_mode = WAL` (persistent in the file): readers never wait for the writer;
 * - transactions start with `BEGIN IMMEDIATE` (the adapter says `BEGIN`): a transaction takes the
 *   write lock (waiting up to the busy timeout) before it reads, so it can never fail half-way
 *   with SQLITE_BUSY_SNAPSHOT when another process wrote between its read and its write.
 * @param file absolute path of the database file
 * @param onConnect receives the better-sqlite3 connection each time the adapter connects
 */
export function sqliteAdapter(file: string, onConnect?: (client: RawSqlite) => void): SqlDriverAdapterFactory {
  const timeout = busyTimeoutMs();
  const base = new PrismaBetterSqlite3({ url: "file:" + file, timeout });
  const setUp = <T>(conn: T): T => {
    const c = (conn as WithSqliteClient).client;
    if (c && typeof c.prepare === "function") {
      onConnect?.(c as unknown as RawSqlite);
      c.pragma(`busy_timeout = ${timeout}`);
      if (String((c.pragma("journal_mode", { simple: true })) ?? "").toLowerCase() !== "wal") c.pragma("journal_mode = WAL");
      const prepare = c.prepare.bind(c);
      c.prepare = (sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql);
    }
    return conn;
  };
  return {
    provider: base.provider,
    adapterName: base.adapterName,
    connect: async () => setUp(await base.connect()),
  };
}

/**
 * Open a database client.
 * @param url `file:...` or `postgresql://...`; defaults to DATABASE_URL or the embedded SQLite file
 * @throws Error when the URL scheme is unsupported
 */
export function openDb(url: string = resolveDatabaseUrl(process.env.DATABASE_URL)): DbHandle {
  const provider = providerOf(url);
  if (provider === "sqlite") {
    const file = sqliteFilePath(url);
    mkdirSync(path.dirname(file), { recursive: true });
    const holder: { client: RawSqlite | null } = { client: null };
    const db = new SqliteClient({ adapter: sqliteAdapter(file, (c) => (holder.client = c)) }) as Db;
    rawSqlite.set(db, holder);
    providers.set(db, provider);
    urls.set(db, url);
    return { db, provider, url };
  }
  const adapter = new PrismaPg({ connectionString: url });
  const db = new PostgresClient({ adapter }) as unknown as Db;
  providers.set(db, provider);
  urls.set(db, url);
  return { db, provider, url };
}

const globalForDb = globalThis as unknown as { __symtraceDb?: DbHandle };

/** Process-wide client (reused across Next.js hot reloads). */
export function getDb(): Db {
  if (!globalForDb.__symtraceDb) globalForDb.__symtraceDb = openDb();
  return globalForDb.__symtraceDb.db;
}
