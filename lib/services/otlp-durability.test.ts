/**
 * Issue 16 "Done when", last part: killing the receiving process (SIGKILL, a real child process:
 * scripts/otlp-serve.ts, the app's receiver behind node http) during a sustained OTLP stream and
 * restarting it loses no acknowledged span. Every span of every request answered 200 must be
 * in the database after the restart, readable from its stored body; requests that were in flight
 * (no answer) may be missing.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, expect, it } from "vitest";
import { freshTestDb } from "../db/test-db";
import { createApiKey, type Db } from "../db";
import { indexProtobufRequest, spansOfBody } from "../otlp/codec";
import { benchBodies, startReceiverProcess } from "../../scripts/bench-otlp";

const PORT = 4740; // this worktree's range (4700-4799)
let child: ChildProcess | null = null;
let db: Db | null = null;

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await new Promise((r) => child!.once("exit", r));
  }
  await db?.$disconnect();
});

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));

it("SIGKILL during a sustained stream: after restart every span answered 200 is stored", async () => {
  const handle = await freshTestDb();
  db = handle.db;
  const { key } = await createApiKey(db, { name: "durability" });
  const { bodies } = benchBodies(512 * 60, 512); // 60 requests of 512 spans
  let started = await startReceiverProcess(handle.url, PORT);
  child = started.child;

  const acked: number[] = [];
  let failed = 0;
  let next = 0;
  let killed = false;
  const KILL_AFTER = 6;
  const worker = async () => {
    while (!killed && next < bodies.length) {
      const i = next++;
      try {
        const r = await fetch(`${started.base}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${key}` }, body: bodies[i] as BodyInit });
        await r.arrayBuffer();
        if (r.status === 200) acked.push(i);
        else failed++;
      } catch {
        failed++; // connection reset by the kill: not acknowledged
      }
      if (!killed && acked.length >= KILL_AFTER) {
        killed = true;
        child!.kill("SIGKILL");
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  await exited(child);
  expect(child.signalCode).toBe("SIGKILL");
  expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);
  expect(acked.length).toBeLessThan(bodies.length); // killed mid-stream
  expect(failed).toBeGreaterThan(0); // requests were in flight when it died

  // restart on the same database; it serves again
  started = await startReceiverProcess(handle.url, PORT);
  child = started.child;
  const extra = benchBodies(512, 512, 512 * 60).bodies[0];
  const again = await fetch(`${started.base}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${key}` }, body: extra as BodyInit });
  expect(again.status).toBe(200);

  // every acknowledged span is stored and readable from its stored body
  const rows = await db.otlpSpan.findMany({ select: { traceId: true, spanId: true, batchId: true } });
  const stored = new Map(rows.map((r) => [`${r.traceId}/${r.spanId}`, r.batchId]));
  let checked = 0;
  const bodiesRead = new Map<string, Set<string>>();
  for (const i of acked) {
    for (const k of indexProtobufRequest(bodies[i]).keys) {
      const batchId = stored.get(`${k.traceId}/${k.spanId}`);
      expect(batchId, `span ${k.spanId} of acknowledged request ${i}`).toBeDefined();
      let ids = bodiesRead.get(batchId!);
      if (!ids) {
        const b = await db.otlpBatch.findUnique({ where: { id: batchId! } });
        ids = new Set(spansOfBody(b!.kind as "protobuf" | "json", b!.body).map((s) => `${s.traceId}/${s.spanId}`));
        bodiesRead.set(batchId!, ids);
      }
      expect(ids.has(`${k.traceId}/${k.spanId}`)).toBe(true);
      checked++;
    }
  }
  expect(checked).toBe(acked.length * 512);
  console.log(`durability: ${acked.length} of ${bodies.length} requests acknowledged before SIGKILL, ${failed} cut off; all ${checked} acknowledged spans stored after restart (${rows.length} spans stored in all)`);
});
