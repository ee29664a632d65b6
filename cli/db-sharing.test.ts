/**
 * Issue 10 item 12: the CLI beside a running app. One SQLite file shared by an app-like process
 * (long-lived client, embedded worker polling, write transactions) and CLI commands run as child
 * processes; and a file really locked past the busy timeout gives one line and exit 1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { migrate } from "../lib/db/migrate";

const ROOT = path.resolve(import.meta.dirname, "..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const NODE_ARGS = ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx"];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run the CLI as a child process (async, so several can run at once). */
function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "cli/symtrace.ts"), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}

const neighbours: ChildProcess[] = [];
afterEach(() => {
  for (const p of neighbours.splice(0)) p.kill("SIGTERM");
});

/** Start cli/testdata/db-neighbour.ts and wait until it holds the database. */
function neighbour(mode: "app" | "lock", holdMs: number, env: Record<string, string>): Promise<ChildProcess> {
  const p = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "cli/testdata/db-neighbour.ts"), mode, String(holdMs)], { cwd: ROOT, env: { ...process.env, ...env } });
  neighbours.push(p);
  return new Promise((resolve, reject) => {
    let err = "";
    p.stderr.on("data", (d) => (err += d));
    p.stdout.on("data", (d) => String(d).includes("ready") && resolve(p));
    p.on("exit", (code) => reject(new Error(`neighbour exited ${code}: ${err}`)));
  });
}

async function freshDb(): Promise<{ url: string; dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-share-"));
  const url = "file:" + path.join(dir, "shared.db");
  await migrate(url);
  return { url, dir };
}

const json = (r: Run) => JSON.parse(r.stdout.trim().split("\n").pop() ?? "null") as Record<string, unknown>;

describe("the CLI beside a running app (one SQLite file)", () => {
  test("import, export, user list, annotations export and agreement --from-db all succeed while an app-like process writes", { timeout: 180_000 }, async () => {
    const { url, dir } = await freshDb();
    const env = { DATABASE_URL: url };
    // The app: long-lived client, embedded worker polling, a write transaction open 300 ms of every 400 ms.
    await neighbour("app", 300, env);
    const gold = ["gold-c1", "gold-c2"].map((g) => path.join(SHARED, `fixtures/bundles/${g}.bundle.json`));

    const imp = await cli(["import", ...gold], env);
    expect(imp.stdout + imp.stderr).not.toMatch(/SocketTimeout|WASM_ERROR|\n\s+at /);
    expect(imp.code).toBe(0);
    expect(json(imp).imported).toBe(2);

    // Several commands at once, beside the app.
    const out = path.join(dir, "export");
    const [exp, users, ann, agr, imp2] = await Promise.all([
      cli(["export", "--all", "--out", out], env),
      cli(["user", "list"], env),
      cli(["annotations", "export", "--out", path.join(dir, "ann.json")], env),
      cli(["agreement", "--from-db"], env),
      cli(["import", path.join(SHARED, "fixtures/bundles/gold-c3.bundle.json")], env),
    ]);
    for (const r of [exp, users, ann, agr, imp2]) expect(r.stdout + r.stderr).not.toMatch(/SocketTimeout|WASM_ERROR|database .* is busy|\n\s+at /);
    expect(exp.code).toBe(0);
    expect(json(exp).exported).toBeGreaterThanOrEqual(2);
    expect(readdirSync(out).filter((f) => f.endsWith(".bundle.json")).length).toBe(json(exp).exported);
    expect(users.code).toBe(0);
    expect((json(users).users as Array<{ email: string }>).map((u) => u.email)).toContain("neighbour@t.test");
    expect(ann.code).toBe(0);
    // Every imported case (2, or 3 when the concurrent import landed first), none annotated yet.
    expect(json(ann).exported).toMatchObject({ initial: 0, final: 0 });
    expect((json(ann).exported as { cases: number }).cases).toBeGreaterThanOrEqual(2);
    // No annotations yet: agreement reports that (exit 1 by design) as a JSON result, not a database error.
    expect(agr.stdout).toMatch(/^\{/);
    expect(json(agr)).toHaveProperty("ok");
    expect(imp2.code).toBe(0);
    expect(json(imp2).imported).toBe(1);
    const after = await cli(["user", "list"], env);
    expect(after.code).toBe(0);
  });

  test("a file locked past the busy timeout: one line naming the database and what to do, exit 1, no stack trace", { timeout: 60_000 }, async () => {
    const { url } = await freshDb();
    const env = { DATABASE_URL: url, SYMTRACE_DB_BUSY_TIMEOUT_MS: "1000" };
    await neighbour("lock", 20_000, env);
    const r = await cli(["import", path.join(SHARED, "fixtures/bundles/gold-c4.bundle.json")], env);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(json(r)).toEqual({
      ok: false,
      errors: [{ path: "$", message: `database ${url} is busy (locked by another process for over 1000 ms) — stop the app or retry; set SYMTRACE_DB_BUSY_TIMEOUT_MS to wait longer` }],
    });
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |WASM_ERROR/);
    // It waited for the lock (the busy timeout), then gave up rather than hanging.
    expect(r.ms).toBeGreaterThanOrEqual(1000);
    expect(r.ms).toBeLessThan(15_000);
    console.log(`locked file: the CLI gave up after ${r.ms} ms (busy timeout 1000 ms)`);
  });
});
