import Database from "better-sqlite3";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
for (const sync of ["FULL", "NORMAL"]) {
  const f = `/tmp/sync-${sync}.db`;
  const d = new Database(f); d.pragma("journal_mode = WAL"); d.pragma(`synchronous = ${sync}`);
  d.exec('CREATE TABLE IF NOT EXISTS b (id TEXT PRIMARY KEY, body BLOB); CREATE TABLE IF NOT EXISTS s (t TEXT, s TEXT, b TEXT, PRIMARY KEY(t,s))');
  const ib = d.prepare("INSERT INTO b VALUES (?,?)"), is = d.prepare("INSERT INTO s VALUES (?,?,?) ON CONFLICT(t,s) DO UPDATE SET b=excluded.b");
  const body = randomBytes(350_000);
  const tx = d.transaction((k: number) => { ib.run(String(k), body); for (let i = 0; i < 512; i++) is.run(randomBytes(16).toString("hex"), randomBytes(8).toString("hex"), String(k)); });
  const t = performance.now();
  for (let k = 0; k < 40; k++) tx.immediate(k);
  console.log(sync, ((performance.now() - t) / 40).toFixed(2), "ms/req");
}
