/**
 * The storage limit of the import benchmark (issue 25 item 3; scripts/bench-import-limit.ts):
 * inserts the rows of one case into a freshly migrated database with a bare better-sqlite3 loop —
 * three prepared INSERT statements, one transaction, the connection's defaults as `openDb` leaves
 * them (WAL) — and prints one JSON line: the insert time (reading and JSON-parsing the row file is
 * not counted), the whole time, peak resident memory.
 *
 * `<rows>` is NDJSON written by the benchmark: line 1 the case row, then `["n"|"e"|"r", ...row]`
 * in the order our import writes them (the same rows, columns as lib/db STREAM_COLS).
 *
 * Usage: node --import tsx scripts/bench-import-bare.ts <rows.ndjson> <database-url>
 */
import Database from "better-sqlite3";
import { closeSync, openSync, readSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { STREAM_COLS } from "../lib/db/stream-rows";
import { migrate } from "../lib/db/migrate";
import { sqliteFilePath } from "../lib/db/url";

/** Lines of a file, in chunks of about `bytes` (the last partial line carried over). */
function* lineChunks(file: string, bytes = 8 << 20): Generator<string[]> {
  const fd = openSync(file, "r");
  const buf = Buffer.allocUnsafe(bytes);
  let rest = "";
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      const text = rest + buf.subarray(0, n).toString("utf8");
      const cut = text.lastIndexOf("\n");
      rest = text.slice(cut + 1);
      yield text.slice(0, cut).split("\n").filter(Boolean);
    }
    if (rest) yield [rest];
  } finally {
    closeSync(fd);
  }
}

const insertSql = (table: string, cols: readonly string[]) => `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`;

async function main() {
  const [rowsFile, url] = process.argv.slice(2);
  if (!rowsFile || !url) throw new Error("usage: bench-import-bare.ts <rows.ndjson> <database-url>");
  await migrate(url);
  const t0 = performance.now();
  const db = new Database(sqliteFilePath(url));
  db.pragma("journal_mode = WAL");
  const stmts = {
    n: db.prepare(insertSql("Node", STREAM_COLS.node)),
    e: db.prepare(insertSql("Edge", STREAM_COLS.edge)),
    r: db.prepare(insertSql("BoundaryRecord", STREAM_COLS.record)),
  } as Record<string, Database.Statement>;
  let insertMs = 0;
  let insertCpuUs = 0;
  let rows = 0;
  let first = true;
  db.exec("BEGIN IMMEDIATE");
  for (const lines of lineChunks(rowsFile)) {
    const parsed = lines.map((l) => JSON.parse(l) as unknown[]);
    const t = performance.now();
    const c = process.cpuUsage();
    for (const row of parsed) {
      if (first) {
        const c = row as unknown as Record<string, unknown>;
        const keys = Object.keys(c);
        db.prepare(`INSERT INTO "Case" (${keys.map((k) => `"${k}"`).join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`).run(...keys.map((k) => c[k]));
        first = false;
        continue;
      }
      stmts[row[0] as string].run(row.slice(1));
      rows++;
    }
    insertMs += performance.now() - t;
    const d = process.cpuUsage(c);
    insertCpuUs += d.user + d.system;
  }
  const tc = performance.now();
  const cc = process.cpuUsage();
  db.exec("COMMIT");
  insertMs += performance.now() - tc;
  const dc = process.cpuUsage(cc);
  insertCpuUs += dc.user + dc.system;
  const ms = performance.now() - t0;
  db.close();
  console.log(JSON.stringify({ insertMs: Math.round(insertMs), insertCpuS: Number((insertCpuUs / 1e6).toFixed(2)), ms: Math.round(ms), rows, maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }));
}

main().catch((e) => {
  console.error(`bench-import-bare: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
