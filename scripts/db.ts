/**
 * `npm run db:generate | db:migrate | db:check | db:reset | db:create -- <name>`: offline
 * database tooling (see lib/db/migrate.ts for why the wasm schema engine is used).
 */
import { rmSync } from "node:fs";
import { check, create, diffPostgres, generate, migrate, reset, scratchSqliteUrl } from "../lib/db/migrate";
import { providerOf, resolveDatabaseUrl, sqliteFilePath } from "../lib/db/url";

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  const url = resolveDatabaseUrl(process.env.DATABASE_URL);
  switch (cmd) {
    case "generate":
      generate();
      return;
    case "migrate": {
      const applied = await migrate(url);
      console.log(`${providerOf(url)}: ${applied.length ? "applied " + applied.join(", ") : "up to date"}`);
      return;
    }
    case "create": {
      const name = rest[0];
      if (!name) throw new Error("usage: db create <name>");
      await create(name);
      return;
    }
    case "check": {
      // SQLite: migrations applied to a scratch file, diffed against the schema.
      // PostgreSQL: the snapshot of the last migration must equal the derived schema.
      const scratch = scratchSqliteUrl();
      const ok = await check(scratch);
      rmSync(sqliteFilePath(scratch), { force: true });
      const pgDrift = await diffPostgres();
      if (pgDrift) console.error(`postgresql: migrations drift from prisma/schema.prisma; missing:\n${pgDrift}`);
      else console.log("postgresql: migrations match prisma/schema.prisma");
      if (!ok || pgDrift) process.exitCode = 1;
      return;
    }
    case "reset":
      await reset(url);
      console.log(`${providerOf(url)}: reset; ${(await migrate(url)).length} migration(s) applied`);
      return;
    default:
      throw new Error(`unknown command "${cmd ?? ""}"; expected generate | migrate | create | check | reset`);
  }
}

main().catch((err) => {
  console.error(`db: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
