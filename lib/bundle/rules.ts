/**
 * The one rule set of bundle validation (spec §Validation 1–6 plus the nesting limit): every
 * issue either validator reports — `validateBundle` (validate.ts, a bundle in memory) and
 * `validateBundleStream` (stream.ts, a file read element by element) — is built here, so both
 * give the same rule id, JSON path and wording. The validators differ only in how they walk the
 * bundle (maps over the whole object vs typed arrays filled while reading).
 */
import { MAX_JSON_DEPTH } from "./depth";

/** The rule a validation issue breaks (spec numbering in validate.ts). */
export type ValidationRule =
  | "schema"
  | "format"
  | "unique-node-id"
  | "edge-endpoint"
  | "acyclic"
  | "order-complete"
  | "order-linear-extension"
  | "record-seq"
  | "record-node"
  | "record-order"
  | "content-hash"
  | "request-hash"
  | "record-boundary-type"
  | "depth";

export interface ValidationIssue {
  /** JSON path of the fault, e.g. `$.graph.nodes[4].contentHash`. */
  path: string;
  message: string;
  rule: ValidationRule;
  nodeId?: string;
  seq?: number;
}

/** Node types a boundary record may sit on (rule 6); null = any (unknown boundary). */
export function allowedNodeTypes(boundary: unknown): string[] | null {
  return boundary === "llm" ? ["llm_call", "agent_action"] : boundary === "tool" ? ["tool_call", "tool_result"] : null;
}

/** Issue builders, one per violation (rule id in the name's comment). */
export const issues = {
  /** depth: a value nested deeper than MAX_JSON_DEPTH. */
  tooDeep: (path: string, extra: Partial<ValidationIssue> = {}): ValidationIssue => ({
    path,
    rule: "depth",
    message: `nested deeper than ${MAX_JSON_DEPTH} levels (the limit of lib/bundle/README.md §Nesting limit; flatten or truncate this value; other rules were not checked)`,
    ...extra,
  }),
  /** unique-node-id (rule 1). */
  duplicateNodeId: (i: number, id: string, first: number): ValidationIssue => ({
    path: `$.graph.nodes[${i}].id`,
    rule: "unique-node-id",
    nodeId: id,
    message: `duplicate node id "${id}" (first at $.graph.nodes[${first}])`,
  }),
  /** content-hash (rule 5): the content is not JSON. */
  contentNotCanonical: (i: number, nodeId: string | undefined, e: unknown): ValidationIssue => ({
    path: `$.graph.nodes[${i}].content`,
    rule: "content-hash",
    nodeId,
    message: `content cannot be canonicalized: ${(e as Error).message}`,
  }),
  /** content-hash (rule 5): stored and recomputed hashes differ. */
  contentHashMismatch: (i: number, nodeId: string | undefined, id: unknown, stored: unknown, actual: string): ValidationIssue => ({
    path: `$.graph.nodes[${i}].contentHash`,
    rule: "content-hash",
    nodeId,
    message: `contentHash mismatch on node "${String(id)}": stored ${String(stored)}, recomputed ${actual}`,
  }),
  /** edge-endpoint (rule 1). */
  edgeEndpoint: (i: number, end: "from" | "to", id: string): ValidationIssue => ({
    path: `$.graph.edges[${i}].${end}`,
    rule: "edge-endpoint",
    nodeId: id,
    message: `edge ${end} "${id}" is not a node id`,
  }),
  /** acyclic (rule 2). */
  cycle: (c: { nodes: string[]; edge: { from: string; i: number } }): ValidationIssue => ({
    path: `$.graph.edges[${c.edge.i}]`,
    rule: "acyclic",
    nodeId: c.edge.from,
    message: `graph has a cycle: ${c.nodes.join(" -> ")} -> ${c.nodes[0]}`,
  }),
  /** order-complete (rule 3): a non-string entry. */
  orderNotString: (i: number): ValidationIssue => ({ path: `$.order[${i}]`, rule: "order-complete", message: "order entries must be node id strings" }),
  /** order-complete (rule 3): an unknown node. */
  orderUnknownNode: (p: number, id: string): ValidationIssue => ({ path: `$.order[${p}]`, rule: "order-complete", nodeId: id, message: `order names unknown node "${id}"` }),
  /** order-complete (rule 3): a node twice. */
  orderDuplicate: (i: number, id: string, first: number): ValidationIssue => ({
    path: `$.order[${i}]`,
    rule: "order-complete",
    nodeId: id,
    message: `node "${id}" appears more than once in order (first at $.order[${first}])`,
  }),
  /** order-complete (rule 3): a node missing. */
  orderMissingNode: (ni: number, id: string): ValidationIssue => ({ path: `$.graph.nodes[${ni}].id`, rule: "order-complete", nodeId: id, message: `node "${id}" is missing from order` }),
  /** order-linear-extension (rule 3). */
  notLinearExtension: (i: number, from: string, to: string, pf: number, pt: number): ValidationIssue => ({
    path: `$.graph.edges[${i}]`,
    rule: "order-linear-extension",
    nodeId: to,
    message: `order is not a linear extension of the graph: edge ${from} -> ${to} but "${to}" is at $.order[${pt}] before "${from}" at $.order[${pf}]`,
  }),
  /** record-seq (rule 4). */
  recordSeq: (i: number, seq: unknown): ValidationIssue => ({
    path: `$.records[${i}].seq`,
    rule: "record-seq",
    seq: i,
    message: `records[${i}].seq is ${String(seq)}, expected ${i} (sequence must be 0,1,2,... without gaps)`,
  }),
  /** record-node (rule 4). */
  recordNode: (i: number, nodeId: string): ValidationIssue => ({ path: `$.records[${i}].nodeId`, rule: "record-node", nodeId, seq: i, message: `record ${i} names unknown node "${nodeId}"` }),
  /** record-order (rule 4). */
  recordOrder: (i: number, nodeId: string, p: number, lastSeq: number, lastPos: number): ValidationIssue => ({
    path: `$.records[${i}].nodeId`,
    rule: "record-order",
    nodeId,
    seq: i,
    message: `record ${i} sits on "${nodeId}" at $.order[${p}], not after record ${lastSeq}'s node at $.order[${lastPos}]`,
  }),
  /** record-boundary-type (rule 6). */
  recordBoundaryType: (i: number, nodeId: string, boundary: string, allowed: string[], type: string): ValidationIssue => ({
    path: `$.records[${i}].boundary`,
    rule: "record-boundary-type",
    nodeId,
    seq: i,
    message: `a "${boundary}" record must sit on a ${allowed.join(" or ")} node; "${nodeId}" is ${type}`,
  }),
  /** request-hash (rule 5): the request is not JSON. */
  requestNotCanonical: (i: number, e: unknown): ValidationIssue => ({ path: `$.records[${i}].request`, rule: "request-hash", seq: i, message: `request cannot be canonicalized: ${(e as Error).message}` }),
  /** request-hash (rule 5): stored and recomputed hashes differ. */
  requestHashMismatch: (i: number, nodeId: string | undefined, stored: unknown, actual: string): ValidationIssue => ({
    path: `$.records[${i}].requestHash`,
    rule: "request-hash",
    seq: i,
    nodeId,
    message: `requestHash mismatch on record ${i}: stored ${String(stored)}, recomputed ${actual}`,
  }),
};
