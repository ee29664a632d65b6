/**
 * The windowed inspector's queries (issue 16 item 4) on a real database: a window holds exactly
 * the nodes of its rows and every edge touching them with both ends' rows and agents; lanes are in
 * order of first appearance; the compact index has one lane byte and one flags byte per row.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fanOutBundle, syntheticBundle } from "../bundle";
import { freshTestDb } from "./test-db";
import { importCase } from "./cases";
import { getCaseLanes, getGraphIndex, getGraphWindow, INDEX_TYPES, locateNode } from "./cases-window";
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
