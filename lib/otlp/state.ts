/** The ingest state of one live OTLP trace as a case page shows it (lib/db getOtlpTraceState adds its id and pruning time). */
export interface OtlpIngestState {
  /** Spans arrived since the last assembly (the case does not show them yet). */
  pending: boolean;
  /** ISO time of the latest received span. */
  lastReceivedAt: string;
  assembledAt: string | null;
  assembledSpans: number | null;
  /** Spans received (staged now plus those deleted by retention). */
  receivedSpans: number;
  error: string | null;
}
