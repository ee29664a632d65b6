/**
 * The graph of a large case in windows of the observed order (issue 16 item 4): the browser never
 * holds the whole trace. It gets the agent lanes, a compact per-node index (one byte of lane and
 * one of type/status per node, for the zoomed-out overview) and, around the viewport, windows of
 * nodes with every edge touching them (the far end's position and agent included, so an edge to a
 * node outside the window can be drawn).
 */
import type { Db } from "./client";
import { providerOfDb } from "./client";
import { nodeImportWarnings, nodeTimings } from "./cases";
import { traceStartNs } from "../layout/timing";
import type { GraphNodeLite, WindowEdge } from "../layout/types";
import { isFailedStatus } from "../bundle/schema";

/** Largest window one request may ask for (nodes). */
export const MAX_WINDOW_NODES = 2000;

/** A node of a window (no content; `orderIndex` is its row): the inspector's node (lib/layout). */
export type WindowNode = GraphNodeLite;
export type { WindowEdge };

export interface GraphWindow {
  from: number;
  to: number;
  nodes: WindowNode[];
  edges: WindowEdge[];
}

const ph = (pg: boolean, i: number) => (pg ? `$${i}` : "?");

/** Per-process caches keyed by case id (a replaced case gets a new id). */
const lanesCache = new Map<string, Promise<Array<string | null>>>();
const indexCache = new Map<string, Promise<GraphIndex>>();
const zeroCache = new Map<string, Promise<string | null>>();
const CACHE_CASES = 8;
function remember<T>(m: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  const hit = m.get(key);
  if (hit) return hit;
  const p = make();
  p.catch(() => m.delete(key));
  m.set(key, p);
  if (m.size > CACHE_CASES) m.delete(m.keys().next().value as string);
  return p;
}

/**
 * Agents of a case in order of first appearance in the observed order (the inspector's lanes;
 * null = nodes without an agent): Case.lanesJson, else one grouped query; cached per case in
 * this process.
 */
export function getCaseLanes(db: Db, o: { caseId: string }): Promise<Array<string | null>> {
  return remember(lanesCache, o.caseId, async () => {
    // Stored on import (Case.lanesJson); older cases: one grouped query over their nodes.
    const c = await db.case.findUnique({ where: { id: o.caseId }, select: { lanesJson: true } });
    if (c?.lanesJson) return JSON.parse(c.lanesJson) as Array<string | null>;
    const pg = providerOfDb(db) === "postgresql";
    const rows = await db.$queryRawUnsafe<Array<{ agent: string | null; first: number | bigint }>>(
      `SELECT "agent" AS agent, MIN("orderIndex") AS first FROM "Node" WHERE "caseId" = ${ph(pg, 1)} GROUP BY "agent"`,
      o.caseId,
    );
    return rows.sort((a, b) => Number(a.first) - Number(b.first)).map((r) => r.agent);
  });
}

/** Rows read for a windowed case's time origin (see getCaseTimeZero): one block. */
export const TIME_ZERO_ROWS = 200;

/**
 * The time origin of a large case's timeline (start offsets are shown from it): the earliest
 * start, ns since the epoch as a digit string, among the first TIME_ZERO_ROWS nodes of the
 * observed order (reading every node's content of a million-node case is not worth one offset;
 * the observed order starts with the root, whose start is the trace's). null when those nodes
 * carry no start. Cached per case in this process.
 */
export function getCaseTimeZero(db: Db, o: { caseId: string }): Promise<string | null> {
  return remember(zeroCache, o.caseId, async () => traceStartNs([...(await nodeTimings(db, o.caseId, { from: 0, to: TIME_ZERO_ROWS })).values()]));
}

/** The observed-order position of a node, or null when the case has no such node. */
export async function locateNode(db: Db, o: { caseId: string; nodeId: string }): Promise<number | null> {
  const n = await db.node.findUnique({ where: { caseId_nodeId: { caseId: o.caseId, nodeId: o.nodeId } }, select: { orderIndex: true } });
  return n?.orderIndex ?? null;
}

/**
 * Nodes with `from <= orderIndex < to` (at most MAX_WINDOW_NODES), with their timing where the
 * trace has one (the windowed timeline), and every edge touching them.
 * @returns the window, nodes in observed order, edges by bundle index
 */
