/** The import formats the page offers (`symtrace import --format`), with their names on the page. */
export const IMPORT_FORMAT_CHOICES = [
  ["auto", "Detect per file"],
  ["bundle", "Replay bundle (symtrace.bundle/v1)"],
  ["whowhen", "Who&When"],
  ["mad", "MAST / MAD"],
  ["otel", "OpenTelemetry / Langfuse JSON"],
] as const;
