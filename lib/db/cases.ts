/**
 * Cases (imported replay bundles): import, list, read, export. All writes of one case happen in
 * one transaction: a case is stored whole or not at all.
 */
import { canonicalJsonOfParsed, hashContent, hashRequest, sha256Tagged, type ReplayBundle } from "../bundle";
import type { BundleSource, ImportedCase, ReferenceLabel } from "../importers/types";
import { canonicalBenchmark } from "../importers/benchmark-name";
import { nodeTimingOf, type NodeTiming } from "../layout/timing";
import { IMPORT_WARNINGS_KEY, nodeImportWarningsOf } from "../layout/warnings";
import { prepareRowInsert, providerOfDb, type Db } from "./client";
import { bundleHeader, caseRowId, edgeToRow, nodeToRow, recordToRow, referenceLabelRows, rowsToBundle } from "./mappers";

export type ImportStatus = "imported" | "skipped" | "replaced";

export class CaseConflictError extends Error {
  constructor(readonly bundleId: string) {
    super(
      `bundle id "${bundleId}" is already stored with different content and has annotations or replays; ` +
        `import it under a new id`,
    );
    this.name = "CaseConflictError";
  }
}

/** sha256 of the bundle's canonical JSON (RFC 8785): the identity of its content. */
export function bundleHash(b: ReplayBundle): string {
  return sha256Tagged(canonicalJsonOfParsed(b));
}

/** Rows per multi-row INSERT (13 node columns x 500 = 6,500 bound values: under SQLite's 32,766 and PostgreSQL's 65,535). */
const CHUNK = 500;
function chunks<T>(xs: T[], n = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}


type RawTx = Pick<Db, "$executeRawUnsafe">;

/**
 * Bulk insert through one parameterized multi-row `INSERT` per chunk. Prisma's `createMany` costs
 * ~0.3 ms of CPU per row (query compiler + argument mapping; `npm run bench`: 1.2 s for the 4,001
 * nodes of a large trace, vs 0.09 s this way). Table and column names are the constants below,
 * never input; every value is a bound parameter. Works on SQLite (`?`) and PostgreSQL (`$n`).
 * Columns not listed must have a database-level default (Prisma-level defaults do not apply).
 */
