/**
 * importCaseStream on SQLite (issue 25 item 3): the first case of a fresh database is inserted
 * with the row tables' secondary indexes dropped and built again after its rows, inside its
 * transaction. Checked from inside the reader (the same connection, the same transaction): no
 * secondary index while the rows go in; the same indexes afterwards; an invalid bundle rolls the
 * drop back; a database that already has rows keeps its indexes during the insert; with the
 * reader in the worker thread the indexes are built at its `rows-end`, before its result.
 * (The adapter reads integers as BigInt: the emptiness check compared 0n with 0 and never deferred.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { streamBundleFile } from "../bundle/stream";
import { syntheticBundle } from "../bundle";
import { rawSqliteOf, type Db } from "./client";
import { importCaseStream, StreamedBundleInvalidError } from "./cases-stream";
import { readBundleRowsInWorker } from "./stream-reader";
import { freshTestDb } from "./test-db";

const sqlite = !process.env.TEST_DATABASE_URL;
const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-cases-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROW_TABLES = `('Node', 'Edge', 'BoundaryRecord')`;
/** Secondary indexes of the row tables, as this connection sees them (inside the transaction too). */
function rowIndexes(db: Db): string[] {
  const raw = rawSqliteOf(db) as unknown as { prepare(sql: string): { all(): Array<{ name: string }> } };
  return raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ${ROW_TABLES} ORDER BY name`).all().map((r) => r.name);
}

function bundleFile(name: string, turns: number, seed: number): string {
  const f = path.join(dir, name);
  writeFileSync(f, JSON.stringify(syntheticBundle({ id: `stream/${name}`, turns, seed })));
  return f;
}

describe.runIf(sqlite)("importCaseStream: secondary indexes built after the first case's rows", () => {
  test("fresh database: none while inserting, the same ones after; a second case keeps them while inserting", async () => {
    const { db } = await freshTestDb();
    try {
      await db.case.count(); // connect
      const before = rowIndexes(db);
      expect(before).toEqual(expect.arrayContaining(["Node_caseId_nodeId_key", "Edge_caseId_fromNodeId_idx", "BoundaryRecord_caseId_seq_key"]));
      let during: string[] = [];
      const first = await importCaseStream(db, async (sink) => {
        during = rowIndexes(db);
        return streamBundleFile(bundleFile("a.json", 20, 1), sink);
      });
      expect(first.status).toBe("imported");
      expect(during).toEqual([]);
      expect(rowIndexes(db)).toEqual(before);
      expect(await db.node.count()).toBe(first.result.counts.nodes);
      // The node-id lookups work through the rebuilt unique index (and it is enforced).
      const n = await db.node.findFirstOrThrow({ where: { caseId: first.caseId }, select: { nodeId: true } });
      expect(await db.node.findUnique({ where: { caseId_nodeId: { caseId: first.caseId, nodeId: n.nodeId } }, select: { nodeId: true } })).toEqual(n);

      let duringSecond: string[] = [];
      const second = await importCaseStream(db, async (sink) => {
        duringSecond = rowIndexes(db);
        return streamBundleFile(bundleFile("b.json", 10, 2), sink);
      });
      expect(second.status).toBe("imported");
      expect(duringSecond).toEqual(before);
    } finally {
      await db.$disconnect();
    }
  }, 60_000);

  test("read in the worker thread: the indexes are built when the last row is in (rows-end), before the reader's result", async () => {
    const { db } = await freshTestDb();
    try {
      await db.case.count();
      const before = rowIndexes(db);
      const seen: Array<[string, string[]]> = [];
      const file = bundleFile("w.json", 30, 3);
      const r = await importCaseStream(db, async (_sink, rows) => {
        seen.push(["start", rowIndexes(db)]);
        const end = rows.end!;
        const res = await readBundleRowsInWorker(file, {
          ...rows,
          end: () => {
            seen.push(["rows-end", rowIndexes(db)]);
            end();
            seen.push(["after end", rowIndexes(db)]);
          },
        });
        seen.push(["result", rowIndexes(db)]);
        return res;
      });
      expect(r.status).toBe("imported");
      expect(seen).toEqual([["start", []], ["rows-end", []], ["after end", before], ["result", before]]);
      expect(rowIndexes(db)).toEqual(before);
      expect(await db.node.count()).toBe(30 * 4 + 2);
    } finally {
      await db.$disconnect();
    }
  }, 60_000);

  test("an invalid first bundle: nothing written and the indexes are back (the drop is rolled back)", async () => {
    const { db } = await freshTestDb();
    try {
      await db.case.count();
      const before = rowIndexes(db);
      const fixture = path.join(import.meta.dirname, "../bundle/fixtures/wrong-hash.bundle.json");
      let during: string[] | null = null;
      await expect(
        importCaseStream(db, async (sink) => {
          during = rowIndexes(db);
          return streamBundleFile(fixture, sink);
        }),
      ).rejects.toBeInstanceOf(StreamedBundleInvalidError);
      expect(during).toEqual([]);
      expect(rowIndexes(db)).toEqual(before);
      expect([await db.case.count(), await db.node.count(), await db.edge.count(), await db.boundaryRecord.count()]).toEqual([0, 0, 0, 0]);
    } finally {
      await db.$disconnect();
    }
  }, 60_000);
});
