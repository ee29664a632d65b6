/** lib/db: the one Prisma client and plain query functions (server-side only). */
export { openDb, getDb, providerOfDb, type Db, type DbHandle } from "./client";
export { resolveDatabaseUrl, providerOf, DEFAULT_DATABASE_URL, type Provider } from "./url";
export * from "./cases";
export * from "./annotations";
export * from "./visibility";
export * from "./users";
export * from "./annotations-io";
export * from "./replay-runs";
export * from "./experiments";
export * from "./experiment-documents";
export * from "./repair-searches";
export * from "./api-keys";
export * from "./otlp";
export { importCaseStream, StreamedBundleInvalidError } from "./cases-stream";
export * from "./cases-window";
export * from "./machine-annotations";
export * from "./outcomes";
export * from "./case-list";
