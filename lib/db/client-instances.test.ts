/**
 * Next.js bundles lib/db/client.ts more than once (the instrumentation hook, each route) while
 * getDb() shares one client through globalThis: what a client is (provider, URL) must be known
 * to every module instance. The OTLP receiver's SQLite writer failed in the app before (it took
 * the PostgreSQL path: "Too many parameter values were provided").
 */
import os from "node:os";
import path from "node:path";
import { mkdtempSync } from "node:fs";
import { expect, it, vi } from "vitest";

it("a client opened by one module instance is known to another", async () => {
  const url = "file:" + path.join(mkdtempSync(path.join(os.tmpdir(), "symtrace-client-")), "x.db");
  vi.resetModules();
  const a = await import("./client");
  const { db } = a.openDb(url);
  vi.resetModules();
  const b = await import("./client");
  expect(b).not.toBe(a);
  expect(b.urlOfDb(db)).toBe(url);
  expect(b.providerOfDb(db)).toBe("sqlite");
  await db.$disconnect();
});
