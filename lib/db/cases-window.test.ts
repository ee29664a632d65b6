/**
 * The windowed inspector's queries (issue 16 item 4) on a real database: a window holds exactly
 * the nodes of its rows and every edge touching them with both ends' rows and agents; lanes are in
 * order of first appearance; the compact index has one lane byte and one flags byte per row.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fanOutBundle, syntheticBundle } from "../bundle";
import { freshTestDb } from "./test-db";
import Database from "better-sqlite3";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "../generated/sqlite/client";
import { PrismaClient as PostgresClient } from "../generated/postgresql/client";
import { getNodeDetail, importCase } from "./cases";
import { providerOfDb, sqliteAdapter, urlOfDb } from "./client";
import { sqliteFilePath } from "./url";
import { getCaseLanes, getCaseTimeZero, getGraphIndex, getGraphWindow, INDEX_TYPES, locateNode, TIME_ZERO_ROWS } from "./cases-window";
import { nodeTimingOf, traceStartNs } from "../layout/timing";
import type { Db } from "./client";

let db: Db;
let caseId: string;
let fanId: string;
const b = syntheticBundle({ id: "window/synthetic", turns: 60, seed: 4 });
const fan = fanOutBundle({ id: "window/fan", width: 300 });

beforeAll(async () => {
  db = (await freshTestDb()).db;
  caseId = (await importCase(db, { bundle: b })).caseId;
  fanId = (await importCase(db, { bundle: fan })).caseId;
}, 120_000);
afterAll(async () => {
  await db.$disconnect();
});

describe("graph windows", () => {
  test("rows [from, to): those nodes in order; every edge touching them, with rows and agents", async () => {
    const w = await getGraphWindow(db, { caseId, from: 40, to: 60 });
    expect(w.nodes.map((n) => n.id)).toEqual(b.order.slice(40, 60));
    expect(w.nodes.map((n) => n.orderIndex)).toEqual(Array.from({ length: 20 }, (_, i) => 40 + i));
    const inWin = new Set(b.order.slice(40, 60));
    const want = b.graph.edges.map((e, idx) => ({ ...e, idx })).filter((e) => inWin.has(e.from) || inWin.has(e.to));
    expect(w.edges.map((e) => e.idx)).toEqual(want.map((e) => e.idx));
    const agentOf = new Map(b.graph.nodes.map((n) => [n.id, n.agent ?? null]));
    for (const e of w.edges) {
      expect(e.fromIndex).toBe(b.order.indexOf(e.from));
      expect(e.toIndex).toBe(b.order.indexOf(e.to));
      expect(e.fromAgent).toBe(agentOf.get(e.from));
      expect(e.toAgent).toBe(agentOf.get(e.to));
      expect(e.kind).toBe(b.graph.edges[e.idx].kind);
    }
  });

  test("a fan-out node's window carries all its out-edges; windows are capped at 2,000 rows", async () => {
    const w = await getGraphWindow(db, { caseId: fanId, from: 1, to: 2 });
    expect(w.nodes.map((n) => n.id)).toEqual(["dispatcher"]);
    expect(w.edges.filter((e) => e.from === "dispatcher")).toHaveLength(300);
    const huge = await getGraphWindow(db, { caseId: fanId, from: 0, to: 10_000 });
    expect(huge.to).toBe(2000);
    expect(huge.nodes).toHaveLength(fan.graph.nodes.length);
  });

  test("lanes by first appearance; locate; the compact index", async () => {
    const agentsInOrder = [...new Set(b.order.map((id) => b.graph.nodes.find((n) => n.id === id)!.agent ?? null))];
    expect(await getCaseLanes(db, { caseId })).toEqual(agentsInOrder);
    expect(JSON.parse((await db.case.findUniqueOrThrow({ where: { id: caseId } })).lanesJson!)).toEqual(agentsInOrder);
    // a case imported before lanes were stored: the grouped query gives the same lanes
    await db.case.update({ where: { id: fanId }, data: { lanesJson: null } });
    expect(await getCaseLanes(db, { caseId: fanId })).toEqual(["User", "Dispatcher", "Worker-0", "Worker-1", "Worker-2", "Worker-3"]);
    expect(await locateNode(db, { caseId, nodeId: "tool_result_0033" })).toBe(b.order.indexOf("tool_result_0033"));
    expect(await locateNode(db, { caseId, nodeId: "nope" })).toBeNull();
    const ix = await getGraphIndex(db, { caseId });
    expect(ix.count).toBe(b.graph.nodes.length);
    const byId = new Map(b.graph.nodes.map((n) => [n.id, n]));
    b.order.forEach((id, row) => {
      const n = byId.get(id)!;
      expect(ix.lanes[ix.lane[row]]).toBe(n.agent ?? null);
      expect(INDEX_TYPES[(ix.flags[row] & 7) - 1]).toBe(n.type);
      expect((ix.flags[row] & 8) !== 0).toBe(n.status === "error");
    });
    expect([...ix.flags].filter((f) => f & 8).length).toBe(b.graph.nodes.filter((n) => n.status === "error").length);
  });
});

/**
 * Click → detail panel of a windowed case (issue 16 item 4, 6.8 s at 1M nodes): every statement
 * behind one node's detail, search-by-position and locate must reach its rows through an index on
 * the node id, never walk all the case's edges or records. Without statistics SQLite picks the
 * unique (caseId, idx) / (caseId, seq) index to skip the ORDER BY sort, i.e. a scan of the whole
 * case per click. Checked on the statements Prisma really sends (query log) with the database's
 * own plan: SQLite EXPLAIN QUERY PLAN; PostgreSQL EXPLAIN after ANALYZE with sequential scans
 * priced out (`enable_seqscan = off`: this test's tables are tiny, where a full scan is cheapest;
 * at 1M rows it is not), so the plan shows which index the planner reaches the rows through.
 */
