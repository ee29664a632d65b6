/**
 * The attribution forms' POST to /api/experiments/attribution: the answer reduced to the run's
 * name, or one line naming what was refused and where ("name: 1–200 letters…", "… (at maxCalls)").
 */

/** What a form needs of the answer. */
export interface PostResult {
  ok: boolean;
  /** The run's name (2xx). */
  run: string | null;
  /** The refusal as one line (null when ok). */
  error: string | null;
}

/** One line for a non-2xx answer: zod field errors, or {error, at}, or the status. */
export function refusalText(status: number, body: Record<string, unknown>): string {
  const fields = Array.isArray(body.fieldErrors) ? (body.fieldErrors as Array<{ field?: string; message?: string }>) : [];
  if (fields.length) return fields.map((f) => `${f.field || "body"}: ${f.message ?? "invalid"}`).join("; ");
  const msg = typeof body.error === "string" ? body.error : `HTTP ${status}`;
  return typeof body.at === "string" && body.at !== "$" ? `${msg} (at ${body.at})` : msg;
}

/** POST `body`; network failures become an error line too. */
export async function postAttribution(body: unknown): Promise<PostResult> {
  try {
    const res = await fetch("/api/experiments/attribution", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const j = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.ok) return { ok: true, run: (j.run as { name?: string } | undefined)?.name ?? null, error: null };
    return { ok: false, run: null, error: refusalText(res.status, j) };
  } catch (e) {
    return { ok: false, run: null, error: e instanceof Error ? e.message : String(e) };
  }
}
