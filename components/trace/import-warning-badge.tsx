/**
 * "⚠ 2" on a node whose import was repaired (issue 20 item 11): the importer's markers
 * (`content.importWarnings`: clock skew, not ended, parent not in trace, span tree depth, ...) in
 * its title and accessible name. Plain text, never HTML.
 */
export function ImportWarningBadge({ warnings }: { warnings: string[] | undefined }) {
  if (!warnings || warnings.length === 0) return null;
  const text = warnings.join("; ");
  return (
    <span
      className="shrink-0 rounded bg-amber-500 px-1 font-sans text-[10px] font-bold text-white"
      data-testid="node-import-warning"
      title={`import warning${warnings.length === 1 ? "" : "s"}: ${text}`}
      aria-label={`import warning${warnings.length === 1 ? "" : "s"}: ${text}`}
    >
      ⚠ {warnings.length}
    </span>
  );
}

/**
 * The case's import warnings counted per kind (header line): "Import warnings: clock-skew × 1 ·
 * not-ended × 2", and the depth of a span tree deeper than the importer's limit in words.
 */
export function ImportWarningCounts({ summary }: { summary: { counts: Array<[string, number]>; depth: string[]; total: number } }) {
  if (summary.total === 0) return null;
  return (
    <div className="text-xs text-amber-800" data-testid="import-warning-counts">
      <span className="font-semibold">
        Import warnings ({summary.total}):{" "}
      </span>
      {summary.counts.map(([kind, n]) => `${kind} × ${n}`).join(" · ")}
      {summary.depth.map((d) => (
        <span key={d} className="block" data-testid="import-warning-depth">
          {d}
        </span>
      ))}
    </div>
  );
}
