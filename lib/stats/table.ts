/** Tables as rows and CSV: the downloads of the agreement dashboard and of experiment reports. */

/** A table: a header row and data rows of primitive cells (null = empty cell). */
export interface TableRows {
  header: string[];
  rows: Array<Array<string | number | boolean | null>>;
}

/** One CSV cell: numbers to 12 significant digits (no 0.5000000000000001), RFC 4180 quoting. */
export function csvCell(v: string | number | boolean | null | undefined): string {
  const s = v === null || v === undefined ? "" : typeof v === "number" ? String(Number(v.toPrecision(12))) : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A table as CSV text (header line, then rows; `\n` line ends, trailing newline). */
export function tableToCsv(t: TableRows): string {
  return [t.header, ...t.rows].map((row) => row.map(csvCell).join(",")).join("\n") + "\n";
}