export async function getGraphWindow(db: Db, o: { caseId: string; from: number; to: number }): Promise<GraphWindow> {
  const from = Math.max(0, Math.floor(o.from));
  const to = Math.min(from + MAX_WINDOW_NODES, Math.max(from, Math.floor(o.to)));
  const pg = providerOfDb(db) === "postgresql";
  const nodes = await db.node.findMany({
    where: { caseId: o.caseId, orderIndex: { gte: from, lt: to } },
    orderBy: { orderIndex: "asc" },
    select: { nodeId: true, type: true, agent: true, label: true, status: true, orderIndex: true },
  });
  const edgeSql = (side: "fromNodeId" | "toNodeId", other: "fromNodeId" | "toNodeId") =>
    // CROSS JOIN fixes SQLite's join order (window nodes -> their edges -> the far ends); without
    // statistics it would start from every edge of the case (13 s for a window of a 1M-node case).
    `SELECT e."idx" AS idx, e."fromNodeId" AS efrom, e."toNodeId" AS eto, e."kind" AS kind,
            n."orderIndex" AS here, n."agent" AS "hereAgent", t."orderIndex" AS there, t."agent" AS "thereAgent"
       FROM "Node" n CROSS JOIN "Edge" e CROSS JOIN "Node" t
      WHERE n."caseId" = ${ph(pg, 1)} AND n."orderIndex" >= ${ph(pg, 2)} AND n."orderIndex" < ${ph(pg, 3)}
        AND e."caseId" = n."caseId" AND e."${side}" = n."nodeId"
        AND t."caseId" = e."caseId" AND t."nodeId" = e."${other}"`;
  type Row = { idx: number | bigint; efrom: string; eto: string; kind: string; here: number | bigint; hereAgent: string | null; there: number | bigint; thereAgent: string | null };
  const [outs, ins, timing, warned] = await Promise.all([
    db.$queryRawUnsafe<Row[]>(edgeSql("fromNodeId", "toNodeId"), o.caseId, from, to),
    db.$queryRawUnsafe<Row[]>(edgeSql("toNodeId", "fromNodeId"), o.caseId, from, to),
    nodeTimings(db, o.caseId, { from, to }),
    nodeImportWarnings(db, o.caseId, { from, to }),
  ]);
  const edges = new Map<number, WindowEdge>();
  for (const r of outs) {
    edges.set(Number(r.idx), { idx: Number(r.idx), from: r.efrom, to: r.eto, kind: r.kind, fromIndex: Number(r.here), toIndex: Number(r.there), fromAgent: r.hereAgent, toAgent: r.thereAgent });
  }
  for (const r of ins) {
    if (edges.has(Number(r.idx))) continue;
    edges.set(Number(r.idx), { idx: Number(r.idx), from: r.efrom, to: r.eto, kind: r.kind, fromIndex: Number(r.there), toIndex: Number(r.here), fromAgent: r.thereAgent, toAgent: r.hereAgent });
  }
  return {
    from,
    to,
    nodes: nodes.map((n) => {
      const t = timing.get(n.nodeId);
      const w = warned.get(n.nodeId);
      return { id: n.nodeId, type: n.type, agent: n.agent, label: n.label, status: n.status, orderIndex: n.orderIndex, ...(t ? { timing: t } : {}), ...(w ? { warnings: w } : {}) };
    }),
    edges: [...edges.values()].sort((a, b) => a.idx - b.idx),
  };
}

/** Node types in the index's type code order (code = position + 1; 0 = other). */
export const INDEX_TYPES = ["agent_action", "llm_call", "tool_call", "tool_result", "message", "final_result"] as const;

/**
 * The compact index of a case: for each node in observed order, its lane (index into
 * getCaseLanes, 255 = beyond the 255th lane) and a flags byte (bits 0–2: type code of
 * INDEX_TYPES, bit 3: failed status). 2 bytes per node: 2 MB for a million.
 */
export interface GraphIndex {
  count: number;
  lanes: Array<string | null>;
  lane: Uint8Array;
  flags: Uint8Array;
}

/** Build (once per case and process, then cached) the compact index of a case. */
export function getGraphIndex(db: Db, o: { caseId: string }): Promise<GraphIndex> {
  return remember(indexCache, o.caseId, async () => {
    const lanes = await getCaseLanes(db, o);
    const laneOf = new Map(lanes.map((a, i) => [a, Math.min(i, 255)]));
    const typeOf = new Map<string, number>(INDEX_TYPES.map((t, i) => [t, i + 1]));
    const pg = providerOfDb(db) === "postgresql";
    const count = await db.node.count({ where: { caseId: o.caseId } });
    const lane = new Uint8Array(count);
    const flags = new Uint8Array(count);
    const STEP = 50_000;
    for (let from = 0; from < count; from += STEP) {
      const rows = await db.$queryRawUnsafe<Array<{ o: number | bigint; a: string | null; t: string; s: string | null }>>(
        `SELECT "orderIndex" AS o, "agent" AS a, "type" AS t, "status" AS s FROM "Node" WHERE "caseId" = ${ph(pg, 1)} AND "orderIndex" >= ${ph(pg, 2)} AND "orderIndex" < ${ph(pg, 3)}`,
        o.caseId,
        from,
        from + STEP,
      );
      for (const r of rows) {
        const i = Number(r.o);
        if (i < 0 || i >= count) continue;
        lane[i] = laneOf.get(r.a) ?? 255;
        flags[i] = (typeOf.get(r.t) ?? 0) | (isFailedStatus(r.s) ? 8 : 0);
      }
    }
    return { count, lanes, lane, flags };
  });
}
