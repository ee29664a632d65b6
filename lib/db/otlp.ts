/**
 * Live OTLP ingest storage (issue 16): each accepted request body is stored as received
 * (`OtlpBatch`, protobuf bytes or OTLP/JSON text) with one `OtlpSpan` row per accepted span
 * pointing to it, in one transaction per request committed before the receiver answers 200; each
 * trace's assembly state is kept in `OtlpTrace`. The assembler (lib/services/otlp-assembler.ts)
 * turns a trace idle for SYMTRACE_OTLP_IDLE_SECONDS into the case `otlp/<traceId>` and does it
 * again when late spans arrive.
 *
 * Hot path on SQLite: a dedicated better-sqlite3 connection to the same file (WAL, the same busy
 * timeout, `BEGIN IMMEDIATE`, prepared statements): through Prisma's raw queries the same writes
 * cost ~8x more CPU (60 ms vs 7 ms for 512 spans, measured), which alone would cap the receiver
 * near 8,000 spans/s. On PostgreSQL: Prisma raw multi-row `INSERT ... ON CONFLICT`.
 */
import type { OtlpIngestState } from "../otlp/state";
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { spansOfBody, type DecodedSpan, type SpanKey } from "../otlp/codec";
import { providerOfDb, urlOfDb, type Db } from "./client";
import { busyTimeoutMs, sqliteFilePath } from "./url";

export type OtlpBodyKind = "protobuf" | "json";

/** Rows per statement on PostgreSQL (4 columns x 1,000 = 4,000 bound values). */
const CHUNK = 1000;

interface SqliteWriter {
  store(batch: { id: string; kind: string; body: Buffer; now: number }, keys: SpanKey[], traces: string[]): void;
}

const writers = new Map<string, SqliteWriter>();

