import { apiKeyFromHeaders, getDb, verifyApiKey } from "@/lib/db";
import { assembleDueOtlpTraces } from "@/lib/services/otlp-assembler";
import { viewerForRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

/**
 * POST [?traceId=<32 hex>]: assemble the pending OTLP traces now instead of waiting for
 * SYMTRACE_OTLP_IDLE_SECONDS (all of them, or one). Credential: an API key (Bearer/Basic, scope
 * traces:write) or a signed-in researcher/admin. 200 `{ assembled: [{traceId, bundleId, status,
 * spans, error?}] }`.
 */
export async function POST(req: Request) {
  const db = getDb();
  const key = apiKeyFromHeaders(req.headers);
  if (key) {
    if (!(await verifyApiKey(db, key))) return Response.json({ error: "invalid or revoked API key" }, { status: 401 });
  } else {
    const v = await viewerForRequest(req, "researcher", "admin");
    if (v instanceof Response) return v;
  }
  const traceId = new URL(req.url).searchParams.get("traceId")?.toLowerCase() || undefined;
  if (traceId !== undefined && !/^[0-9a-f]{32}$/.test(traceId)) return Response.json({ error: "traceId: 32 hex digits" }, { status: 400 });
  const assembled = await assembleDueOtlpTraces(db, { idleMs: 0, traceId, take: 10_000 });
  return Response.json({ assembled });
}
