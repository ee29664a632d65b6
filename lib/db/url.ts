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