/** The better-sqlite3 writer of one SQLite file (one per process and file). */
function sqliteWriter(file: string): SqliteWriter {
  const existing = writers.get(file);
  if (existing) return existing;
  const conn = new Database(file, { timeout: busyTimeoutMs() });
  conn.pragma(`busy_timeout = ${busyTimeoutMs()}`);
  if (String(conn.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") conn.pragma("journal_mode = WAL");
  const insBatch = conn.prepare(`INSERT INTO "OtlpBatch" ("id", "kind", "body", "receivedMs") VALUES (?, ?, ?, ?)`);
  const upSpan = conn.prepare(
    `INSERT INTO "OtlpSpan" ("traceId", "spanId", "batchId", "receivedMs") VALUES (?, ?, ?, ?) ON CONFLICT ("traceId", "spanId") DO UPDATE SET "batchId" = excluded."batchId", "receivedMs" = excluded."receivedMs"`,
  );
  const upTrace = conn.prepare(
    `INSERT INTO "OtlpTrace" ("traceId", "firstReceivedMs", "lastReceivedMs", "pending") VALUES (?, ?, ?, 1) ON CONFLICT ("traceId") DO UPDATE SET "lastReceivedMs" = excluded."lastReceivedMs", "pending" = 1`,
  );
  const tx = conn.transaction((batch: { id: string; kind: string; body: Buffer; now: number }, keys: SpanKey[], traces: string[]) => {
    insBatch.run(batch.id, batch.kind, batch.body, batch.now);
    for (const k of keys) upSpan.run(k.traceId, k.spanId, batch.id, batch.now);
    for (const t of traces) upTrace.run(t, batch.now, batch.now);
  });
  const w: SqliteWriter = { store: (batch, keys, traces) => tx.immediate(batch, keys, traces) };
  writers.set(file, w);
  return w;
}

/**
 * Store one request durably, in one transaction: its body (as received, decompressed), one
 * span row per accepted span (a re-sent span now points to this batch) and each trace's state
 * (pending again, last receipt now). Nothing is written when it throws, or when no span was
 * accepted.
 * @param body the decompressed request body (protobuf bytes or OTLP/JSON UTF-8 text)
 * @param keys accepted spans (lib/otlp indexProtobufRequest / indexJsonRequest)
 * @returns spans stored (after de-duplication within the request) and traces touched
 */
export async function storeOtlpBatch(db: Db, o: { kind: OtlpBodyKind; body: Buffer; keys: SpanKey[]; nowMs?: number }): Promise<{ spans: number; traces: number }> {
  const now = o.nowMs ?? Date.now();
  const unique = new Map<string, SpanKey>();
  for (const k of o.keys) unique.set(`${k.traceId}/${k.spanId}`, k);
  if (unique.size === 0) return { spans: 0, traces: 0 };
  const keys = [...unique.values()];
  const traces = [...new Set(keys.map((k) => k.traceId))];
  const batch = { id: randomUUID(), kind: o.kind, body: o.body, now };
  const url = urlOfDb(db);
  const pg = providerOfDb(db) === "postgresql";
  if (!pg && url) {
    sqliteWriter(sqliteFilePath(url)).store(batch, keys, traces);
    return { spans: keys.length, traces: traces.length };
  }
  // PostgreSQL (or a SQLite client not made by openDb: the same statements through Prisma)
  const ph = (n: number) => (pg ? `$${n}` : "?");
  await db.$transaction(
    async (tx) => {
      await tx.otlpBatch.create({ data: { id: batch.id, kind: batch.kind, body: new Uint8Array(batch.body), receivedMs: BigInt(now) } });
      for (let i = 0; i < keys.length; i += CHUNK) {
        const part = keys.slice(i, i + CHUNK);
        let n = 0;
        const tuples = part.map(() => `(${ph(++n)}, ${ph(++n)}, ${ph(++n)}, ${ph(++n)})`);
        await tx.$executeRawUnsafe(
          `INSERT INTO "OtlpSpan" ("traceId", "spanId", "batchId", "receivedMs") VALUES ${tuples.join(", ")} ON CONFLICT ("traceId", "spanId") DO UPDATE SET "batchId" = excluded."batchId", "receivedMs" = excluded."receivedMs"`,
          ...part.flatMap((k) => [k.traceId, k.spanId, batch.id, now]),
        );
      }
      let n = 0;
      const tuples = traces.map(() => `(${ph(++n)}, ${ph(++n)}, ${ph(++n)}, TRUE)`);
      await tx.$executeRawUnsafe(
        `INSERT INTO "OtlpTrace" ("traceId", "firstReceivedMs", "lastReceivedMs", "pending") VALUES ${tuples.join(", ")} ON CONFLICT ("traceId") DO UPDATE SET "lastReceivedMs" = excluded."lastReceivedMs", "pending" = TRUE`,
        ...traces.flatMap((t) => [t, now, now]),
      );
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
  return { spans: keys.length, traces: traces.length };
}

/**
 * Delete stored request bodies none of whose spans is current any more (every span re-sent in a
 * later batch), received more than `olderThanMs` ago.
 * @returns how many were deleted
 */
export async function deleteUnusedOtlpBatches(db: Db, o: { olderThanMs?: number; nowMs?: number } = {}): Promise<number> {
  const before = (o.nowMs ?? Date.now()) - (o.olderThanMs ?? 10 * 60_000);
  return db.$executeRawUnsafe(
    `DELETE FROM "OtlpBatch" WHERE "receivedMs" < ${Math.floor(before)} AND NOT EXISTS (SELECT 1 FROM "OtlpSpan" s WHERE s."batchId" = "OtlpBatch"."id")`,
  );
}

/**
 * Traces ready for assembly: pending, not held by another assembler, and idle for `idleMs`
 * (every pending trace when `idleMs` is 0, i.e. a flush), oldest first.
 */
export async function listDueOtlpTraces(db: Db, o: { idleMs: number; nowMs?: number; traceId?: string; take?: number }): Promise<string[]> {
  const now = o.nowMs ?? Date.now();
  const rows = await db.otlpTrace.findMany({
    where: {
      pending: true,
      ...(o.traceId ? { traceId: o.traceId } : {}),
      lastReceivedMs: { lte: BigInt(now - o.idleMs) },
      OR: [{ claimedUntilMs: null }, { claimedUntilMs: { lt: BigInt(now) } }],
    },
    orderBy: { lastReceivedMs: "asc" },
    select: { traceId: true },
    take: o.take ?? 100,
  });
  return rows.map((r) => r.traceId);
}

/**
 * Hold a pending trace for `ttlMs` (a conditional update: of several processes, one wins).
 * @returns the trace's lastReceivedMs at claim time, or null when another process holds it or it is not pending
 */
export async function claimOtlpTrace(db: Db, traceId: string, o: { ttlMs?: number; nowMs?: number } = {}): Promise<bigint | null> {
  const now = o.nowMs ?? Date.now();
  const row = await db.otlpTrace.findUnique({ where: { traceId }, select: { lastReceivedMs: true } });
  if (!row) return null;
  const r = await db.otlpTrace.updateMany({
    where: { traceId, pending: true, OR: [{ claimedUntilMs: null }, { claimedUntilMs: { lt: BigInt(now) } }] },
    data: { claimedUntilMs: BigInt(now + (o.ttlMs ?? 120_000)) },
  });
  return r.count === 1 ? row.lastReceivedMs : null;
}

/** A cache of decoded batch bodies for one assembler pass (several traces share a batch). */
export type OtlpBatchCache = Map<string, DecodedSpan[]>;

/**
 * One trace's current spans as OTLP/JSON `{resourceSpans: [...]}` (one ResourceSpans per
 * resource/scope pair, spans sorted by span id, so the same spans always give the same text and
 * so the same case hash), read back from the stored request bodies.
 * @param cache decoded bodies shared by the traces of one assembler pass (at most 64 kept)
 */
export async function loadOtlpTrace(db: Db, traceId: string, cache: OtlpBatchCache = new Map()): Promise<{ value: { resourceSpans: unknown[] }; spans: number }> {
  const rows = await db.otlpSpan.findMany({ where: { traceId }, select: { spanId: true, batchId: true } });
  const want = new Map<string, Set<string>>();
  for (const r of rows) {
    let set = want.get(r.batchId);
    if (!set) want.set(r.batchId, (set = new Set()));
    set.add(r.spanId);
  }
  const picked: DecodedSpan[] = [];
  for (const [batchId, ids] of want) {
    let spans = cache.get(batchId);
    if (!spans) {
      const b = await db.otlpBatch.findUnique({ where: { id: batchId } });
      if (!b) continue;
      spans = spansOfBody(b.kind as OtlpBodyKind, b.body);
      if (cache.size >= 64) cache.delete(cache.keys().next().value as string);
      cache.set(batchId, spans);
    }
    for (const s of spans) if (s.traceId === traceId && ids.has(s.spanId)) picked.push(s);
  }
  picked.sort((a, b) => (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0));
  // group by resource + scope (as JSON text), in the order of their first span
  const groups = new Map<string, { resource: unknown; scope: unknown; spans: unknown[] }>();
  const seen = new Set<string>();
  for (const s of picked) {
    if (seen.has(s.spanId)) continue;
    seen.add(s.spanId);
    const k = JSON.stringify([s.resource, s.scope]);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { resource: s.resource, scope: s.scope, spans: [] }));
    g.spans.push(s.span);
  }
  return { value: { resourceSpans: [...groups.values()].map((g) => ({ resource: g.resource, scopeSpans: [{ scope: g.scope, spans: g.spans }] })) }, spans: seen.size };
}

/**
 * Record an assembly. When no span arrived since the claim (`lastReceivedMs` unchanged) the
 * trace is no longer pending; otherwise it stays pending (assembled again once idle). Releases
 * the claim either way.
 */
export async function finishOtlpAssembly(db: Db, traceId: string, o: { claimedLastReceivedMs: bigint; assembledSpans: number | null; error: string | null; nowMs?: number }): Promise<{ stillPending: boolean }> {
  const now = BigInt(o.nowMs ?? Date.now());
  const done = await db.otlpTrace.updateMany({
    where: { traceId, lastReceivedMs: o.claimedLastReceivedMs },
    data: { pending: false, claimedUntilMs: null, assembledMs: now, assembledSpans: o.assembledSpans, error: o.error },
  });
  if (done.count === 1) return { stillPending: false };
  await db.otlpTrace.updateMany({ where: { traceId }, data: { claimedUntilMs: null, assembledMs: now, assembledSpans: o.assembledSpans, error: o.error } });
  return { stillPending: true };
}

/** Release a claim without recording anything (an unexpected failure: retried on the next tick). */
export async function releaseOtlpClaim(db: Db, traceId: string): Promise<void> {
  await db.otlpTrace.updateMany({ where: { traceId }, data: { claimedUntilMs: null } });
}

export interface OtlpTraceState extends OtlpIngestState {
  traceId: string;
  /** ISO time the staged spans were deleted by retention, or null. */
  prunedAt: string | null;
}

/** The ingest state of the trace behind bundle id `otlp/<traceId>`, or null (not a live trace). */
export async function getOtlpTraceState(db: Db, bundleId: string): Promise<OtlpTraceState | null> {
  const m = /^otlp\/([0-9a-f]{32})$/.exec(bundleId);
  if (!m) return null;
  const row = await db.otlpTrace.findUnique({ where: { traceId: m[1] } });
  if (!row) return null;
  const receivedSpans = await db.otlpSpan.count({ where: { traceId: m[1] } });
  return {
    traceId: row.traceId,
    pending: row.pending,
    lastReceivedAt: new Date(Number(row.lastReceivedMs)).toISOString(),
    assembledAt: row.assembledMs === null ? null : new Date(Number(row.assembledMs)).toISOString(),
    assembledSpans: row.assembledSpans,
    receivedSpans: receivedSpans + (row.prunedSpans ?? 0),
    error: row.error,
    prunedAt: row.prunedMs === null ? null : new Date(Number(row.prunedMs)).toISOString(),
  };
}

/** Counts for the CLI / tests: staged spans, stored request bodies, traces, pending traces. */
export async function otlpIngestCounts(db: Db): Promise<{ spans: number; batches: number; traces: number; pending: number }> {
  const [spans, batches, traces, pending] = await Promise.all([db.otlpSpan.count(), db.otlpBatch.count(), db.otlpTrace.count(), db.otlpTrace.count({ where: { pending: true } })]);
  return { spans, batches, traces, pending };
}

/** Why a late span cannot be merged into a trace whose staged spans were pruned (the trace's `error`). */
export function prunedLateSpansError(prunedMs: bigint, prunedSpans: number | null, late: number): string {
  return (
    `${late} span(s) arrived after the staged spans of this trace were deleted by retention at ${new Date(Number(prunedMs)).toISOString()} ` +
    `(SYMTRACE_OTLP_RETAIN_SECONDS): not merged; the case keeps the ${prunedSpans ?? "?"} spans assembled before, the late spans stay staged`
  );
}

/**
 * Retention of staged spans (issue 16): delete the `OtlpSpan` rows of every trace whose case is
 * assembled and that has been idle (no span received, not assembled) for `retainMs`, then the
 * request bodies none of whose spans is left. A trace qualifies when it is not pending, not held
 * by an assembler, its last assembly stored the case (no `error`) and both its last receipt and
 * its last assembly are older than `retainMs`. Per trace, one transaction: the trace is marked
 * (`prunedMs`, `prunedSpans`) only if no span arrived since it was read (`lastReceivedMs`
 * unchanged, still not pending), and only spans received up to then are deleted, so a span
 * acknowledged concurrently is never lost.
 *
 * A span arriving after pruning is stored and acknowledged as always and makes the trace pending;
 * the assembler then does not rebuild the case from the late spans alone (that would drop the
 * pruned ones): it records {@link prunedLateSpansError} on the trace and keeps the case as it was.
 * @param retainMs idle time in ms (> 0)
 * @returns traces pruned, spans and request bodies deleted
 */
export async function pruneAssembledOtlpTraces(db: Db, o: { retainMs: number; nowMs?: number; take?: number }): Promise<{ traces: number; spans: number; batches: number }> {
  if (!(o.retainMs > 0)) throw new Error(`pruneAssembledOtlpTraces: retainMs must be > 0 (got ${o.retainMs})`);
  const now = o.nowMs ?? Date.now();
  const cutoff = BigInt(Math.floor(now - o.retainMs));
  const due = await db.otlpTrace.findMany({
    where: {
      pending: false,
      error: null,
      prunedMs: null,
      lastReceivedMs: { lte: cutoff },
      assembledMs: { lte: cutoff },
      OR: [{ claimedUntilMs: null }, { claimedUntilMs: { lt: BigInt(now) } }],
    },
    orderBy: { lastReceivedMs: "asc" },
    select: { traceId: true, lastReceivedMs: true },
    take: o.take ?? 1000,
  });
  let traces = 0;
  let spans = 0;
  for (const t of due) {
    const n = await db.$transaction(async (tx) => {
      const count = await tx.otlpSpan.count({ where: { traceId: t.traceId, receivedMs: { lte: t.lastReceivedMs } } });
      const marked = await tx.otlpTrace.updateMany({
        where: { traceId: t.traceId, pending: false, prunedMs: null, lastReceivedMs: t.lastReceivedMs },
        data: { prunedMs: BigInt(now), prunedSpans: count },
      });
      if (marked.count !== 1) return null;
      const del = await tx.otlpSpan.deleteMany({ where: { traceId: t.traceId, receivedMs: { lte: t.lastReceivedMs } } });
      return del.count;
    });
    if (n === null) continue;
    traces++;
    spans += n;
  }
  const batches = traces > 0 ? await deleteUnusedOtlpBatches(db, { olderThanMs: o.retainMs, nowMs: now }) : 0;
  return { traces, spans, batches };
}

/** Staging size and age, for `symtrace otlp status`. */
export interface OtlpStagingReport {
  spans: number;
  batches: number;
  traces: number;
  pending: number;
  /** Bytes of stored request bodies (as received, decompressed). */
  bodyBytes: number;
  /** Receipt time (ISO) of the oldest staged span, or null when none. */
  oldestSpanAt: string | null;
  /** Age of the oldest staged span in seconds (at `nowMs`), or null. */
  oldestSpanAgeSeconds: number | null;
  /** Traces whose staged spans were deleted by retention. */
  prunedTraces: number;
  /** Traces that qualify for retention now (see pruneAssembledOtlpTraces), given `retainMs`. */
  prunableTraces: number | null;
  /** Traces with spans that arrived after pruning (not merged). */
  lateAfterPrune: number;
}

/**
 * The staging report: counts (as otlpIngestCounts), stored body bytes, the oldest staged span's
 * receipt time and age, traces pruned, prunable now (`retainMs` > 0) and with late spans after pruning.
 */
export async function otlpStagingReport(db: Db, o: { retainMs: number; nowMs?: number }): Promise<OtlpStagingReport> {
  const now = o.nowMs ?? Date.now();
  const pg = providerOfDb(db) === "postgresql";
  const cutoff = BigInt(Math.floor(now - o.retainMs));
  const [counts, bytes, oldest, prunedTraces, prunable, lateAfterPrune] = await Promise.all([
    otlpIngestCounts(db),
    db.$queryRawUnsafe<Array<{ n: number | bigint | string | null }>>(`SELECT SUM(${pg ? "octet_length" : "length"}("body")) AS n FROM "OtlpBatch"`),
    db.otlpSpan.aggregate({ _min: { receivedMs: true } }),
    db.otlpTrace.count({ where: { prunedMs: { not: null } } }),
    o.retainMs > 0
      ? db.otlpTrace.count({ where: { pending: false, error: null, prunedMs: null, lastReceivedMs: { lte: cutoff }, assembledMs: { lte: cutoff } } })
      : Promise.resolve(null),
    db.otlpTrace.count({ where: { prunedMs: { not: null }, error: { not: null } } }),
  ]);
  const min = oldest._min.receivedMs;
  return {
    ...counts,
    bodyBytes: Number(bytes[0]?.n ?? 0),
    oldestSpanAt: min === null ? null : new Date(Number(min)).toISOString(),
    oldestSpanAgeSeconds: min === null ? null : Math.max(0, Math.round((now - Number(min)) / 1000)),
    prunedTraces,
    prunableTraces: prunable,
    lateAfterPrune,
  };
}
