/**
 * Mapping between replay bundles (lib/bundle types) and database rows, at the lib/db boundary.
 * Round trip is exact: every key of the bundle, nodes, edges and records (unknown ones too)
 * comes back, so an exported bundle re-imports to the same hashes and the same bundleHash.
 */
import type { BoundaryRecord, BundleEdge, BundleNode, ReplayBundle } from "../bundle";
import type { ReferenceLabel } from "../importers/types";

type Obj = Record<string, unknown>;

function omit(o: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}

const json = (v: unknown) => JSON.stringify(v ?? null);

/**
 * Row ids of a case's nodes, edges and records (streamed or not): the case id, a table letter and the row's index in base 36,
 * zero-padded. Unique (case ids are), and increasing within a case, so the primary-key B-trees
 * grow at one end instead of taking random inserts (random ids made SQLite's inserts ~2x slower).
 */
export function caseRowId(caseId: string, table: "n" | "e" | "r", i: number): string {
  return `${caseId}${table}${i.toString(36).padStart(7, "0")}`;
}

/** The case header: the bundle without graph.nodes, graph.edges, order and records. */
export function bundleHeader(b: ReplayBundle): Obj {
  const graphRest = omit(b.graph as Obj, ["nodes", "edges"]);
  return { ...omit(b as Obj, ["graph", "order", "records"]), graph: graphRest };
}

export interface NodeRow {
  nodeId: string;
  idx: number;
  orderIndex: number;
  type: string;
  agent: string | null;
  label: string | null;
  status: string | null;
  errorJson: string | null;
  contentJson: string;
  contentHash: string;
  extraJson: string;
}

/**
 * The Node row of a bundle node.
 * @param known `JSON.stringify` texts of members already computed (`content`), by member name;
 *   the row is the same with or without them
 */
export function nodeToRow(n: BundleNode, idx: number, orderIndex: number, known?: Readonly<Record<string, string | undefined>>): NodeRow {
  return {
    nodeId: n.id,
    idx,
    orderIndex,
    type: n.type,
    agent: n.agent ?? null,
    label: n.label ?? null,
    status: n.status ?? null,
    errorJson: n.error ? JSON.stringify(n.error) : null,
    contentJson: known?.content ?? json(n.content),
    contentHash: n.contentHash,
    extraJson: JSON.stringify(omit(n as Obj, ["id", "type", "content", "contentHash"])),
  };
}

export function rowToNode(r: { nodeId: string; type: string; contentJson: string; contentHash: string; extraJson: string | null }): BundleNode {
  const extra = r.extraJson ? (JSON.parse(r.extraJson) as Obj) : {};
  return { id: r.nodeId, type: r.type, ...extra, content: JSON.parse(r.contentJson), contentHash: r.contentHash } as BundleNode;
}

export function edgeToRow(e: BundleEdge, idx: number) {
  return { idx, fromNodeId: e.from, toNodeId: e.to, kind: e.kind, extraJson: JSON.stringify(omit(e as Obj, ["from", "to", "kind"])) };
}

export function rowToEdge(r: { fromNodeId: string; toNodeId: string; kind: string; extraJson: string | null }): BundleEdge {
  const extra = r.extraJson ? (JSON.parse(r.extraJson) as Obj) : {};
  return { from: r.fromNodeId, to: r.toNodeId, kind: r.kind, ...extra } as BundleEdge;
}

/**
 * The BoundaryRecord row of a record.
 * @param known `JSON.stringify` texts of members already computed (`request`, `response`,
 *   `meta`), by member name; the row is the same with or without them
 */
export function recordToRow(r: BoundaryRecord, known?: Readonly<Record<string, string | undefined>>) {
  return {
    seq: r.seq,
    nodeId: r.nodeId,
    boundary: r.boundary,
    requestJson: known?.request ?? json(r.request),
    requestHash: r.requestHash,
    responseJson: known?.response ?? json(r.response),
    metaJson: r.meta ? (known?.meta ?? JSON.stringify(r.meta)) : null,
    extraJson: JSON.stringify(omit(r as Obj, ["seq", "nodeId", "boundary", "request", "requestHash", "response"])),
  };
}

export function rowToRecord(r: {
  seq: number;
  nodeId: string;
  boundary: string;
  requestJson: string;
  requestHash: string;
  responseJson: string;
  extraJson: string | null;
}): BoundaryRecord {
  const extra = r.extraJson ? (JSON.parse(r.extraJson) as Obj) : {};
  return {
    seq: r.seq,
    nodeId: r.nodeId,
    boundary: r.boundary,
    request: JSON.parse(r.requestJson),
    requestHash: r.requestHash,
    response: JSON.parse(r.responseJson),
    ...extra,
  } as BoundaryRecord;
}

/** Reassemble a bundle from its header and rows (nodes sorted by orderIndex give `order`). */
export function rowsToBundle(
  headerJson: string,
  nodes: Parameters<typeof rowToNode>[0][],
  nodeOrder: Array<{ nodeId: string; orderIndex: number }>,
  edges: Parameters<typeof rowToEdge>[0][],
  records: Parameters<typeof rowToRecord>[0][],
): ReplayBundle {
  const header = JSON.parse(headerJson) as Obj;
  const graphRest = (header.graph as Obj) ?? {};
  const order = [...nodeOrder].sort((a, b) => a.orderIndex - b.orderIndex).map((n) => n.nodeId);
  return {
    ...header,
    graph: { ...graphRest, nodes: nodes.map(rowToNode), edges: edges.map(rowToEdge) },
    order,
    records: records.map(rowToRecord),
  } as ReplayBundle;
}

/** The ReferenceLabel rows of a case's dataset labels, in order (both importers: in memory and streamed). */
export function referenceLabelRows(caseId: string, labels: readonly ReferenceLabel[]) {
  return labels.map((l, idx) => ({
    caseId,
    idx,
    source: l.source,
    annotator: l.annotator,
    nodeId: l.nodeId ?? null,
    agent: l.agent ?? null,
    reason: l.reason ?? null,
    failureModesJson: JSON.stringify(l.failureModes ?? []),
    extraJson: JSON.stringify(l.extra ?? {}),
  }));
}
