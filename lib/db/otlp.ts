/**
 * Live OTLP ingest storage (issue 16): received spans are staged as they arrive (one
 * transaction per request, committed before the receiver answers 200), and each trace's
 * assembly state is kept in `OtlpTrace`. The assembler (lib/services/otlp-assembler.ts) turns a
 * trace idle for SYMTRACE_OTLP_IDLE_SECONDS into the case `otlp/<traceId>` and does it again
 * when late spans arrive.
 *
 * Hot path: raw multi-row `INSERT ... ON CONFLICT` (portable SQLite / PostgreSQL; table and
 * column names are constants, every value is a bound parameter), like lib/db/cases.ts.
 */
import { createHash } from "node:crypto";
import type { DecodedSpan } from "../otlp/codec";
import { providerOfDb, type Db } from "./client";
import { touchApiKey } from "./api-keys";

type RawTx = Pick<Db, "$executeRawUnsafe" | "apiKey">;

/** Rows per statement (5 columns x 1,000 = 5,000 bound values: under SQLite's and PostgreSQL's limits). */
const CHUNK = 1000;

async function upsertRows(tx: RawTx, pg: boolean, table: string, cols: readonly string[], rows: unknown[][], conflict: string): Promise<void> {
  const colList = cols.map((c) => `"${c}"`).join(", ");
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    let n = 0;
    const tuples = part.map((r) => "(" + r.map((v) => (v === SQL_TRUE ? "TRUE" : pg ? `$${++n}` : "?")).join(", ") + ")");
    const args: unknown[] = [];
    for (const r of part) for (const v of r) if (v !== SQL_TRUE) args.push(v);
    await tx.$executeRawUnsafe(`INSERT INTO "${table}" (${colList}) VALUES ${tuples.join(", ")} ${conflict}`, ...args);
  }
}

/** Marker for a literal TRUE (booleans are bound differently by the two drivers). */
const SQL_TRUE = Symbol("TRUE");

/**
 * Store one request's accepted spans durably, in one transaction: the spans (a re-sent span
 * replaces its copy), their resource/scope pairs, and each trace's state (pending again, last
 * receipt now). Nothing is written when it throws.
 * @param o.touchKeyId an API key whose lastUsedAt is due (written in the same transaction)
 * @returns spans stored (after de-duplication within the request) and traces touched
 */
export async function storeOtlpSpans(db: Db, spans: DecodedSpan[], o: { touchKeyId?: string | null; nowMs?: number } = {}): Promise<{ spans: number; traces: number }> {
  const now = o.nowMs ?? Date.now();
  const pg = providerOfDb(db) === "postgresql";
  // Resource/scope objects are shared by the spans of one ScopeSpans: hash each pair once.
  const keyOf = new Map<object, Map<object, string>>();
  const resources = new Map<string, [string, string, string]>();
  const bySpan = new Map<string, unknown[]>();
  const traces = new Set<string>();
  for (const s of spans) {
    let inner = keyOf.get(s.resource);
    if (!inner) keyOf.set(s.resource, (inner = new Map()));
    let key = inner.get(s.scope);
    if (!key) {
      const r = JSON.stringify(s.resource);
      const sc = JSON.stringify(s.scope);
      key = createHash("sha256").update(r).update("\u0000").update(sc).digest("hex");
      inner.set(s.scope, key);
      resources.set(key, [key, r, sc]);
    }
    bySpan.set(`${s.traceId}/${s.spanId}`, [s.traceId, s.spanId, key, JSON.stringify(s.span), now]);
    traces.add(s.traceId);
  }
  if (bySpan.size === 0 && !o.touchKeyId) return { spans: 0, traces: 0 };
  await db.$transaction(
    async (tx) => {
      if (resources.size) await upsertRows(tx, pg, "OtlpResource", ["key", "resourceJson", "scopeJson"], [...resources.values()], `ON CONFLICT ("key") DO NOTHING`);
      if (bySpan.size) {
        await upsertRows(
          tx,
          pg,
          "OtlpSpan",
          ["traceId", "spanId", "resourceKey", "spanJson", "receivedMs"],
          [...bySpan.values()],
          `ON CONFLICT ("traceId", "spanId") DO UPDATE SET "resourceKey" = excluded."resourceKey", "spanJson" = excluded."spanJson", "receivedMs" = excluded."receivedMs"`,
        );
        await upsertRows(
          tx,
          pg,
          "OtlpTrace",
          ["traceId", "firstReceivedMs", "lastReceivedMs", "pending"],
          [...traces].map((t) => [t, now, now, SQL_TRUE]),
          `ON CONFLICT ("traceId") DO UPDATE SET "lastReceivedMs" = excluded."lastReceivedMs", "pending" = TRUE`,
        );
      }
      if (o.touchKeyId) await touchApiKey(tx, o.touchKeyId);
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
  return { spans: bySpan.size, traces: traces.size };
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

/**
 * One trace's staged spans as OTLP/JSON text `{"resourceSpans": [...]}` (one ResourceSpans per
 * resource/scope pair, spans sorted by span id so the same spans always give the same text and
 * so the same case hash), built from the stored JSON texts without re-parsing them.
 */
export async function loadOtlpTraceJson(db: Db, traceId: string): Promise<{ json: string; spans: number }> {
  const spans = await db.otlpSpan.findMany({ where: { traceId }, select: { spanId: true, resourceKey: true, spanJson: true }, orderBy: { spanId: "asc" } });
  const keys = [...new Set(spans.map((s) => s.resourceKey))].sort();
  const res = await db.otlpResource.findMany({ where: { key: { in: keys } } });
  const byKey = new Map(res.map((r) => [r.key, r]));
  const blocks = keys.map((k) => {
    const r = byKey.get(k);
    const texts = spans.filter((s) => s.resourceKey === k).map((s) => s.spanJson);
    return `{"resource":${r?.resourceJson ?? "{}"},"scopeSpans":[{"scope":${r?.scopeJson ?? "{}"},"spans":[${texts.join(",")}]}]}`;
  });
  return { json: `{"resourceSpans":[${blocks.join(",")}]}`, spans: spans.length };
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

export interface OtlpTraceState {
  traceId: string;
  /** Spans arrived since the last assembly (the case does not show them yet). */
  pending: boolean;
  /** ISO time of the latest received span. */
  lastReceivedAt: string;
  assembledAt: string | null;
  assembledSpans: number | null;
  receivedSpans: number;
  error: string | null;
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
    receivedSpans,
    error: row.error,
  };
}

/** Counts for the CLI / tests: staged spans and traces, pending traces. */
export async function otlpIngestCounts(db: Db): Promise<{ spans: number; traces: number; pending: number }> {
  const [spans, traces, pending] = await Promise.all([db.otlpSpan.count(), db.otlpTrace.count(), db.otlpTrace.count({ where: { pending: true } })]);
  return { spans, traces, pending };
}
