/**
 * The one Prisma client of the app, the CLI and the tests. SQLite (embedded default, file under
 * ./data) or PostgreSQL, chosen by DATABASE_URL (see ./url.ts). Both generated clients come from
 * prisma/schema.prisma and have the same model API; the SQLite one's types are used for both.
 */
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client";
import { PrismaClient as PostgresClient } from "../generated/postgresql/client";
import { providerOf, resolveDatabaseUrl, sqliteFilePath, type Provider } from "./url";

export type Db = InstanceType<typeof SqliteClient>;

const providers = new WeakMap<object, Provider>();

/** Which database a client talks to. */
export function providerOfDb(db: Db): Provider {
  return providers.get(db) ?? "sqlite";
}

export interface DbHandle {
  db: Db;
  provider: Provider;
  url: string;
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
    const adapter = new PrismaBetterSqlite3({ url: "file:" + file, timeout: 10_000 });
    const db = new SqliteClient({ adapter }) as Db;
    providers.set(db, provider);
    return { db, provider, url };
  }
  const adapter = new PrismaPg({ connectionString: url });
  const db = new PostgresClient({ adapter }) as unknown as Db;
  providers.set(db, provider);
  return { db, provider, url };
}

const globalForDb = globalThis as unknown as { __symtraceDb?: DbHandle };

/** Process-wide client (reused across Next.js hot reloads). */
export function getDb(): Db {
  if (!globalForDb.__symtraceDb) globalForDb.__symtraceDb = openDb();
  return globalForDb.__symtraceDb.db;
}
