import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseJsonText, validateBundle, type ReplayBundle } from "../bundle";
import { importText } from "../importers";
import type { DbHandle } from "./client";
import { bundleHash, CaseConflictError, exportBundle, getCaseByBundleId, getCaseGraph, getNodeDetail, importCase, listCaseFacets, listCases, searchCaseNodes } from "./cases";
import { freshTestDb } from "./test-db";
import { compactGraph, expandGraph } from "../layout";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const gold = (c: string): ReplayBundle => {
  const r = validateBundle(parseJsonText(readFileSync(path.join(SHARED, `fixtures/bundles/gold-${c}.bundle.json`), "utf8")));
  if (!r.ok) throw new Error("gold invalid");
  return r.bundle;
};

let h: DbHandle;
beforeAll(async () => {
  h = await freshTestDb();
});
afterAll(async () => {
  await h.db.$disconnect();
});

describe(`lib/db cases (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("imports a gold bundle with all its nodes, edges and records", async () => {
    const b = gold("c2");
    const r = await importCase(h.db, { bundle: b });
    expect(r.status).toBe("imported");
    const c = await getCaseByBundleId(h.db, { bundleId: b.id });
    expect(c?.nodeCount).toBe(16);
    expect(c?.edgeCount).toBe(18);
    expect(c?.recordCount).toBe(7);
    const g = await getCaseGraph(h.db, { caseId: r.caseId });
    expect(g.nodes.map((n) => n.id)).toEqual(b.order);
    expect(g.edges).toEqual(b.graph.edges.map((e) => ({ from: e.from, to: e.to, kind: e.kind })));
    expect(c?.sourceDataset).toBe("bundle");
    expect(c?.header.task.prompt).toBe(b.task.prompt);
    expect(await h.db.auditEvent.count({ where: { caseId: r.caseId, action: "case.import" } })).toBe(1);
  });

  test("re-importing the same bundle is idempotent", async () => {
    const b = gold("c2");
    const before = await h.db.node.count();
    const r = await importCase(h.db, { bundle: b });
    expect(r.status).toBe("skipped");
    expect(await h.db.case.count({ where: { bundleId: b.id } })).toBe(1);
    expect(await h.db.node.count()).toBe(before);
  });

  test.each(["c1", "c2", "c3", "c4"])("export of gold-%s round-trips to the same bundleHash and node hashes", async (c) => {
    const b = gold(c);
    await importCase(h.db, { bundle: b });
    const out = await exportBundle(h.db, { bundleId: b.id });
    expect(out).not.toBeNull();
    const again = validateBundle(JSON.parse(JSON.stringify(out)));
    expect(again.ok).toBe(true);
    expect(bundleHash(out as ReplayBundle)).toBe(bundleHash(b));
    expect((out as ReplayBundle).graph.nodes.map((n) => n.contentHash)).toEqual(b.graph.nodes.map((n) => n.contentHash));
  });

  test("unknown keys survive import and export", async () => {
    const b = structuredClone(gold("c4")) as ReplayBundle & Record<string, unknown>;
    b.id = "test/unknown-keys";
    (b as Record<string, unknown>).x_vendor = { keep: [1, 2] };
    (b.graph.nodes[0] as Record<string, unknown>).x_node = "n";
    (b.graph.edges[0] as Record<string, unknown>).x_edge = true;
    (b.records[0] as Record<string, unknown>).x_rec = null;
    (b.graph as Record<string, unknown>).x_graph = 7;
    await importCase(h.db, { bundle: b });
    const out = (await exportBundle(h.db, { bundleId: b.id })) as Record<string, unknown> & ReplayBundle;
    expect(out.x_vendor).toEqual({ keep: [1, 2] });
    expect((out.graph.nodes[0] as Record<string, unknown>).x_node).toBe("n");
    expect((out.graph.edges[0] as Record<string, unknown>).x_edge).toBe(true);
    expect((out.records[0] as Record<string, unknown>).x_rec).toBeNull();
    expect((out.graph as Record<string, unknown>).x_graph).toBe(7);
    expect(bundleHash(out)).toBe(bundleHash(b));
  });

  test("a case that fails mid-write leaves nothing behind (one transaction)", async () => {
    const b = structuredClone(gold("c4"));
    b.id = "test/half-written";
    // Bypass validation: a duplicate node id makes the node insert fail after the case row.
    b.graph.nodes.push({ ...b.graph.nodes[0] });
    await expect(importCase(h.db, { bundle: b })).rejects.toThrow();
    expect(await h.db.case.count({ where: { bundleId: b.id } })).toBe(0);
    expect(await h.db.auditEvent.count({ where: { dataJson: { contains: "test/half-written" } } })).toBe(0);
  });

  test("changed content replaces a case with no annotations, and conflicts once annotated", async () => {
    const b = structuredClone(gold("c3"));
    b.id = "test/replace";
    const first = await importCase(h.db, { bundle: b });
    const changed = structuredClone(b);
    changed.task.prompt = b.task.prompt + " (edited)";
    const second = await importCase(h.db, { bundle: changed });
    expect(second.status).toBe("replaced");
    expect((await getCaseByBundleId(h.db, { bundleId: b.id }))?.taskPrompt).toMatch(/\(edited\)$/);
    const user = await h.db.user.create({ data: { name: "A", email: `a-${Date.now()}@example.test`, roles: "annotator" } });
    await h.db.annotation.create({ data: { caseId: second.caseId, userId: user.id, kind: "initial" } });
    await expect(importCase(h.db, { bundle: b })).rejects.toBeInstanceOf(CaseConflictError);
    expect((await getCaseByBundleId(h.db, { bundleId: b.id }))?.taskPrompt).toMatch(/\(edited\)$/);
    expect(first.caseId).not.toBe(second.caseId);
  });

  test("imported dataset labels are stored as reference labels, annotator by annotator", async () => {
    const text = readFileSync(path.join(SHARED, "datasets/mast_mad/MAD_human_labelled_sample.json"), "utf8");
    const res = importText(text, "MAD_human_labelled_sample.json", "mad");
    expect(res.failures).toEqual([]);
    for (const c of res.cases) await importCase(h.db, c);
    const c = await getCaseByBundleId(h.db, { bundleId: res.cases[0].bundle.id });
    expect(c?.referenceLabels.map((l) => l.annotator)).toEqual(["annotator_1", "annotator_2", "annotator_3"]);
    expect(c?.referenceLabels[0].failureModes.length).toBeGreaterThan(10);
    const ww = importText(
      readFileSync(path.join(SHARED, "datasets/who_and_when/Hand-Crafted/6.json"), "utf8"),
      path.join(SHARED, "datasets/who_and_when/Hand-Crafted/6.json"),
    );
    await importCase(h.db, ww.cases[0]);
    const w = await getCaseByBundleId(h.db, { bundleId: ww.cases[0].bundle.id });
    expect(w?.referenceLabels).toHaveLength(1);
    expect(w?.referenceLabels[0]).toMatchObject({ source: "who_and_when", annotator: "consensus", agent: "Orchestrator" });
    expect(w?.referenceLabels[0].nodeId).toMatch(/^msg_\d{4}$/);
  });

  test("list filters by dataset, MAS and benchmark, and searches task text case-insensitively", async () => {
    const all = await listCases(h.db, {});
    expect(all.total).toBeGreaterThanOrEqual(13);
    const mad = await listCases(h.db, { dataset: "mad" });
    expect(mad.total).toBe(9);
    expect(mad.cases.every((c) => c.sourceDataset === "mad")).toBe(true);
    const ag2 = await listCases(h.db, { mas: "ag2" });
    expect(ag2.cases.length).toBeGreaterThan(0);
    expect(ag2.cases.every((c) => c.mas === "ag2")).toBe(true);
    const q = await listCases(h.db, { q: "stephen king" });
    expect(q.cases.map((c) => c.bundleId)).toContain("ag2/webarena_verified_hard_267/attempt_000");
    const facets = await listCaseFacets(h.db);
    expect(facets.datasets).toEqual(expect.arrayContaining(["bundle", "mad", "who_and_when"]));
  });

  test("node detail verifies the content hash and lists parents, children and records", async () => {
    const b = gold("c2");
    const c = await getCaseByBundleId(h.db, { bundleId: b.id });
    const rec = b.records[0];
    const d = await getNodeDetail(h.db, { caseId: c!.id, nodeId: rec.nodeId });
    expect(d?.hashVerifies).toBe(true);
    expect(d?.records.map((r) => r.seq)).toContain(rec.seq);
    expect(d?.records[0].requestHashVerifies).toBe(true);
    const parents = b.graph.edges.filter((e) => e.to === rec.nodeId).map((e) => e.from);
    expect(d?.parents.map((p) => p.nodeId)).toEqual(parents);
    expect(await getNodeDetail(h.db, { caseId: c!.id, nodeId: "no-such-node" })).toBeNull();
  });

  test("search inside a trace finds nodes by content, label and agent, case-insensitively", async () => {
    const b = gold("c2");
    const c = await getCaseByBundleId(h.db, { bundleId: b.id });
    const needle = "Stephen King";
    const expected = b.order.filter((id) => {
      const n = b.graph.nodes.find((x) => x.id === id)!;
      const hay = [n.id, n.agent ?? "", n.label ?? "", JSON.stringify(n.content)].join("\n").toLowerCase();
      return hay.includes(needle.toLowerCase());
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(await searchCaseNodes(h.db, { caseId: c!.id, q: "stephen king" })).toEqual(expected);
    expect(await searchCaseNodes(h.db, { caseId: c!.id, q: "   " })).toEqual([]);
    expect(await searchCaseNodes(h.db, { caseId: c!.id, q: "zzz-no-such-text" })).toEqual([]);
    // % and _ are literal characters, not LIKE wildcards
    expect(await searchCaseNodes(h.db, { caseId: c!.id, q: "%" })).toEqual(
      b.order.filter((id) => JSON.stringify(b.graph.nodes.find((n) => n.id === id)).includes("%")),
    );
    const all = await listCases(h.db, {});
    const pct = await listCases(h.db, { q: "%" });
    expect(pct.total).toBe(all.cases.filter((x) => x.taskPrompt.includes("%") || x.bundleId.includes("%")).length);
    const us = await listCases(h.db, { q: "_" });
    expect(us.total).toBe(all.cases.filter((x) => x.taskPrompt.includes("_") || x.bundleId.includes("_")).length);
    expect(us.total).toBeLessThan(all.total);
  });
  test("benchmark names are normalized on import: differently-cased names are one facet value and either finds both", async () => {
    const variant = (id: string, benchmark: string): ReplayBundle => {
      const b = structuredClone(gold("c2"));
      return { ...b, id, task: { ...b.task, benchmark } };
    };
    const key = (s: string) => s.toLowerCase().replace(/[\s_-]/g, "");
    await importCase(h.db, { bundle: variant("bench-norm/a", "AssistantBench") });
    await importCase(h.db, { bundle: variant("bench-norm/b", "assistantbench") });
    await importCase(h.db, { bundle: variant("bench-norm/c", "My_Own-Bench") });
    await importCase(h.db, { bundle: variant("bench-norm/d", "my own bench") });
    const facets = await listCaseFacets(h.db);
    expect(facets.benchmarks.filter((b) => key(b) === "assistantbench")).toEqual(["AssistantBench"]);
    expect(facets.benchmarks.filter((b) => key(b) === "myownbench")).toEqual(["My_Own-Bench"]);
    for (const f of ["AssistantBench", "assistantbench", "ASSISTANT_BENCH"]) {
      const r = await listCases(h.db, { benchmark: f });
      expect(r.cases.map((c) => c.bundleId).filter((id) => id.startsWith("bench-norm/"))).toEqual(["bench-norm/a", "bench-norm/b"]);
    }
    const mine = await listCases(h.db, { benchmark: "MY OWN BENCH" });
    expect(mine.cases.map((c) => c.bundleId)).toEqual(["bench-norm/c", "bench-norm/d"]);
  });
  test("the case graph carries start, duration and tokens of imported Langfuse spans, and the compact payload keeps them", async () => {
    const file = path.join(SHARED, "datasets/langfuse_framework_traces/openai-agents-2025-09-30.trace.json");
    const res = importText(readFileSync(file, "utf8"), file, "otel");
    expect(res.failures).toEqual([]);
    const r = await importCase(h.db, res.cases[0]);
    const g = await getCaseGraph(h.db, { caseId: r.caseId });
    const llm = g.nodes.filter((n) => n.type === "llm_call");
    expect(llm).toHaveLength(2);
    expect(llm.map((n) => n.timing?.tokens)).toEqual(
      expect.arrayContaining([
        { input: 55, output: 15, total: 70 },
        { input: 85, output: 29, total: 114 },
      ]),
    );
    const second = llm.find((n) => n.timing?.tokens?.total === 114)!;
    expect(second.timing?.startNs).toBe("1759223041001000000");
    expect(second.timing?.durationNs).toMatch(/^\d+$/);
    const back = expandGraph(compactGraph(g.nodes, g.edges));
    expect(back.nodes.find((n) => n.id === second.id)?.timing).toEqual(second.timing);
    const gold2 = await getCaseByBundleId(h.db, { bundleId: gold("c2").id });
    const plain = await getCaseGraph(h.db, { caseId: gold2!.id });
    expect(plain.nodes.some((n) => "timing" in n)).toBe(false);
    expect(compactGraph(plain.nodes, plain.edges).timing).toBeUndefined();
  });
});
