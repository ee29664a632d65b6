/**
 * lib/release/aed: AED error–diagnosis records and training views (issue 14 items 2, 5, 6;
 * seeds/004). Pure: no React, Next.js, Prisma or lib/db (ESLint enforces it). The database side
 * is lib/services/release-aed.ts; see README.md here.
 */
export * from "./trace";
export * from "./quotes";
export * from "./grade";
export * from "./split";
export * from "./record";
export * from "./views";
export * from "./validate";
export * from "./parquet";
export * from "./experiments";