describe("per-node queries use the node-id indexes", () => {
  /** The SELECTs on Edge / BoundaryRecord that getNodeDetail and locateNode send, from a query-logging client on the same database. */
  async function statements(): Promise<Array<{ query: string; params: unknown[] }>> {
    const url = urlOfDb(db)!;
    const logged = (providerOfDb(db) === "sqlite" ? new SqliteClient({ adapter: sqliteAdapter(sqliteFilePath(url)), log: [{ emit: "event", level: "query" }] }) : new PostgresClient({ adapter: new PrismaPg({ connectionString: url }), log: [{ emit: "event", level: "query" }] })) as unknown as Db;
    const sql: Array<{ query: string; params: unknown[] }> = [];
    (logged as unknown as { $on: (e: "query", f: (q: { query: string; params: string }) => void) => void }).$on("query", (q) => sql.push({ query: q.query, params: JSON.parse(q.params) as unknown[] }));
    try {
      const id = b.graph.nodes.find((n) => n.type === "llm_call")!.id;
      const d = await getNodeDetail(logged, { caseId, nodeId: id });
      expect(d?.records.length).toBeGreaterThan(0);
      expect(d?.parents.map((p) => p.nodeId)).toEqual(b.graph.edges.filter((e) => e.to === id).map((e) => e.from));
      expect(d?.children.map((p) => p.nodeId)).toEqual(b.graph.edges.filter((e) => e.from === id).map((e) => e.to));
      expect(d?.records.map((r) => r.seq)).toEqual(b.records.filter((r) => r.nodeId === id).map((r) => r.seq));
      await locateNode(logged, { caseId, nodeId: id });
    } finally {
      await logged.$disconnect();
    }
    const picked = sql.filter((s) => /^\s*SELECT/i.test(s.query) && /[`"](Edge|BoundaryRecord)[`"]/.test(s.query));
    expect(picked.length).toBe(3);
    return picked;
  }

  test("getNodeDetail and locateNode: no statement scans a case's edges or records", async () => {
    const picked = await statements();
    if (providerOfDb(db) === "sqlite") {
      const raw = new Database(sqliteFilePath(urlOfDb(db)!), { readonly: true });
      try {
        for (const s of picked) {
          const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${s.query}`).all(...(s.params as never[])) as Array<{ detail: string }>).map((r) => r.detail).join(" | ");
          expect(plan, s.query).toMatch(/USING INDEX (Edge_caseId_(fromNodeId|toNodeId)_idx|BoundaryRecord_caseId_nodeId_idx) \(caseId=\? AND (fromNodeId|toNodeId|nodeId)=\?\)/);
        }
      } finally {
        raw.close();
      }
      return;
    }
    const client = new pg.Client({ connectionString: urlOfDb(db)! });
    await client.connect();
    try {
      await client.query('ANALYZE "Edge"');
      await client.query('ANALYZE "BoundaryRecord"');
      await client.query("SET enable_seqscan = off");
      for (const s of picked) {
        const plan = (await client.query(`EXPLAIN ${s.query}`, s.params)).rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join(" | ");
        expect(plan, s.query).toMatch(/(Index Scan using|Index Only Scan using|Bitmap Index Scan on) "?(Edge_caseId_(fromNodeId|toNodeId)_idx|BoundaryRecord_caseId_nodeId_idx)"?/);
        expect(plan, s.query).toMatch(/Index Cond: \(\("caseId" = (\$\d+|'[^']*'::text)\) AND \("(fromNodeId|toNodeId|nodeId)" = (\$\d+|'[^']*'::text)\)\)/);
        expect(plan, s.query).not.toMatch(/(Edge_caseId_idx_key|BoundaryRecord_caseId_seq_key)/);
      }
    } finally {
      await client.end();
    }
  });
});

describe("the windowed timeline's data", () => {
  test("window nodes carry their timing (tokens of llm_call nodes); the time origin; none for a trace without times", async () => {
    const w = await getGraphWindow(db, { caseId, from: 0, to: 40 });
    const byId = new Map(b.graph.nodes.map((n) => [n.id, n]));
    for (const n of w.nodes) {
      const want = nodeTimingOf(byId.get(n.id)!.content);
      if (want) expect(n.timing).toEqual(want);
      else expect(n.timing).toBeUndefined();
    }
    expect(w.nodes.filter((n) => n.timing?.tokens).length).toBe(b.order.slice(0, 40).filter((id) => byId.get(id)!.type === "llm_call").length);
    expect(await getCaseTimeZero(db, { caseId })).toBe(traceStartNs(b.order.slice(0, TIME_ZERO_ROWS).map((id) => nodeTimingOf(byId.get(id)!.content))));
  });
});
