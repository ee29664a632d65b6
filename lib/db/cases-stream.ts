/**
 * Storing a case whose bundle is read as a stream (issue 16 item 3): rows are written in
 * batches while the file is read, all inside one transaction (whole or nothing, as
 * `importCase`), so memory stays bounded whatever the bundle's size.
 *
 * The bundle id and hash are known only at the end of the file, so the case row is created
 * under a provisional bundle id and completed last; then the rules of `importCase` apply:
 * same id and hash already stored → the transaction is rolled back, "skipped"; same id,
 * different content, annotated or replayed → rolled back, CaseConflictError; otherwise the old
 * case is deleted and this one takes its id ("replaced").
 */
import { randomUUID } from "node:crypto";
import type { BundleStreamResult, BundleStreamSink, ReplayBundle, ValidationIssue } from "../bundle";
import type { BundleSource, ReferenceLabel } from "../importers/types";
import { canonicalBenchmark } from "../importers/benchmark-name";
import { prepareRowInsert, providerOfDb, rawSqliteOf, type Db } from "./client";
import { CaseConflictError, type ImportStatus } from "./cases";
import { referenceLabelRows } from "./mappers";
import { bundleRowSink, STREAM_COLS, type StreamRowSink } from "./stream-rows";

export { bundleRowSink, STREAM_COLS, type StreamRowSink };
const { node: NODE_COLS, edge: EDGE_COLS, record: RECORD_COLS } = STREAM_COLS;

/** The bundle is invalid: nothing was written. */
export class StreamedBundleInvalidError extends Error {
  constructor(
    readonly issues: ValidationIssue[],
    readonly moreIssues: number,
  ) {
    super(`bundle is invalid (${issues.length + moreIssues} issue${issues.length + moreIssues === 1 ? "" : "s"})`);
    this.name = "StreamedBundleInvalidError";
  }
}

class SkipSignal extends Error {
  constructor(readonly caseId: string) {
    super("same content already stored");
  }
}

type Tx = Pick<Db, "$executeRawUnsafe" | "case" | "referenceLabel" | "auditEvent">;

