/**
 * The OTLP trace assembler (issue 16 item 1): turns the spans staged by the receiver into the
 * case `otlp/<traceId>` once the trace has been idle for SYMTRACE_OTLP_IDLE_SECONDS (default 30)
 * or on an explicit flush (`POST /api/otel/flush`, `symtrace otlp flush`), and again whenever
 * late spans arrive (the case is replaced while nobody annotated or replayed it, as a file
 * re-import would).
 *
 * Mapping = the OTel file importer's (lib/importers importOtel on the trace's OTLP/JSON), so a
 * live trace and the same spans imported from a file give the same bundle. Runs inside the app
 * (instrumentation.ts → {@link ensureEmbeddedOtlpAssembler}) and in `npm run worker`; several
 * processes share the work through a claim per trace (lib/db claimOtlpTrace).
 */
import {
  CaseConflictError,
  claimOtlpTrace,
  deleteUnusedOtlpBatches,
  finishOtlpAssembly,
  importCase,
  listDueOtlpTraces,
  loadOtlpTrace,
  prunedLateSpansError,
  pruneAssembledOtlpTraces,
  releaseOtlpClaim,
  type Db,
  type OtlpBatchCache,
} from "../db";
import { readEnv, type Env } from "../env";
import { importOtel } from "../importers";

/** The idle time before a trace is assembled, in ms (SYMTRACE_OTLP_IDLE_SECONDS, default 30 s). */
export function otlpIdleMs(env: Env = readEnv()): number {
  return Math.round((env.SYMTRACE_OTLP_IDLE_SECONDS ?? 30) * 1000);
}

/** Default retention of staged spans after assembly: one day (SYMTRACE_OTLP_RETAIN_SECONDS). */
export const DEFAULT_OTLP_RETAIN_SECONDS = 86_400;

/**
 * How long the staged spans of an assembled, idle trace are kept, in ms
 * (SYMTRACE_OTLP_RETAIN_SECONDS, default one day; 0 = keep them forever).
 */
export function otlpRetainMs(env: Env = readEnv()): number {
  return Math.round((env.SYMTRACE_OTLP_RETAIN_SECONDS ?? DEFAULT_OTLP_RETAIN_SECONDS) * 1000);
}

/** The `source.file` of live-ingested cases. */
export const OTLP_LIVE_FILE = "otlp-http";

export interface AssemblyResult {
  traceId: string;
  bundleId: string;
  /** imported / replaced / skipped (same content) as lib/db importCase; failed: nothing stored (see error). */
  status: "imported" | "replaced" | "skipped" | "failed";
  spans: number;
  error?: string;
  /** Spans arrived during the assembly: the trace will be assembled again. */
  stillPending?: boolean;
}

/**
 * Assemble one trace now (it must be claimed by the caller, see {@link assembleDueOtlpTraces}).
 * @returns what happened; never throws for bad span content (status "failed" with the reason)
 */
export async function assembleOtlpTrace(db: Db, traceId: string, cache?: OtlpBatchCache): Promise<Omit<AssemblyResult, "stillPending">> {
  const bundleId = `otlp/${traceId}`;
  // Staged spans deleted by retention: the late spans alone would replace the case with a part of
  // the trace. Keep the case, keep the late spans staged, say so (lib/db pruneAssembledOtlpTraces).
  const pruned = await db.otlpTrace.findUnique({ where: { traceId }, select: { prunedMs: true, prunedSpans: true } });
  if (pruned?.prunedMs != null) {
    const late = await db.otlpSpan.count({ where: { traceId } });
    return { traceId, bundleId, status: "failed", spans: late, error: prunedLateSpansError(pruned.prunedMs, pruned.prunedSpans, late) };
  }
  const { value, spans } = await loadOtlpTrace(db, traceId, cache);
  if (spans === 0) return { traceId, bundleId, status: "failed", spans, error: "no spans stored for this trace" };
  const res = importOtel(JSON.stringify(value), { fileName: OTLP_LIVE_FILE });
  const c = res.cases.find((x) => x.bundle.id === bundleId);
  if (!c) {
    const errs = res.failures.flatMap((f) => f.errors.map((e) => `${e.path}: ${e.message}`));
    return { traceId, bundleId, status: "failed", spans, error: errs.slice(0, 5).join("; ") || "the spans did not map to a case" };
  }
  try {
    const r = await importCase(db, c);
    return { traceId, bundleId, status: r.status, spans };
  } catch (e) {
    if (e instanceof CaseConflictError) {
      return { traceId, bundleId, status: "failed", spans, error: `late spans not merged: the case ${bundleId} already has annotations, assignments or replays` };
    }
    throw e;
  }
}

