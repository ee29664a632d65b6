/**
 * Reading a streamed bundle in a worker thread (lib/db/stream-reader.ts, issue 25 item 3): the rows
 * stored, the case row and the bundle hash are those of the in-memory import (the first case of a
 * fresh database, whose row indexes are built after its rows: the same indexes afterwards); an invalid bundle
 * and a file that is not JSON are reported as on the main thread, with nothing written.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { bundleHash, exportBundle, type Db } from "../db";
import { canReadInWorker } from "../db/stream-reader";
import { freshTestDb } from "../db/test-db";
import { importPaths } from "./import-files";

const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-stream-reader-"));
let mem: Db;
let wkr: Db;

beforeAll(async () => {
  mem = (await freshTestDb()).db;
  wkr = (await freshTestDb()).db;
}, 120_000);
afterAll(async () => {
  await mem.$disconnect();
  await wkr.$disconnect();
  rmSync(dir, { recursive: true, force: true });
});

async function rowsOf(db: Db, bundleId: string) {
  const c = await db.case.findUniqueOrThrow({ where: { bundleId } });
  const nodes = await db.node.findMany({ where: { caseId: c.id }, orderBy: { idx: "asc" }, omit: { id: true, caseId: true } });
  const edges = await db.edge.findMany({ where: { caseId: c.id }, orderBy: { idx: "asc" }, omit: { id: true, caseId: true } });
  const records = await db.boundaryRecord.findMany({ where: { caseId: c.id }, orderBy: { seq: "asc" }, omit: { id: true, caseId: true } });
  const { id: _id, importedAt: _i, updatedAt: _u, ...caseRow } = c;
  return { caseRow, nodes, edges, records };
}

describe("streamed bundle read in a worker thread", () => {
  test("the worker can run here (tsx source)", () => {
    expect(canReadInWorker()).toBe(true);
  });

  test("stores the rows of the in-memory import (nodes out of order: orderIndex fixed); re-import skips", async () => {
    const b = syntheticBundle({ id: "worker/reorder", turns: 40, seed: 9 });
    const rev = { ...b, graph: { ...b.graph, nodes: [...b.graph.nodes].reverse() } };
    const file = path.join(dir, "reorder.json");
    writeFileSync(file, JSON.stringify(rev));
    const indexes = () =>
      wkr.$queryRawUnsafe<Array<{ name: string; sql: string }>>(
        process.env.TEST_DATABASE_URL
          ? `SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname`
          : `SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name`,
      );
    const indexesBefore = await indexes();
    expect(await wkr.node.count()).toBe(0); // a fresh database: the first case's row indexes are built after its rows
    const a = await importPaths(mem, [file], { streamMinBytes: Number.MAX_SAFE_INTEGER });
    const r = await importPaths(wkr, [file], { streamMinBytes: 0, readInWorker: true });
    expect(await indexes()).toEqual(indexesBefore);
    expect(indexesBefore.map((i) => i.name)).toEqual(expect.arrayContaining(["Node_caseId_nodeId_key", "Edge_caseId_fromNodeId_idx", "BoundaryRecord_caseId_seq_key"]));
    expect(r.failed).toEqual([]);
    expect(r.cases.map((c) => c.status)).toEqual(["imported"]);
    const ra = await rowsOf(mem, "worker/reorder");
    const rb = await rowsOf(wkr, "worker/reorder");
    expect(rb.nodes).toHaveLength(b.graph.nodes.length);
    expect(rb).toEqual(ra);
    expect(a.cases[0].status).toBe("imported");
    expect(bundleHash((await exportBundle(wkr, { bundleId: "worker/reorder" }))!)).toBe(bundleHash(rev));
    const again = await importPaths(wkr, [file], { streamMinBytes: 0, readInWorker: true });
    expect(again.cases.map((c) => [c.status, c.caseId])).toEqual([["skipped", r.cases[0].caseId]]);
  });

  test("an invalid bundle and a truncated file: the main thread's failures, nothing written", async () => {
    const counts = async () => [await wkr.case.count(), await wkr.node.count(), await wkr.edge.count(), await wkr.boundaryRecord.count()];
    const before = await counts();
    const fixture = path.join(import.meta.dirname, "../bundle/fixtures/not-linear-extension.bundle.json");
    const main = await importPaths(mem, [fixture], { streamMinBytes: 0, readInWorker: false });
    const inWorker = await importPaths(wkr, [fixture], { streamMinBytes: 0, readInWorker: true });
    expect(inWorker.failed).toEqual(main.failed);
    expect(inWorker.failed[0].errors.map((e) => e.path)).toContain("$.graph.edges[1]");
    const truncated = path.join(import.meta.dirname, "../bundle/fixtures/truncated.bundle.json");
    const t = await importPaths(wkr, [truncated], { streamMinBytes: 0, readInWorker: true });
    expect(t.failed[0].errors[0].message).toMatch(/truncated\?\) at end of input/);
    expect(await counts()).toEqual(before);
  });
});
