/**
 * Test helper for cli/db-sharing.test.ts: another process on the same SQLite file as the CLI.
 *
 *   node --import tsx cli/testdata/db-neighbour.ts app <holdMs>
 *     like the running app: one long-lived Prisma client (lib/db openDb), the embedded replay
 *     worker polling it, and a write transaction every 100 ms that stays open `holdMs` ms
 *     (an admin assigning, an annotator saving a draft).
 *   node --import tsx cli/testdata/db-neighbour.ts lock <holdMs>
 *     a writer that takes the write lock (BEGIN IMMEDIATE + a write) and keeps it `holdMs` ms.
 *
 * Prints "ready" on stdout once it holds the database, then runs until killed (SIGTERM).
 * DATABASE_URL names the file (a migrated SQLite database).
 */
import Database from "better-sqlite3";
import { openDb, resolveDatabaseUrl, upsertUser } from "../../lib/db";
import { sqliteFilePath } from "../../lib/db/url";
import { replayKind, startJobBackend } from "../../lib/jobs";

const [mode, hold = "300"] = process.argv.slice(2);
const holdMs = Number(hold);
const url = resolveDatabaseUrl(process.env.DATABASE_URL);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function app(): Promise<void> {
  const { db } = openDb(url);
  const backend = await startJobBackend(replayKind(), { db, url, workerId: "neighbour-worker", renewMs: 100, controlPollMs: 100, log: () => {} });
  await upsertUser(db, { email: "neighbour@t.test", roles: ["annotator"], password: "password-123" });
  let stop = false;
  process.on("SIGTERM", () => {
    stop = true;
    void backend.stop({ graceMs: 0 }).finally(() => db.$disconnect().finally(() => process.exit(0)));
  });
  process.stdout.write("ready\n");
  let i = 0;
  while (!stop) {
    await db.$transaction(
      async (tx) => {
        await tx.user.update({ where: { email: "neighbour@t.test" }, data: { name: `write ${++i}` } });
        await sleep(holdMs);
      },
      { timeout: holdMs + 10_000, maxWait: 10_000 },
    );
    await sleep(100);
  }
}

function lock(): void {
  const sqlite = new Database(sqliteFilePath(url));
  sqlite.exec("BEGIN IMMEDIATE");
  sqlite.exec("CREATE TABLE IF NOT EXISTS neighbour_lock (x INTEGER); INSERT INTO neighbour_lock VALUES (1);");
  process.stdout.write("ready\n");
  setTimeout(() => {
    sqlite.exec("ROLLBACK");
    sqlite.close();
    process.exit(0);
  }, holdMs);
  process.on("SIGTERM", () => process.exit(0));
}

if (mode === "app") {
  app().catch((e) => {
    process.stderr.write(`neighbour failed: ${(e as Error).message}\n`);
    process.exit(1);
  });
} else if (mode === "lock") {
  lock();
} else {
  process.stderr.write("usage: db-neighbour.ts app|lock <holdMs>\n");
  process.exit(2);
}
