/**
 * The streaming import path (issue 16 item 3) end to end through the database, against the
 * in-memory path: forced with `streamMinBytes: 0`, each shared bundle fixture and dataset file
 * stores the same case (bundle hash, header, every node/edge/record row); an invalid bundle is
 * reported with JSON paths and writes nothing; re-import skips, changed content replaces, an
 * annotated case is not replaced; nodes listed out of observed order get their orderIndex fixed.
 */
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { bundleHash, exportBundle, type Db } from "../db";
import { freshTestDb } from "../db/test-db";
import { importPaths } from "./import-files";

const SHARED = path.resolve(import.meta.dirname, "../../../shared");
const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-import-stream-"));
let mem: Db;
let str: Db;

beforeAll(async () => {
  mem = (await freshTestDb()).db;
  str = (await freshTestDb()).db;
}, 120_000);
afterAll(async () => {
  await mem.$disconnect();
  await str.$disconnect();
});

async function rowsOf(db: Db, bundleId: string) {
  const c = await db.case.findUniqueOrThrow({ where: { bundleId } });
  const nodes = await db.node.findMany({ where: { caseId: c.id }, orderBy: { idx: "asc" }, select: { nodeId: true, idx: true, orderIndex: true, type: true, agent: true, label: true, status: true, errorJson: true, contentJson: true, contentHash: true, extraJson: true } });
  const edges = await db.edge.findMany({ where: { caseId: c.id }, orderBy: { idx: "asc" }, select: { idx: true, fromNodeId: true, toNodeId: true, kind: true, extraJson: true } });
  const records = await db.boundaryRecord.findMany({ where: { caseId: c.id }, orderBy: { seq: "asc" }, select: { seq: true, nodeId: true, boundary: true, requestJson: true, requestHash: true, responseJson: true, metaJson: true, extraJson: true } });
  const labels = await db.referenceLabel.count({ where: { caseId: c.id } });
  const { id: _id, importedAt: _i, updatedAt: _u, headerJson, ...caseRow } = c;
  return { caseRow, header: JSON.parse(headerJson) as unknown, nodes, edges, records, labels };
}

describe("streamed import stores what the in-memory import stores", () => {
  const files = [
    ...readdirSync(path.join(SHARED, "fixtures/bundles")).filter((f) => f.endsWith(".bundle.json")).map((f) => path.join(SHARED, "fixtures/bundles", f)),
    ...readdirSync(path.join(SHARED, "datasets/langfuse_framework_traces")).filter((f) => f.endsWith(".json")).map((f) => path.join(SHARED, "datasets/langfuse_framework_traces", f)),
    path.join(import.meta.dirname, "../importers/fixtures/otlp-openinference.json"),
    path.join(import.meta.dirname, "../importers/fixtures/otlp-genai.json"),
  ];
  test.each(files.map((f) => [path.basename(f), f]))("%s", async (_name, file) => {
    const a = await importPaths(mem, [file]);
    const b = await importPaths(str, [file], { streamMinBytes: 0 });
    expect(b.failed).toEqual(a.failed);
    expect(b.cases.map((c) => [c.bundleId, c.status])).toEqual(a.cases.map((c) => [c.bundleId, c.status]));
    expect(a.cases.length).toBeGreaterThan(0);
    for (const c of a.cases) {
      const ra = await rowsOf(mem, c.bundleId);
      const rb = await rowsOf(str, c.bundleId);
      expect(rb.caseRow).toEqual(ra.caseRow);
      expect(rb.header).toEqual(ra.header);
      expect(rb.nodes).toEqual(ra.nodes);
      expect(rb.edges).toEqual(ra.edges);
      expect(rb.records).toEqual(ra.records);
      expect(rb.labels).toBe(ra.labels);
    }
  });
});

