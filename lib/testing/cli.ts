import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * `symtrace <args>` as a user runs it: a real process (tsx, wasm modules) in the repo root with
 * DATABASE_URL set, at most two minutes.
 */
export function spawnSymtrace(args: string[], dbUrl: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", path.join(ROOT, "cli/symtrace.ts"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: dbUrl },
    timeout: 120_000,
  });
}
