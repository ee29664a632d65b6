import type { OtlpIngestState } from "@/lib/otlp/state";

/** The ingest state shown (lib/db getOtlpTraceState). */
export type OtlpTraceStateView = OtlpIngestState;

/**
 * Live OTLP ingest notice on a case page (`otlp/<traceId>` received by the OTLP/HTTP receiver):
 * "trace still open" while spans have arrived since the case was assembled, and why the last
 * assembly stored nothing when it failed. Renders nothing for other cases.
 */
export function OtlpTraceStatus({ state }: { state: OtlpTraceStateView | null }) {
  if (!state) return null;
  const at = (iso: string) => iso.slice(0, 19).replace("T", " ") + " UTC";
  if (state.pending) {
    return (
      <p role="status" data-testid="otlp-open" className="rounded border border-sky-300 bg-sky-50 px-3 py-2 text-sm text-sky-900">
        Trace still open, last span at {at(state.lastReceivedAt)}: {state.receivedSpans} span(s) received, {state.assembledSpans ?? 0} shown. The case is updated once no span has arrived for
        SYMTRACE_OTLP_IDLE_SECONDS (or on `npm run symtrace -- otlp flush`).
      </p>
    );
  }
  if (state.error) {
    return (
      <p role="alert" data-testid="otlp-error" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
        Live trace: the last assembly ({state.assembledAt ? at(state.assembledAt) : "?"}) stored nothing: {state.error}
      </p>
    );
  }
  return null;
}
