/**
 * The rows of a streamed case (issue 16 item 3): the column order of each row array and the
 * mapping from a bundle's nodes, edges and records to them (lib/db/mappers, the same rows
 * `importCase` stores). Pure: no database client, so the reader's worker thread
 * (./stream-reader-worker.ts) loads only this and lib/bundle (the Prisma clients took ~1.5 s
 * to load there).
 */
import type { BoundaryRecord, BundleEdge, BundleNode, BundleStreamSink } from "../bundle";
import { caseRowId as rowId, edgeToRow, nodeToRow, recordToRow } from "./mappers";

const NODE_COLS = ["id", "caseId", "nodeId", "idx", "orderIndex", "type", "agent", "label", "status", "errorJson", "contentJson", "contentHash", "extraJson"] as const;
const EDGE_COLS = ["id", "caseId", "idx", "fromNodeId", "toNodeId", "kind", "extraJson"] as const;
const RECORD_COLS = ["id", "caseId", "seq", "nodeId", "boundary", "requestJson", "requestHash", "responseJson", "metaJson", "extraJson"] as const;

/** Where the rows of a streamed case go: one array per row, columns as NODE_COLS / EDGE_COLS / RECORD_COLS. */
export interface StreamRowSink {
  /** The case row's id (the first two columns of every row are the row id and this). */
  caseId: string;
  node(row: unknown[]): void;
  edge(row: unknown[]): void;
  record(row: unknown[]): void;
  /** Write the batches that are full (PostgreSQL; a no-op when rows go straight to SQLite). */
  drain(): Promise<void>;
  /**
   * Every row has been given (the reader still runs its final checks and the bundle hash):
   * SQLite builds the row indexes deferred for the bulk insert now, overlapping that work.
   */
  end?(): void;
}

/** Column names of the streamed rows (the order of each row array). */
export const STREAM_COLS = { node: NODE_COLS, edge: EDGE_COLS, record: RECORD_COLS } as const;

/**
 * A lib/bundle stream sink that maps each node, edge and record to its database row (the same
 * row `importCase` stores) and hands it to `rows`. Pure mapping: usable in a worker thread.
 * @param caseId the case row's id (row ids derive from it)
 */
export function bundleRowSink(caseId: string, rows: Pick<StreamRowSink, "node" | "edge" | "record">): BundleStreamSink {
  return {
    node(n, idx, orderIndex, known) {
      const r = nodeToRow(n as BundleNode, idx, orderIndex, known);
      rows.node([rowId(caseId, "n", idx), caseId, r.nodeId, r.idx, r.orderIndex, r.type, r.agent, r.label, r.status, r.errorJson, r.contentJson, r.contentHash, r.extraJson]);
    },
    edge(e, idx) {
      const r = edgeToRow(e as BundleEdge, idx);
      rows.edge([rowId(caseId, "e", idx), caseId, r.idx, r.fromNodeId, r.toNodeId, r.kind, r.extraJson]);
    },
    record(rec, seq, known) {
      const r = recordToRow(rec as BoundaryRecord, known);
      rows.record([rowId(caseId, "r", seq), caseId, r.seq, r.nodeId, r.boundary, r.requestJson, r.requestHash, r.responseJson, r.metaJson, r.extraJson]);
    },
  };
}
