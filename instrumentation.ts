/**
 * Next.js start-up hook: the embedded replay worker runs inside the app's Node process (SQLite
 * default; on PostgreSQL it joins the pg-boss queue beside any `npm run worker` processes).
 * SYMTRACE_EMBEDDED_WORKER=0 turns it off. The OTLP trace assembler (lib/services/otlp-assembler.ts)
 * runs here too (SYMTRACE_OTLP_ASSEMBLER=0 turns it off).
 */
export async function register() {
  // The imports sit inside the runtime check so the edge bundle never includes them (native modules).
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { ensureEmbeddedWorker } = await import("./lib/jobs");
    await ensureEmbeddedWorker().catch((e: unknown) => console.error(`embedded replay worker did not start: ${e instanceof Error ? e.message : String(e)}`));
    const { ensureEmbeddedOtlpAssembler } = await import("./lib/services/otlp-assembler");
    await ensureEmbeddedOtlpAssembler().catch((e: unknown) => console.error(`OTLP assembler did not start: ${e instanceof Error ? e.message : String(e)}`));
  }
}