/** One multi-row INSERT of `rows` (all bound parameters; table and columns are constants). */
async function insertBatch(tx: Tx, pg: boolean, table: string, cols: readonly string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  let n = 0;
  const one = (): string => "(" + cols.map(() => (pg ? `$${++n}` : "?")).join(", ") + ")";
  const tuples: string[] = [];
  const args: unknown[] = [];
  for (const r of rows) {
    tuples.push(one());
    for (const v of r) args.push(v ?? null);
  }
  await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES ${tuples.join(", ")}`, ...args);
}

/**
 * Store one case from a streamed bundle.
 * @param produce reads the file, feeding the sink it is given (lib/bundle `streamBundleFile`),
 *   or feeding finished rows to `rows` (a reader in a worker thread, ./cases-stream-worker.ts);
 *   called once, inside the transaction
 * @param opts.source / opts.referenceLabels as `importCase` (default: the bundle's own `source`
 *   and `referenceLabels` keys, else dataset "bundle" and the file name)
 * @param opts.timeoutMs the transaction's time limit (default 1 h)
 * @returns the case id, what happened, and the stream result (counts, hash)
 * @throws StreamedBundleInvalidError (issues with JSON paths) or CaseConflictError; nothing written
 */
export async function importCaseStream(
  db: Db,
  produce: (sink: BundleStreamSink, rows: StreamRowSink) => Promise<BundleStreamResult>,
  opts: { actorId?: string | null; fileName?: string; timeoutMs?: number; batchRows?: number } = {},
): Promise<{ caseId: string; status: ImportStatus; result: BundleStreamResult }> {
  const pg = providerOfDb(db) === "postgresql";
  const NODE_BATCH = opts.batchRows ?? 500;
  let result: BundleStreamResult | null = null;
  try {
    const out = await db.$transaction(
      async (tx) => {
        // Never seen outside this transaction; no NUL byte (PostgreSQL text refuses 0x00: error 22021).
        const provisionalId = `(importing)/${randomUUID()}`;
        const c = await tx.case.create({
          data: { bundleId: provisionalId, bundleHash: "", headerJson: "{}", sourceDataset: "bundle", taskPrompt: "", nodeCount: 0, edgeCount: 0, recordCount: 0 },
          select: { id: true },
        });
        const caseId = c.id;
        // SQLite: rows go straight to prepared statements on the transaction's own connection
        // (same BEGIN IMMEDIATE ... COMMIT as the Prisma calls around them, so still all or
        // nothing); the multi-row INSERTs through Prisma cost ~3x more CPU per row.
        const dn = prepareRowInsert(db, "Node", NODE_COLS);
        const de = prepareRowInsert(db, "Edge", EDGE_COLS);
        const dr = prepareRowInsert(db, "BoundaryRecord", RECORD_COLS);
        const direct = dn && de && dr ? { node: dn, edge: de, record: dr } : null;
        // First case of a fresh database: the row tables' secondary indexes are dropped now and
        // built again after the bulk insert (one sort instead of a B-tree insert per row), inside
        // this transaction, before anything reads through them.
        let deferred = direct ? deferIndexesIfEmpty(db) : null;
        // Built as soon as the last row is in (rows.end), else after the reader's result.
        const rebuildDeferred = () => {
          deferred?.rebuild();
          deferred = null;
        };
        let nodes: unknown[][] = [];
        let edges: unknown[][] = [];
        let records: unknown[][] = [];
        const flush = async (all: boolean) => {
          while (nodes.length >= NODE_BATCH || (all && nodes.length)) await insertBatch(tx, pg, "Node", NODE_COLS, nodes.splice(0, NODE_BATCH));
          while (edges.length >= 1000 || (all && edges.length)) await insertBatch(tx, pg, "Edge", EDGE_COLS, edges.splice(0, 1000));
          while (records.length >= 200 || (all && records.length)) await insertBatch(tx, pg, "BoundaryRecord", RECORD_COLS, records.splice(0, 200));
        };
        const putNode = direct ? direct.node : (row: unknown[]) => nodes.push(row);
        const putEdge = direct ? direct.edge : (row: unknown[]) => edges.push(row);
        const putRecord = direct ? direct.record : (row: unknown[]) => records.push(row);
        const rows: StreamRowSink = { caseId, node: putNode, edge: putEdge, record: putRecord, drain: () => flush(false), end: direct ? rebuildDeferred : undefined };
        const sink: BundleStreamSink = { ...bundleRowSink(caseId, rows), drain: rows.drain, end: rows.end };
        const res = await produce(sink, rows);
        result = res;
        if (!res.ok || !res.bundleHash) {
          nodes = edges = records = [];
          throw new StreamedBundleInvalidError(res.issues, res.moreIssues);
        }
        await flush(true);
        rebuildDeferred();
        await applyOrderFixes(tx, pg, caseId, res.orderFixes());

        const header = res.header as Record<string, unknown> & Pick<ReplayBundle, "id" | "format" | "task" | "config" | "outcome" | "parent">;
        const existing = await tx.case.findUnique({
          where: { bundleId: header.id },
          select: { id: true, bundleHash: true, _count: { select: { annotations: true, replayRuns: true, assignments: true } } },
        });
        if (existing && existing.bundleHash === res.bundleHash) throw new SkipSignal(existing.id);
        if (existing && (existing._count.annotations > 0 || existing._count.replayRuns > 0 || existing._count.assignments > 0)) throw new CaseConflictError(header.id);
        if (existing) await tx.case.delete({ where: { id: existing.id } });

        const source = (header.source && typeof header.source === "object" ? header.source : { dataset: "bundle", file: opts.fileName ?? null }) as BundleSource;
        const labels = (Array.isArray(header.referenceLabels) ? header.referenceLabels : []) as ReferenceLabel[];
        const seenBenchmarks = await tx.case.findMany({ where: { benchmark: { not: null } }, distinct: ["benchmark"], select: { benchmark: true }, orderBy: { importedAt: "asc" } });
        const benchmark = canonicalBenchmark(header.task.benchmark, seenBenchmarks.map((r) => r.benchmark as string));
        await tx.case.update({
          where: { id: caseId },
          data: {
            bundleId: header.id,
            format: header.format,
            bundleHash: res.bundleHash,
            headerJson: JSON.stringify(header),
            parentBundleId: header.parent?.bundleId ?? null,
            sourceDataset: source?.dataset ?? (header.parent ? "replay" : "bundle"),
            sourceFile: source?.file ?? null,
            sourceSubset: source?.subset ?? null,
            traceSha256: source?.traceSha256 ?? null,
            taskId: header.task.id ?? null,
            taskPrompt: header.task.prompt,
            benchmark,
            mas: header.config.mas ?? null,
            model: header.config.model ?? null,
            outcomePassed: header.outcome?.passed ?? null,
            nodeCount: res.counts.nodes,
            edgeCount: res.counts.edges,
            recordCount: res.counts.records,
            agentCount: res.counts.agents,
            lanesJson: JSON.stringify(res.lanes),
          },
        });
        if (labels.length) {
          await tx.referenceLabel.createMany({
            data: referenceLabelRows(caseId, labels),
          });
        }
        await tx.auditEvent.create({
          data: {
            actorId: opts.actorId ?? null,
            action: existing ? "case.replace" : "case.import",
            entityType: "case",
            entityId: caseId,
            caseId,
            dataJson: JSON.stringify({ bundleId: header.id, bundleHash: res.bundleHash, source, streamed: true }),
          },
        });
        return { caseId, status: (existing ? "replaced" : "imported") as ImportStatus };
      },
      { timeout: opts.timeoutMs ?? 3_600_000, maxWait: 30_000 },
    );
    return { ...out, result: result as unknown as BundleStreamResult };
  } catch (e) {
    if (e instanceof SkipSignal) return { caseId: e.caseId, status: "skipped", result: result as unknown as BundleStreamResult };
    throw e;
  }
}

/**
 * On SQLite, inside a transaction, when the Node, Edge and BoundaryRecord tables hold no row:
 * drop their secondary indexes (the unique and lookup indexes of prisma/schema.prisma, not the
 * primary keys) and return how to create them again, with the same SQL, after the bulk insert.
 * Null when any of the tables has rows (building the index again would then sort them too).
 */
function deferIndexesIfEmpty(db: Db): { rebuild(): void } | null {
  const raw = rawSqliteOf(db) as unknown as { inTransaction: boolean; prepare(sql: string): { run(...p: unknown[]): unknown; all(...p: unknown[]): unknown[] } } | null;
  if (!raw || !raw.inTransaction) return null;
  const empty = raw.prepare(`SELECT (SELECT count(*) FROM (SELECT 1 FROM "Node" LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM "Edge" LIMIT 1)) + (SELECT count(*) FROM (SELECT 1 FROM "BoundaryRecord" LIMIT 1)) AS n`).all() as Array<{ n: number }>;
  // The adapter's connection reads integers as BigInt (safeIntegers): compare as a number.
  if (Number(empty[0]?.n) !== 0) return null;
  const indexes = raw.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('Node', 'Edge', 'BoundaryRecord') AND sql IS NOT NULL ORDER BY name`).all() as Array<{ name: string; sql: string }>;
  for (const i of indexes) raw.prepare(`DROP INDEX "${i.name.replaceAll('"', '""')}"`).run();
  return {
    rebuild() {
      for (const i of indexes) raw.prepare(i.sql).run();
    },
  };
}

/** Set `orderIndex` of the nodes written before their position in `order` was known. */
async function applyOrderFixes(tx: Tx, pg: boolean, caseId: string, fixes: Iterable<[string, number]>): Promise<void> {
  const BATCH = 400;
  let part: Array<[string, number]> = [];
  const run = async () => {
    if (part.length === 0) return;
    let n = 0;
    const p = () => (pg ? `$${++n}` : "?");
    const args: unknown[] = [];
    const cases: string[] = [];
    for (const [id, o] of part) {
      cases.push(`WHEN ${p()} THEN ${pg ? `CAST(${p()} AS INTEGER)` : p()}`);
      args.push(id, o);
    }
    const inList = part.map(([id]) => {
      args.push(id);
      return p();
    });
    args.push(caseId);
    await tx.$executeRawUnsafe(`UPDATE "Node" SET "orderIndex" = CASE "nodeId" ${cases.join(" ")} END WHERE "nodeId" IN (${inList.join(", ")}) AND "caseId" = ${p()}`, ...args);
    part = [];
  };
  for (const f of fixes) {
    part.push(f);
    if (part.length >= BATCH) await run();
  }
  await run();
}
