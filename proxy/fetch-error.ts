/** Error text of failed upstream calls (the proxy, the tool and MCP gateways). */
/**
 * A failed fetch as one line with its cause: undici says only "fetch failed" and keeps why in
 * `cause` ("connect ECONNREFUSED 127.0.0.1:3999", a DNS error, a timeout).
 */
export function fetchErrorText(e: unknown): string {
  const err = e as Error & { cause?: { message?: unknown; code?: unknown } };
  const cause = err?.cause && typeof err.cause.message === "string" && err.cause.message ? err.cause.message : typeof err?.cause?.code === "string" ? err.cause.code : null;
  const msg = err?.message ?? String(e);
  return cause && !msg.includes(cause) ? `${msg}: ${cause}` : msg;
}