async function insertRows(db: Db, tx: RawTx, pg: boolean, table: string, cols: readonly string[], rows: Array<Record<string, unknown>>, chunk = CHUNK): Promise<void> {
  // SQLite: prepared one-row INSERTs on the transaction's own connection (see prepareRowInsert).
  const direct = pg ? null : prepareRowInsert(db, table, cols);
  if (direct) {
    for (const r of rows) direct(cols.map((c) => r[c]));
    return;
  }
  const colList = cols.map((c) => `"${c}"`).join(", ");
  for (const part of chunks(rows, chunk)) {
    let n = 0;
    const tuples = part.map(() => "(" + cols.map(() => (pg ? `$${++n}` : "?")).join(", ") + ")");
    const args: unknown[] = [];
    for (const r of part) for (const c of cols) args.push(r[c] ?? null);
    await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${colList}) VALUES ${tuples.join(", ")}`, ...args);
  }
}

const NODE_COLS = ["id", "caseId", "nodeId", "idx", "orderIndex", "type", "agent", "label", "status", "errorJson", "contentJson", "contentHash", "extraJson"] as const;
const EDGE_COLS = ["id", "caseId", "idx", "fromNodeId", "toNodeId", "kind", "extraJson"] as const;
const RECORD_COLS = ["id", "caseId", "seq", "nodeId", "boundary", "requestJson", "requestHash", "responseJson", "metaJson", "extraJson"] as const;

/**
 * Store one imported case (idempotent by bundle id).
 * - same bundle id and same bundleHash: nothing written, status "skipped";
 * - same id, different content, no annotations/replays yet: replaced in place ("replaced");
 * - same id, different content, with annotations or replays: CaseConflictError, nothing written.
 * @returns the case's database id and what happened
 */
export async function importCase(
  db: Db,
  input: Pick<ImportedCase, "bundle"> & Partial<Pick<ImportedCase, "source" | "referenceLabels">>,
  opts: { actorId?: string | null } = {},
): Promise<{ caseId: string; status: ImportStatus }> {
  const b = input.bundle;
  const hash = bundleHash(b);
  const source = (input.source ?? (b as Record<string, unknown>).source ?? null) as BundleSource | null;
  const labels = (input.referenceLabels ?? (b as Record<string, unknown>).referenceLabels ?? []) as ReferenceLabel[];

  const existing = await db.case.findUnique({
    where: { bundleId: b.id },
    select: { id: true, bundleHash: true, _count: { select: { annotations: true, replayRuns: true, assignments: true } } },
  });
  if (existing && existing.bundleHash === hash) return { caseId: existing.id, status: "skipped" };
  if (existing && (existing._count.annotations > 0 || existing._count.replayRuns > 0 || existing._count.assignments > 0)) {
    throw new CaseConflictError(b.id);
  }

  const position = new Map(b.order.map((id, i) => [id, i] as const));
  const agents = new Set(b.graph.nodes.map((n) => n.agent).filter((a): a is string => !!a));
  const agentOf = new Map(b.graph.nodes.map((n) => [n.id, n.agent ?? null] as const));
  const lanes = [...new Set(b.order.map((id) => agentOf.get(id) ?? null))];
  const caseData = {
    bundleId: b.id,
    format: b.format,
    bundleHash: hash,
    headerJson: JSON.stringify(bundleHeader(b)),
    parentBundleId: b.parent?.bundleId ?? null,
    sourceDataset: source?.dataset ?? (b.parent ? "replay" : "bundle"),
    sourceFile: source?.file ?? null,
    sourceSubset: source?.subset ?? null,
    traceSha256: source?.traceSha256 ?? null,
    taskId: b.task.id ?? null,
    taskPrompt: b.task.prompt,
    benchmark: await resolveBenchmark(db, b.task.benchmark),
    mas: b.config.mas ?? null,
    model: b.config.model ?? null,
    outcomePassed: b.outcome?.passed ?? null,
    nodeCount: b.graph.nodes.length,
    edgeCount: b.graph.edges.length,
    recordCount: b.records.length,
    agentCount: agents.size,
    lanesJson: JSON.stringify(lanes),
  };

  const caseId = await db.$transaction(
    async (tx) => {
      if (existing) await tx.case.delete({ where: { id: existing.id } });
      const c = await tx.case.create({ data: caseData, select: { id: true } });
      const pg = isPg(db);
      const nodeRows = b.graph.nodes.map((n, i) => ({ ...nodeToRow(n, i, position.get(n.id) ?? -1), id: caseRowId(c.id, "n", i), caseId: c.id }));
      await insertRows(db, tx, pg, "Node", NODE_COLS, nodeRows);
      const edgeRows = b.graph.edges.map((e, i) => ({ ...edgeToRow(e, i), id: caseRowId(c.id, "e", i), caseId: c.id }));
      await insertRows(db, tx, pg, "Edge", EDGE_COLS, edgeRows);
      const recordRows = b.records.map((r, i) => ({ ...recordToRow(r), id: caseRowId(c.id, "r", i), caseId: c.id }));
      await insertRows(db, tx, pg, "BoundaryRecord", RECORD_COLS, recordRows, 200);
      if (labels.length) {
        await tx.referenceLabel.createMany({
          data: referenceLabelRows(c.id, labels),
        });
      }
      await tx.auditEvent.create({
        data: {
          actorId: opts.actorId ?? null,
          action: existing ? "case.replace" : "case.import",
          entityType: "case",
          entityId: c.id,
          caseId: c.id,
          dataJson: JSON.stringify({ bundleId: b.id, bundleHash: hash, source }),
        },
      });
      return c.id;
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  return { caseId, status: existing ? "replaced" : "imported" };
}

export interface ListCasesOptions {
  benchmark?: string | null;
  mas?: string | null;
  dataset?: string | null;
  /** Case-insensitive search in the task text and bundle id. */
  q?: string | null;
  take?: number;
  skip?: number;
  /** Case ids to leave out (lib/db visibility `hiddenDerivedCaseIds`: derived cases the viewer may not see). */
  exclude?: Iterable<string>;
}

export const caseSummarySelect = {
  id: true,
  bundleId: true,
  sourceDataset: true,
  sourceSubset: true,
  taskPrompt: true,
  benchmark: true,
  mas: true,
  model: true,
  outcomePassed: true,
  nodeCount: true,
  edgeCount: true,
  recordCount: true,
  agentCount: true,
  importedAt: true,
  finalizedAt: true,
  _count: { select: { referenceLabels: true } },
} as const;

/**
 * LIKE treats `%` and `_` as wildcards and Prisma does not escape them on SQLite: search the
 * database for the longest literal fragment, then keep exact (case-insensitive) substring hits.
 */
function literalFragment(q: string): { fragment: string; needsRecheck: boolean } {
  if (!/[%_\\]/.test(q)) return { fragment: q, needsRecheck: false };
  const parts = q.split(/[%_\\]+/).filter(Boolean).sort((a, b) => b.length - a.length);
  return { fragment: parts[0] ?? "", needsRecheck: true };
}

const includesCi = (hay: string | null | undefined, needle: string) => (hay ?? "").toLowerCase().includes(needle.toLowerCase());

/** List cases, sorted by dataset then bundle id, filtered by benchmark / MAS / source dataset and task text. */
export async function listCases(db: Db, o: ListCasesOptions = {}) {
  const where = await caseFilterWhere(db, o);
  const [total, cases] = await Promise.all([
    db.case.count({ where }),
    db.case.findMany({ where, select: caseSummarySelect, orderBy: [{ sourceDataset: "asc" }, { bundleId: "asc" }], take: o.take ?? 200, skip: o.skip ?? 0 }),
  ]);
  return { total, cases };
}

/**
 * The Prisma `where` of the case filters (benchmark, MAS, source dataset, search in task text and
 * bundle id; shared by {@link listCases} and the paginated case list, lib/db/case-list.ts).
 */
export async function caseFilterWhere(db: Db, o: Pick<ListCasesOptions, "benchmark" | "mas" | "dataset" | "q" | "exclude">): Promise<Record<string, unknown>> {
  const q = o.q?.trim();
  const mode = isPg(db) ? { mode: "insensitive" as const } : {};
  const lit = q ? literalFragment(q) : null;
  const benchmark = o.benchmark ? await resolveBenchmark(db, o.benchmark) : null;
  const base = {
    ...(benchmark ? { benchmark } : {}),
    ...(o.mas ? { mas: o.mas } : {}),
    ...(o.dataset ? { sourceDataset: o.dataset } : {}),
    ...(o.exclude ? { id: { notIn: [...o.exclude] } } : {}),
  };
  let where: Record<string, unknown> = {
    ...base,
    ...(lit && lit.fragment ? { OR: [{ taskPrompt: { contains: lit.fragment, ...mode } }, { bundleId: { contains: lit.fragment, ...mode } }] } : {}),
  };
  if (q && lit?.needsRecheck) {
    const candidates = await db.case.findMany({ where, select: { id: true, taskPrompt: true, bundleId: true } });
    where = { id: { in: candidates.filter((c) => includesCi(c.taskPrompt, q) || includesCi(c.bundleId, q)).map((c) => c.id) } };
  }
  return where;
}

function isPg(db: Db): boolean {
  return providerOfDb(db) === "postgresql";
}

/**
 * The canonical form of a benchmark name against what is stored (`canonicalBenchmark`): the
 * published name of a known benchmark, else the stored name with the same key (first seen), else
 * the name trimmed. Applied on import and to the benchmark filter, so "AssistantBench" and
 * "assistantbench" are one stored value, one facet and one filter.
 */
async function resolveBenchmark(db: Db, name: string | null | undefined): Promise<string | null> {
  const fixed = canonicalBenchmark(name);
  if (fixed === null) return null;
  const seen = await db.case.findMany({ where: { benchmark: { not: null } }, distinct: ["benchmark"], select: { benchmark: true }, orderBy: { importedAt: "asc" } });
  return canonicalBenchmark(name, seen.map((r) => r.benchmark as string));
}

/** Distinct values for the case-list filters. */
export async function listCaseFacets(db: Db) {
  const [benchmarks, mas, datasets] = await Promise.all([
    db.case.findMany({ where: { benchmark: { not: null } }, distinct: ["benchmark"], select: { benchmark: true }, orderBy: { benchmark: "asc" } }),
    db.case.findMany({ where: { mas: { not: null } }, distinct: ["mas"], select: { mas: true }, orderBy: { mas: "asc" } }),
    db.case.findMany({ distinct: ["sourceDataset"], select: { sourceDataset: true }, orderBy: { sourceDataset: "asc" } }),
  ]);
  return {
    benchmarks: benchmarks.map((b) => b.benchmark as string),
    mas: mas.map((m) => m.mas as string),
    datasets: datasets.map((d) => d.sourceDataset),
  };
}

/** A case by its bundle id (the stable id used in links), with its header and reference labels. */
export async function getCaseByBundleId(db: Db, o: { bundleId: string }) {
  const c = await db.case.findUnique({
    where: { bundleId: o.bundleId },
    include: { referenceLabels: { orderBy: { idx: "asc" } } },
  });
  if (!c) return null;
  const header = JSON.parse(c.headerJson) as Pick<ReplayBundle, "task" | "config" | "outcome" | "parent"> & Record<string, unknown>;
  return {
    ...c,
    header,
    referenceLabels: c.referenceLabels.map((l) => ({
      ...l,
      failureModes: JSON.parse(l.failureModesJson) as ReferenceLabel["failureModes"],
      extra: JSON.parse(l.extraJson) as Record<string, unknown>,
    })),
  };
}

/**
 * Rebuild the full replay bundle of a case from its rows (exact round trip).
 * @param o.caseId database id, or o.bundleId
 * @returns the bundle, or null when no such case
 */
export async function exportBundle(db: Db, o: { caseId?: string; bundleId?: string }): Promise<ReplayBundle | null> {
  const c = await db.case.findUnique({
    where: o.caseId ? { id: o.caseId } : { bundleId: o.bundleId as string },
    include: {
      nodes: { orderBy: { idx: "asc" } },
      edges: { orderBy: { idx: "asc" } },
      records: { orderBy: { seq: "asc" } },
    },
  });
  if (!c) return null;
  return rowsToBundle(c.headerJson, c.nodes, c.nodes, c.edges, c.records);
}

/** All case ids (for `export --all`). */
export async function listCaseIds(db: Db): Promise<Array<{ id: string; bundleId: string }>> {
  return db.case.findMany({ select: { id: true, bundleId: true }, orderBy: { bundleId: "asc" } });
}

/**
 * One node with its content, whether its contentHash verifies, its boundary records, and its
 * parents and children in G.
 * @returns null when the case has no such node
 */
export async function getNodeDetail(db: Db, o: { caseId: string; nodeId: string }) {
  const node = await db.node.findUnique({ where: { caseId_nodeId: { caseId: o.caseId, nodeId: o.nodeId } } });
  if (!node) return null;
  // No ORDER BY in SQL: without table statistics SQLite would walk the unique (caseId, idx) /
  // (caseId, seq) index to skip the sort, i.e. every edge and record of the case per click (6.8 s
  // at 1M nodes). The node-id indexes give the node's few rows; they are sorted here.
  const [records, parents, children] = await Promise.all([
    db.boundaryRecord.findMany({ where: { caseId: o.caseId, nodeId: o.nodeId } }).then((rs) => rs.sort((a, b) => a.seq - b.seq)),
    db.edge.findMany({ where: { caseId: o.caseId, toNodeId: o.nodeId }, select: { idx: true, fromNodeId: true, kind: true } }).then((es) => es.sort((a, b) => a.idx - b.idx)),
    db.edge.findMany({ where: { caseId: o.caseId, fromNodeId: o.nodeId }, select: { idx: true, toNodeId: true, kind: true } }).then((es) => es.sort((a, b) => a.idx - b.idx)),
  ]);
  const content = JSON.parse(node.contentJson) as unknown;
  return {
    nodeId: node.nodeId,
    orderIndex: node.orderIndex,
    type: node.type,
    agent: node.agent,
    label: node.label,
    status: node.status,
    error: node.errorJson ? (JSON.parse(node.errorJson) as unknown) : null,
    content,
    contentHash: node.contentHash,
    hashVerifies: verifies(() => hashContent(content) === node.contentHash),
    records: records.map((r) => ({
      seq: r.seq,
      boundary: r.boundary,
      request: JSON.parse(r.requestJson) as unknown,
      requestHash: r.requestHash,
      requestHashVerifies: verifies(() => hashRequest(JSON.parse(r.requestJson)) === r.requestHash),
      response: JSON.parse(r.responseJson) as unknown,
      meta: r.metaJson ? (JSON.parse(r.metaJson) as unknown) : null,
    })),
    parents: parents.map((p) => ({ nodeId: p.fromNodeId, kind: p.kind })),
    children: children.map((c) => ({ nodeId: c.toNodeId, kind: c.kind })),
  };
}

/** A hash check that cannot be computed (content past the nesting limit stored by an older version) does not verify. */
function verifies(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/**
 * The graph of a case without node content, for the inspector: nodes in observed order and
 * edges in bundle order.
 */
export async function getCaseGraph(db: Db, o: { caseId: string }) {
  const [nodes, edges] = await Promise.all([
    db.node.findMany({
      where: { caseId: o.caseId },
      orderBy: { orderIndex: "asc" },
      select: { nodeId: true, type: true, agent: true, label: true, status: true, orderIndex: true },
    }),
    db.edge.findMany({ where: { caseId: o.caseId }, orderBy: { idx: "asc" }, select: { fromNodeId: true, toNodeId: true, kind: true } }),
  ]);
  const [timing, warned] = await Promise.all([nodeTimings(db, o.caseId), nodeImportWarnings(db, o.caseId)]);
  return {
    nodes: nodes.map((n) => {
      const t = timing.get(n.nodeId);
      const w = warned.get(n.nodeId);
      return { id: n.nodeId, type: n.type, agent: n.agent, label: n.label, status: n.status, orderIndex: n.orderIndex, ...(t ? { timing: t } : {}), ...(w ? { warnings: w } : {}) };
    }),
    edges: edges.map((e) => ({ from: e.fromNodeId, to: e.toNodeId, kind: e.kind })),
  };
}

/**
 * Start time, duration and tokens of the nodes that carry them (`lib/layout` `nodeTimingOf`), by
 * node id. Only nodes whose stored content mentions `startTime`, `durationNs` or `usage` are read
 * (OTel / Langfuse imports); Who&When and MAD cases cost one indexed query that returns nothing.
 * With `rows_`, only the nodes at observed-order positions [from, to) (a window of a large case).
 */
export async function nodeTimings(db: Db, caseId: string, rows_?: { from: number; to: number }): Promise<Map<string, NodeTiming>> {
  const rows = await db.node.findMany({
    where: {
      caseId,
      ...(rows_ ? { orderIndex: { gte: rows_.from, lt: rows_.to } } : {}),
      OR: [{ contentJson: { contains: '"durationNs"' } }, { contentJson: { contains: '"startTime"' } }, { contentJson: { contains: '"usage"' } }],
    },
    select: { nodeId: true, contentJson: true },
  });
  return readContents(rows, nodeTimingOf);
}

/**
 * Import warnings marked on nodes (`content.importWarnings`, lib/layout `nodeImportWarningsOf`),
 * by node id: the badge on the node in the graph and the timeline (issue 20 item 11). Only nodes
 * whose stored content mentions `importWarnings` are read. With `rows_`, only the nodes at
 * observed-order positions [from, to) (a window of a large case).
 */
export async function nodeImportWarnings(db: Db, caseId: string, rows_?: { from: number; to: number }): Promise<Map<string, string[]>> {
  const rows = await db.node.findMany({
    where: { caseId, ...(rows_ ? { orderIndex: { gte: rows_.from, lt: rows_.to } } : {}), contentJson: { contains: IMPORT_WARNINGS_KEY } },
    select: { nodeId: true, contentJson: true },
  });
  return readContents(rows, nodeImportWarningsOf);
}

/**
 * Text search inside one trace: node ids (in observed order) whose id, agent, label or content
 * contains `q` (case-insensitive for ASCII on SQLite, fully on PostgreSQL).
 * @param o.q at least 1 non-blank character; at most `limit` ids (default 5,000)
 */
export async function searchCaseNodes(db: Db, o: { caseId: string; q: string; limit?: number }): Promise<string[]> {
  return (await searchCaseNodePositions(db, o)).map((r) => r.nodeId);
}

/** Same as {@link searchCaseNodes}, with each match's position in the observed order (the windowed inspector jumps there). */
export async function searchCaseNodePositions(db: Db, o: { caseId: string; q: string; limit?: number }): Promise<Array<{ nodeId: string; orderIndex: number }>> {
  const q = o.q.trim();
  if (!q) return [];
  const mode = isPg(db) ? { mode: "insensitive" as const } : {};
  const lit = literalFragment(q);
  const escaped = JSON.stringify(lit.fragment).slice(1, -1);
  const rows = await db.node.findMany({
    where: {
      caseId: o.caseId,
      OR: [
        { nodeId: { contains: lit.fragment, ...mode } },
        { agent: { contains: lit.fragment, ...mode } },
        { label: { contains: lit.fragment, ...mode } },
        { contentJson: { contains: lit.fragment, ...mode } },
        // content is stored as JSON text: also match the JSON-escaped form of the query
        ...(escaped !== lit.fragment ? [{ contentJson: { contains: escaped, ...mode } }] : []),
      ],
    },
    orderBy: { orderIndex: "asc" },
    select: { nodeId: true, orderIndex: true, agent: true, label: true, contentJson: lit.needsRecheck },
    take: o.limit ?? 5000,
  });
  const escapedQ = JSON.stringify(q).slice(1, -1);
  return rows
    .filter((r) => !lit.needsRecheck || [r.nodeId, r.agent, r.label, r.contentJson].some((h) => includesCi(h as string | null, q) || includesCi(h as string | null, escapedQ)))
    .map((r) => ({ nodeId: r.nodeId, orderIndex: r.orderIndex }));
}

/** A case's database id by bundle id, or null. */
export async function findCaseId(db: Db, o: { bundleId: string }): Promise<string | null> {
  const c = await db.case.findUnique({ where: { bundleId: o.bundleId }, select: { id: true } });
  return c?.id ?? null;
}

/** The dataset's reference labels of a case (callers check blindness first). */
export async function listReferenceLabels(db: Db, o: { caseId: string }) {
  const rows = await db.referenceLabel.findMany({ where: { caseId: o.caseId }, orderBy: { idx: "asc" } });
  return rows.map((l) => ({ ...l, failureModes: JSON.parse(l.failureModesJson) as ReferenceLabel["failureModes"], extra: JSON.parse(l.extraJson) as Record<string, unknown> }));
}

/** A case's bundle hash (sha256 of JCS(bundle)), or null when no such case. */
export async function getCaseBundleHash(db: Db, o: { caseId: string }): Promise<string | null> {
  const c = await db.case.findUnique({ where: { id: o.caseId }, select: { bundleHash: true } });
  return c?.bundleHash ?? null;
}

/** `read(content)` of each stored node content, by node id, where it gives something (unparseable content is skipped). */
function readContents<T>(rows: ReadonlyArray<{ nodeId: string; contentJson: string }>, read: (content: unknown) => T | null | undefined): Map<string, T> {
  const out = new Map<string, T>();
  for (const r of rows) {
    let content: unknown;
    try {
      content = JSON.parse(r.contentJson);
    } catch {
      continue;
    }
    const v = read(content);
    if (v) out.set(r.nodeId, v);
  }
  return out;
}
