/**
 * Deep structures end to end through the database (issue 10 item 8): a bundle whose node content
 * is nested 10,000 levels is rejected by import with its JSON path and the limit, and nothing is
 * written; a 400-deep one imports, its node detail loads, and its export stays proportional in
 * size; a too-deep node stored by an older version still loads (hash "does not verify", no throw).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_JSON_DEPTH, serializeBundle, syntheticBundle, buildBundle } from "../bundle";
import { exportBundle, getNodeDetail, listCaseIds, type Db } from "../db";
import { freshTestDb } from "../db/test-db";
import type { DbHandle } from "../db/client";
import { importPaths } from "./import-files";

const deepText = (depth: number) => '{"a":'.repeat(depth) + '"x"' + "}".repeat(depth);

let handle: DbHandle;
let db: Db;
const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-deep-"));

beforeAll(async () => {
  handle = await freshTestDb();
  db = handle.db;
});
afterAll(async () => {
  await db.$disconnect();
});

describe("import of deep content", () => {
  test("a 10,000-deep node content is rejected with its path and the limit; nothing is written", async () => {
    const b = syntheticBundle({ id: "deep-10000", turns: 1 });
    const text = JSON.stringify(b).replace(JSON.stringify(b.graph.nodes[1].content), deepText(10_000));
    const file = path.join(dir, "deep-10000.json");
    writeFileSync(file, text);
    const report = await importPaths(db, [file]);
    expect(report.imported).toBe(0);
    expect(report.failed).toHaveLength(1);
    const err = report.failed[0].errors[0];
    expect(err.path.startsWith("$.graph.nodes[1].content.a.a.a")).toBe(true);
    expect(err.message).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(JSON.stringify(report)).not.toMatch(/call stack/i);
    expect(await listCaseIds(db)).toEqual([]);
  });

  test("a 400-deep content imports, its node detail loads and its export is proportional", async () => {
    const s = syntheticBundle({ id: "deep-400", turns: 2 });
    let content: unknown = "leaf";
    for (let i = 0; i < 400; i++) content = { a: content };
    const b = buildBundle({
      id: "deep-400",
      task: s.task,
      config: s.config,
      nodes: s.graph.nodes.map((n, i) => (i === 1 ? { ...n, content } : n)),
      edges: s.graph.edges,
      records: s.records.map((r) => ({ nodeId: r.nodeId, boundary: r.boundary, request: r.request, response: r.response })),
    });
    const file = path.join(dir, "deep-400.json");
    writeFileSync(file, serializeBundle(b));
    const report = await importPaths(db, [file]);
    expect(report.failed).toEqual([]);
    expect(report.imported).toBe(1);
    const caseId = report.cases[0].caseId;
    const detail = await getNodeDetail(db, { caseId, nodeId: b.graph.nodes[1].id });
    expect(detail?.content).toEqual(content);
    expect(detail?.hashVerifies).toBe(true);
    const out = await exportBundle(db, { caseId });
    const exported = serializeBundle(out!);
    expect(exported.length).toBeLessThan(3 * JSON.stringify(b).length);
  });

  test("a too-deep node already in the database loads: hash does not verify, no throw", async () => {
    const [c] = await listCaseIds(db);
    const s = syntheticBundle({ id: "deep-400", turns: 2 });
    await db.node.update({ where: { caseId_nodeId: { caseId: c.id, nodeId: s.graph.nodes[2].id } }, data: { contentJson: deepText(20_000) } });
    const detail = await getNodeDetail(db, { caseId: c.id, nodeId: s.graph.nodes[2].id });
    expect(detail?.hashVerifies).toBe(false);
  });
});
