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

/**
 * Rows of one table packed for the hop from the reader's worker thread to the inserting thread
 * (structured clone of row arrays cost the worker ~1 CPU-s per 100k nodes, and its garbage
 * collector more): every string cell of every row joined into one text, and per cell a code in
 * `cells` (the string's length in UTF-16 units; -1 null; -2 a number, the next of `nums`).
 */
export interface PackedRows {
  /** Cells per row. */
  width: number;
  /** The string cells, concatenated in row order. */
  text: string;
  cells: Int32Array<ArrayBuffer>;
  nums: Float64Array<ArrayBuffer>;
}

/** Builds one {@link PackedRows} from rows added one by one. */
export class RowPacker {
  private parts: string[] = [];
  private cells: number[] = [];
  private nums: number[] = [];
  private width = -1;

  /** Rows added since the last {@link take}. */
  get count(): number {
    return this.width > 0 ? this.cells.length / this.width : 0;
  }

  /**
   * Add one row (all rows of a packer have the same width).
   * @throws TypeError for a cell that is not a string, a number, null or undefined (stored as null), or a row of another width
   */
  add(row: readonly unknown[]): void {
    if (this.width < 0) this.width = row.length;
    else if (row.length !== this.width) throw new TypeError(`row of ${row.length} cells where ${this.width} were packed`);
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (typeof v === "string") {
        this.parts.push(v);
        this.cells.push(v.length);
      } else if (v === null || v === undefined) this.cells.push(-1);
      else if (typeof v === "number") {
        this.cells.push(-2);
        this.nums.push(v);
      } else throw new TypeError(`a row cell of type ${typeof v} cannot be packed`);
    }
  }

  /** The rows added so far, packed (null when none), and a fresh start. */
  take(): PackedRows | null {
    if (this.cells.length === 0) return null;
    const p: PackedRows = { width: this.width, text: this.parts.join(""), cells: Int32Array.from(this.cells), nums: Float64Array.from(this.nums) };
    this.parts = [];
    this.cells = [];
    this.nums = [];
    return p;
  }
}

/**
 * Hand each row of `p` to `each`, in the order they were added: a new array per row, string
 * cells as slices of `p.text`, null cells as null.
 * @returns the number of rows
 */
export function unpackRows(p: PackedRows, each: (row: unknown[]) => void): number {
  const { width, text, cells, nums } = p;
  let at = 0;
  let num = 0;
  let rows = 0;
  for (let i = 0; i < cells.length; rows++) {
    const row: unknown[] = new Array(width);
    for (let j = 0; j < width; j++) {
      const c = cells[i++];
      if (c >= 0) {
        row[j] = text.slice(at, at + c);
        at += c;
      } else row[j] = c === -1 ? null : nums[num++];
    }
    each(row);
  }
  return rows;
}
