/**
 * Which database: the embedded SQLite file by default, PostgreSQL when DATABASE_URL says
 * `postgres://` or `postgresql://`. Pure (no Prisma import) so scripts and tests can use it.
 */
import path from "node:path";

export type Provider = "sqlite" | "postgresql";

/** Default embedded database: `file:<repo>/data/symtrace.db`. */
export const DEFAULT_DATABASE_URL = "file:./data/symtrace.db";

/** DATABASE_URL or the embedded default. */
export function resolveDatabaseUrl(env: string | undefined): string {
  const v = env?.trim();
  return v ? v : DEFAULT_DATABASE_URL;
}

/**
 * @throws Error naming the URL scheme when it is neither file: nor postgres(ql):
 */
export function providerOf(url: string): Provider {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgresql";
  if (/^file:/i.test(url)) return "sqlite";
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL); got "${url.split(":")[0]}:"`);
}

/** Absolute path of a `file:` URL, relative paths resolved against the working directory. */
export function sqliteFilePath(url: string): string {
  const p = url.replace(/^file:(\/\/)?/i, "").split("?")[0];
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), p);
}

/** Default wait for a locked SQLite file before giving up (ms); SYMTRACE_DB_BUSY_TIMEOUT_MS overrides. */
export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * How long a SQLite connection waits for another process's write lock (`PRAGMA busy_timeout`),
 * in ms: SYMTRACE_DB_BUSY_TIMEOUT_MS when a non-negative integer, else 10000.
 */
export function busyTimeoutMs(env: string | undefined = process.env.SYMTRACE_DB_BUSY_TIMEOUT_MS): number {
  const v = env?.trim();
  return v && /^\d+$/.test(v) ? Number(v) : DEFAULT_BUSY_TIMEOUT_MS;
}

/**
 * The database is locked by another process past the busy timeout. `message` is the one line
 * the CLI prints: which database, why, and what to do.
 */
export class DatabaseBusyError extends Error {
  constructor(readonly url: string, readonly timeoutMs: number = busyTimeoutMs()) {
    super(
      `database ${url} is busy (locked by another process for over ${timeoutMs} ms) — stop the app or retry; set SYMTRACE_DB_BUSY_TIMEOUT_MS to wait longer`,
    );
    this.name = "DatabaseBusyError";
  }
}

/**
 * true when an error (from better-sqlite3, the Prisma driver adapter, the Prisma client or the
 * wasm schema engine) means "SQLite file locked" (SQLITE_BUSY, which the driver adapter reports
 * as kind SocketTimeout).
 */
export function isBusyError(e: unknown): boolean {
  if (e instanceof DatabaseBusyError) return true;
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (cur && typeof cur === "object" && !seen.has(cur)) {
    seen.add(cur);
    const o = cur as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown; meta?: { driverAdapterError?: unknown } };
    if (typeof o.code === "string" && o.code.startsWith("SQLITE_BUSY")) return true;
    if (o.kind === "SocketTimeout") return true;
    if (typeof o.message === "string" && /SQLITE_BUSY|database is locked|variant `SocketTimeout`/.test(o.message)) return true;
    // Prisma client errors (P1008) carry the driver adapter's error in meta.
    cur = o.meta?.driverAdapterError ?? o.cause;
  }
  return false;
}
