/**
 * One import in its own process, for the big-trace benchmark (scripts/bench-bigtrace.ts): imports
 * `<file>` into the database `<url>` (migrated first) as `symtrace import` does, and prints one
 * JSON line: wall time of the import, peak resident memory of this process (getrusage maxRSS,
 * which includes Node's own ~50 MB), the case's node count and the import status.
 *
 * Usage: node --import tsx scripts/bench-import-child.ts <file> <database-url>
 */
import { performance } from "node:perf_hooks";
import { openDb } from "../lib/db/client";
import { migrate } from "../lib/db/migrate";
import { importPaths, streamThresholdBytes } from "../lib/services/import-files";
import { statSync } from "node:fs";

async function main() {
  const [file, url] = process.argv.slice(2);
  if (!file || !url) throw new Error("usage: bench-import-child.ts <file> <database-url>");
  await migrate(url);
  const { db } = openDb(url);
  try {
    const rssBefore = process.resourceUsage().maxRSS / 1024;
    const t0 = performance.now();
    const r = await importPaths(db, [file]);
    const ms = performance.now() - t0;
    if (r.failed.length) throw new Error(`import failed: ${JSON.stringify(r.failed).slice(0, 500)}`);
    const c = await db.case.findUnique({ where: { bundleId: r.cases[0].bundleId }, select: { nodeCount: true } });
    const cpu = process.cpuUsage();
    console.log(
      JSON.stringify({
        ms: Math.round(ms),
        cpuS: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
        maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
        rssBeforeMb: Math.round(rssBefore),
        nodes: c?.nodeCount ?? 0,
        status: r.cases[0].status,
        streamed: statSync(file).size >= streamThresholdBytes("bundle"),
        bundleId: r.cases[0].bundleId,
      }),
    );
  } finally {
    await db.$disconnect();
  }
}

main().catch((e) => {
  console.error(`bench-import-child: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