describe("streamed import: all or nothing, idempotent", () => {
  test("an invalid bundle: failures with JSON paths, no case row at all", async () => {
    const before = await str.case.count();
    const rows = async () => [await str.node.count(), await str.edge.count(), await str.boundaryRecord.count()];
    const rowsBefore = await rows();
    // Invalid only at the end (rule 3 is checked once order is known): its rows were written, then rolled back.
    const r = await importPaths(str, [path.join(import.meta.dirname, "../bundle/fixtures/not-linear-extension.bundle.json")], { streamMinBytes: 0 });
    expect(r.imported).toBe(0);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0].errors.map((e) => e.path)).toContain("$.graph.edges[1]");
    expect(await str.case.count()).toBe(before);
    const truncated = await importPaths(str, [path.join(import.meta.dirname, "../bundle/fixtures/truncated.bundle.json")], { streamMinBytes: 0 });
    expect(truncated.failed[0].errors[0].message).toMatch(/truncated\?\) at end of input/);
    expect(await str.case.count()).toBe(before);
    expect(await rows()).toEqual(rowsBefore);
  });

  test("re-import skips; changed content replaces; nodes out of observed order get orderIndex fixed", async () => {
    const b = syntheticBundle({ id: "stream/reorder", turns: 3, seed: 5 });
    const rev = { ...b, graph: { ...b.graph, nodes: [...b.graph.nodes].reverse() } };
    const file = path.join(dir, "reorder.json");
    writeFileSync(file, JSON.stringify(rev));
    const r1 = await importPaths(str, [file], { streamMinBytes: 0 });
    expect(r1.cases[0].status).toBe("imported");
    const rows = await rowsOf(str, "stream/reorder");
    for (const n of rows.nodes) expect(n.orderIndex).toBe(b.order.indexOf(n.nodeId));
    expect(rows.nodes.map((n) => n.idx)).toEqual(rev.graph.nodes.map((_n, i) => i));
    const exported = await exportBundle(str, { bundleId: "stream/reorder" });
    expect(bundleHash(exported!)).toBe(bundleHash(rev));

    const r2 = await importPaths(str, [file], { streamMinBytes: 0 });
    expect(r2.cases[0].status).toBe("skipped");
    expect(r2.cases[0].caseId).toBe(r1.cases[0].caseId);

    const changed = { ...rev, task: { ...rev.task, prompt: "changed prompt" } };
    writeFileSync(file, JSON.stringify(changed));
    const r3 = await importPaths(str, [file], { streamMinBytes: 0 });
    expect(r3.cases[0].status).toBe("replaced");
    expect((await str.case.findUniqueOrThrow({ where: { bundleId: "stream/reorder" } })).taskPrompt).toBe("changed prompt");
    expect(await str.case.count({ where: { bundleId: "stream/reorder" } })).toBe(1);
    expect(await str.node.count({ where: { caseId: r3.cases[0].caseId } })).toBe(b.graph.nodes.length);
  });

  test("an annotated case is not replaced by different content (conflict, nothing written)", async () => {
    const b = syntheticBundle({ id: "stream/annotated", turns: 1, seed: 2 });
    const file = path.join(dir, "annotated.json");
    writeFileSync(file, JSON.stringify(b));
    const r1 = await importPaths(str, [file], { streamMinBytes: 0 });
    const u = await str.user.create({ data: { email: "a@example.org", name: "A", roles: "annotator" } });
    await str.assignment.create({ data: { caseId: r1.cases[0].caseId, userId: u.id, role: "annotator" } });
    writeFileSync(file, JSON.stringify({ ...b, task: { ...b.task, prompt: "other" } }));
    const r2 = await importPaths(str, [file], { streamMinBytes: 0 });
    expect(r2.failed[0].errors[0].message).toMatch(/already stored with different content/);
    expect((await str.case.findUniqueOrThrow({ where: { bundleId: "stream/annotated" } })).id).toBe(r1.cases[0].caseId);
    expect(await str.case.count({ where: { bundleId: { startsWith: "(importing)/" } } })).toBe(0);
  });
});
