/**
 * `symtrace apikey create --name <n> | list | revoke <id|prefix>` and
 * `symtrace otlp flush [--trace <traceId>] | status | prune [--retain-seconds <s>]` (live OTLP ingest, issue 16).
 * Each returns `{ code, output }` (output printed as one JSON line by cli/symtrace.ts); exit 2 is
 * bad usage. `apikey create` prints `{"key": "..."}` (with the key's id, name and prefix): the key
 * is shown this once, only its sha256 is stored.
 */
import type { DbHandle } from "../lib/db";

export type Result = { code: number; output: unknown };

export const APIKEY_USAGE = "symtrace apikey create --name <name> | apikey list | apikey revoke <id|prefix>";
export const OTLP_USAGE = "symtrace otlp flush [--trace <traceId>] | otlp status | otlp prune [--retain-seconds <s>]";

const usage = (message: string): Result => ({ code: 2, output: { ok: false, errors: [{ path: "$", message }] } });

/** `apikey ...` against an opened (migrated) database. */
export async function apikeyCommand(args: string[], open: () => Promise<DbHandle>): Promise<Result> {
  const [sub, ...rest] = args;
  const { createApiKey, listApiKeys, revokeApiKey } = await import("../lib/db");
  if (sub === "create") {
    const i = rest.indexOf("--name");
    const name = i >= 0 ? rest[i + 1] : undefined;
    if (!name || name.startsWith("--") || rest.length !== 2) return usage(`usage: ${APIKEY_USAGE}`);
    const { db } = await open();
    try {
      const r = await createApiKey(db, { name });
      return { code: 0, output: { key: r.key, id: r.apiKey.id, name: r.apiKey.name, prefix: r.apiKey.prefix, scopes: r.apiKey.scopes } };
    } catch (e) {
      return { code: 1, output: { ok: false, errors: [{ path: "--name", message: (e as Error).message }] } };
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "list") {
    if (rest.length) return usage(`usage: ${APIKEY_USAGE}`);
    const { db } = await open();
    try {
      return { code: 0, output: { keys: await listApiKeys(db) } };
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "revoke") {
    if (rest.length !== 1) return usage(`usage: ${APIKEY_USAGE}`);
    const { db } = await open();
    try {
      const r = await revokeApiKey(db, { idOrPrefix: rest[0] });
      if (!r) return { code: 1, output: { ok: false, errors: [{ path: "<id|prefix>", message: `no API key "${rest[0]}"` }] } };
      return { code: 0, output: { ok: true, revoked: r } };
    } finally {
      await db.$disconnect();
    }
  }
  return usage(`unknown apikey command "${sub ?? ""}"; usage: ${APIKEY_USAGE}`);
}

/**
 * `otlp flush [--trace <id>]` (assemble every pending trace now), `otlp status` (staging counts,
 * stored body bytes, oldest staged span's age, traces pruned / prunable under the retention) and
 * `otlp prune [--retain-seconds <s>]` (apply retention now: lib/db pruneAssembledOtlpTraces).
 */
export async function otlpCommand(args: string[], open: () => Promise<DbHandle>): Promise<Result> {
  const [sub, ...rest] = args;
  if (sub === "flush") {
    let traceId: string | undefined;
    const i = rest.indexOf("--trace");
    if (i >= 0) {
      traceId = rest[i + 1]?.toLowerCase();
      if (!traceId || !/^[0-9a-f]{32}$/.test(traceId)) return usage("--trace needs a trace id (32 hex digits)");
      rest.splice(i, 2);
    }
    if (rest.length) return usage(`usage: ${OTLP_USAGE}`);
    const { assembleDueOtlpTraces } = await import("../lib/services/otlp-assembler");
    const { db } = await open();
    try {
      const assembled = await assembleDueOtlpTraces(db, { idleMs: 0, traceId, take: 100_000 });
      return { code: assembled.some((a) => a.status === "failed") ? 1 : 0, output: { assembled } };
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "status") {
    if (rest.length) return usage(`usage: ${OTLP_USAGE}`);
    const { otlpStagingReport } = await import("../lib/db");
    const { otlpRetainMs } = await import("../lib/services/otlp-assembler");
    const retainMs = otlpRetainMs();
    const { db } = await open();
    try {
      return { code: 0, output: { ...(await otlpStagingReport(db, { retainMs })), retainSeconds: retainMs / 1000 } };
    } finally {
      await db.$disconnect();
    }
  }
  if (sub === "prune") {
    // retention now (the app's assembler applies it every 10 minutes): --retain-seconds overrides SYMTRACE_OTLP_RETAIN_SECONDS
    let retainMs: number;
    const i = rest.indexOf("--retain-seconds");
    if (i >= 0) {
      const v = Number(rest[i + 1]);
      if (!rest[i + 1] || !Number.isFinite(v) || v <= 0) return usage("--retain-seconds needs a number of seconds > 0");
      retainMs = Math.round(v * 1000);
      rest.splice(i, 2);
    } else {
      const { otlpRetainMs } = await import("../lib/services/otlp-assembler");
      retainMs = otlpRetainMs();
      if (retainMs <= 0) return usage("SYMTRACE_OTLP_RETAIN_SECONDS=0 keeps staged spans forever; pass --retain-seconds <s> to prune anyway");
    }
    if (rest.length) return usage(`usage: ${OTLP_USAGE}`);
    const { pruneAssembledOtlpTraces } = await import("../lib/db");
    const { db } = await open();
    try {
      return { code: 0, output: { pruned: await pruneAssembledOtlpTraces(db, { retainMs, take: 1_000_000 }), retainSeconds: retainMs / 1000 } };
    } finally {
      await db.$disconnect();
    }
  }
  return usage(`unknown otlp command "${sub ?? ""}"; usage: ${OTLP_USAGE}`);
}
