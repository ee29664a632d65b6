/**
 * Next.js start-up hook: the embedded replay worker runs inside the app's Node process (SQLite
 * default; on PostgreSQL it joins the pg-boss queue beside any `npm run worker` processes).
 * SYMTRACE_EMBEDDED_WORKER=0 turns it off.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { ensureEmbeddedWorker } = await import("./lib/jobs");
  await ensureEmbeddedWorker().catch((e: unknown) => console.error(`embedded replay worker did not start: ${e instanceof Error ? e.message : String(e)}`));
}
