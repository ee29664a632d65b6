/**
 * `symtrace apikey create|list|revoke` and `symtrace otlp flush|status|prune` as a user runs them (real
 * CLI processes on a temp SQLite file): the key is printed once as `{"key": ...}`, is accepted by
 * the receiver until revoked, only its hash is stored; `otlp flush` assembles the received trace.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, vi } from "vitest";
import { runSymtraceHere, spawnSymtrace } from "../lib/testing/cli";
import { API_KEY_CACHE_MS, hashApiKey, openDb, storeOtlpBatch, verifyApiKey } from "../lib/db";
import { encodeProtobufRequest, indexProtobufRequest } from "../lib/otlp/codec";


/** One command in this process (runSymtraceHere); `spawned`: as its own process (spawnSymtrace). */
async function cli(args: string[], dbUrl: string, o: { spawned?: boolean } = {}) {
  const r = o.spawned ? spawnSymtrace(args, dbUrl) : await runSymtraceHere(args, dbUrl);
  return { code: r.status, json: JSON.parse(r.stdout || "null") as Record<string, unknown> | null, stderr: r.stderr };
}

test("apikey create prints the key once, list shows only its prefix, revoke stops it; otlp flush assembles", async () => {
  const url = "file:" + path.join(mkdtempSync(path.join(os.tmpdir(), "symtrace-otlp-cli-")), "cli.db");
  const created = (await cli(["apikey", "create", "--name", "ci agents"], url, { spawned: true }));
  expect(created.code).toBe(0);
  const key = created.json!.key as string;
  expect(key).toMatch(/^stk_[A-Za-z0-9_-]{43}$/);
  expect((await cli(["apikey", "create"], url)).code).toBe(2);

  const listed = (await cli(["apikey", "list"], url));
  expect(listed.code).toBe(0);
  const keys = listed.json!.keys as Array<Record<string, unknown>>;
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatchObject({ name: "ci agents", prefix: key.slice(0, 10), scopes: ["traces:write"], revokedAt: null });
  expect(JSON.stringify(listed.json)).not.toContain(key);

  const { db } = openDb(url);
  try {
    const row = await db.apiKey.findFirstOrThrow();
    expect(row.keyHash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key.slice(10));
    expect(await verifyApiKey(db, key)).toMatchObject({ name: "ci agents" });

    // a received trace, then `otlp status` / `otlp flush`
    const body = encodeProtobufRequest({
      resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: "t" }, spans: [{ traceId: "44444444444444444444444444444444", spanId: "c000000000000001", name: "root", startTimeUnixNano: "1767000000000000000", endTimeUnixNano: "1767000001000000000" }] }] }],
    });
    await storeOtlpBatch(db, { kind: "protobuf", body: Buffer.from(body), keys: indexProtobufRequest(body).keys });
    const status = (await cli(["otlp", "status"], url)).json!;
    expect(status).toMatchObject({ spans: 1, batches: 1, traces: 1, pending: 1, prunedTraces: 0, prunableTraces: 0, lateAfterPrune: 0, retainSeconds: 86400 });
    expect(status.bodyBytes).toBe(body.length);
    expect(typeof status.oldestSpanAgeSeconds).toBe("number");
    const flushed = (await cli(["otlp", "flush"], url));
    expect(flushed.code).toBe(0);
    expect(flushed.json!.assembled).toEqual([expect.objectContaining({ bundleId: "otlp/44444444444444444444444444444444", status: "imported", spans: 1 })]);
    expect(await db.case.count({ where: { bundleId: "otlp/44444444444444444444444444444444" } })).toBe(1);
    // retention now: the assembled trace's staged span and its request body go, the case stays
    await new Promise((r) => setTimeout(r, 20));
    const pruned = (await cli(["otlp", "prune", "--retain-seconds", "0.01"], url));
    expect(pruned.code).toBe(0);
    expect(pruned.json).toEqual({ pruned: { traces: 1, spans: 1, batches: 1 }, retainSeconds: 0.01 });
    expect(await db.otlpSpan.count()).toBe(0);
    expect(await db.case.count({ where: { bundleId: "otlp/44444444444444444444444444444444" } })).toBe(1);

    const revoked = (await cli(["apikey", "revoke", key.slice(0, 10)], url, { spawned: true }));
    expect(revoked.code).toBe(0);
    expect((await db.apiKey.findFirstOrThrow()).revokedAt).not.toBeNull();
    // this process verified the key above and trusts it for API_KEY_CACHE_MS after a revocation
    // made by another process (the CLI): once that window has passed, the key is refused
    const later = Date.now() + API_KEY_CACHE_MS + 1;
    const clock = vi.spyOn(Date, "now").mockReturnValue(later);
    try {
      expect(await verifyApiKey(db, key)).toBeNull();
    } finally {
      clock.mockRestore();
    }
    expect((await cli(["apikey", "revoke", "nope"], url)).code).toBe(1);
  } finally {
    await db.$disconnect();
  }
}, 450_000); // ten CLI processes: slow on a loaded 2-core machine
