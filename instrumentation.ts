/**
 * Next.js start-up hook: the embedded workers of every job kind (replay runs, experiment attempts,
 * repair searches; lib/jobs/kinds.ts) run inside the app's Node process from boot, so work queued
 * before a restart is resumed at once (SQLite default; on PostgreSQL they join the pg-boss queues
 * beside any `npm run worker` processes).
 * SYMTRACE_EMBEDDED_WORKER=0 turns it off. The OTLP trace assembler (lib/services/otlp-assembler.ts)
 * runs here too (SYMTRACE_OTLP_ASSEMBLER=0 turns it off).
 */
export async function register() {
  // The imports sit inside the runtime check so the edge bundle never includes them (native modules).
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { ensureEmbeddedWorkers } = await import("./lib/jobs");
    await ensureEmbeddedWorkers().catch((e: unknown) => console.error(`embedded workers did not start: ${e instanceof Error ? e.message : String(e)}`));
    const { ensureEmbeddedOtlpAssembler } = await import("./lib/services/otlp-assembler");
    await ensureEmbeddedOtlpAssembler().catch((e: unknown) => console.error(`OTLP assembler did not start: ${e instanceof Error ? e.message : String(e)}`));
  }
}