/**
 * Assemble every due trace: pending and idle for `idleMs` (0 = every pending trace: a flush), or
 * only `traceId`. Each trace is claimed first, so concurrent assemblers never do the same one.
 * @returns one result per trace handled (traces held by another process are left out)
 */
export async function assembleDueOtlpTraces(db: Db, o: { idleMs: number; traceId?: string; take?: number; log?: (line: string) => void }): Promise<AssemblyResult[]> {
  const out: AssemblyResult[] = [];
  const cache: OtlpBatchCache = new Map();
  const due = await listDueOtlpTraces(db, { idleMs: o.idleMs, traceId: o.traceId, take: o.take });
  for (const traceId of due) {
    const claimed = await claimOtlpTrace(db, traceId);
    if (claimed === null) continue;
    try {
      const r = await assembleOtlpTrace(db, traceId, cache);
      const fin = await finishOtlpAssembly(db, traceId, { claimedLastReceivedMs: claimed, assembledSpans: r.status === "failed" ? null : r.spans, error: r.error ?? null });
      out.push({ ...r, stillPending: fin.stillPending });
      o.log?.(`otlp: ${r.bundleId} ${r.status} (${r.spans} spans)${r.error ? `: ${r.error}` : ""}`);
    } catch (e) {
      await releaseOtlpClaim(db, traceId).catch(() => undefined);
      o.log?.(`otlp: ${traceId} assembly failed, will retry: ${(e as Error).message}`);
    }
  }
  return out;
}

export interface OtlpAssemblerHandle {
  stop(): Promise<void>;
  /** Run one pass now (tests). */
  tick(): Promise<AssemblyResult[]>;
}

/**
 * Start the periodic assembler: every `intervalMs` (default: a quarter of the idle time, between
 * 250 ms and 5 s) it assembles the due traces; every 10 minutes it also applies retention
 * (`retainMs`, default SYMTRACE_OTLP_RETAIN_SECONDS: lib/db pruneAssembledOtlpTraces) and deletes
 * unused request bodies.
 */
export function startOtlpAssembler(o: { db: Db; idleMs?: number; retainMs?: number; intervalMs?: number; log?: (line: string) => void }): OtlpAssemblerHandle {
  const idleMs = o.idleMs ?? otlpIdleMs();
  const retainMs = o.retainMs ?? otlpRetainMs();
  const every = o.intervalMs ?? Math.min(5000, Math.max(250, Math.round(idleMs / 4)));
  let running: Promise<AssemblyResult[]> | null = null;
  let stopped = false;
  let lastCleanup = 0;
  const tick = () => {
    if (!running) {
      running = assembleDueOtlpTraces(o.db, { idleMs, log: o.log })
        .then(async (r) => {
          // once every 10 minutes: retention of assembled idle traces' staged spans, then request
          // bodies whose spans were all re-sent later (or pruned)
          if (Date.now() - lastCleanup > 10 * 60_000) {
            lastCleanup = Date.now();
            if (retainMs > 0) {
              const p = await pruneAssembledOtlpTraces(o.db, { retainMs });
              if (p.traces) o.log?.(`otlp: retention deleted ${p.spans} staged spans of ${p.traces} assembled trace(s), ${p.batches} request bodies`);
            }
            await deleteUnusedOtlpBatches(o.db);
          }
          return r;
        })
        .catch((e: unknown) => {
          o.log?.(`otlp assembler: ${(e as Error).message}`);
          return [] as AssemblyResult[];
        })
        .finally(() => {
          running = null;
        });
    }
    return running;
  };
  const timer = setInterval(() => {
    if (!stopped) void tick();
  }, every);
  timer.unref?.();
  return {
    tick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

const globalForAssembler = globalThis as unknown as { __symtraceOtlpAssembler?: OtlpAssemblerHandle };

/**
 * Start the assembler once per server process (SYMTRACE_OTLP_ASSEMBLER=0 turns it off). Called
 * by instrumentation.ts beside the embedded replay worker.
 */
export async function ensureEmbeddedOtlpAssembler(): Promise<void> {
  const env = readEnv();
  if (env.SYMTRACE_OTLP_ASSEMBLER === "0" || globalForAssembler.__symtraceOtlpAssembler) return;
  const { getDb } = await import("../db");
  globalForAssembler.__symtraceOtlpAssembler = startOtlpAssembler({ db: getDb(), idleMs: otlpIdleMs(env), log: (l) => console.log(l) });
}
