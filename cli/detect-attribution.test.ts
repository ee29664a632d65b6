/**
 * `symtrace detect --eval --attribution --background`: the run is created in the database and its
 * jobs are only queued (the call returns at once); a worker process of the job layer
 * (`npm run worker`, scripts/worker.ts, SYMTRACE_WORKER_KIND=attribution) runs them, and the run's
 * table and progress are read back from the database (baselines only: no endpoint needed). One
 * process is spawned. Also: usage errors exit 2.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { getAttributionRun, openDb } from "../lib/db";
import { attributionRunTable } from "../lib/services/attribution/runs";
import { attributionCommand } from "./detect-attribution";

const REPO = path.resolve(__dirname, "..");
const ROOT = path.resolve(__dirname, "../../shared/datasets/who_and_when_full");
const dir = mkdtempSync(path.join(os.tmpdir(), "attr-bg-"));
const url = "file:" + path.join(dir, "attribution.db");
let child: ChildProcess | null = null;
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await new Promise((r) => child!.once("exit", r));
  }
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe("detect --eval --attribution", () => {
  test("--background queues the run in the database and returns; a worker process runs it; the table is read back", async () => {
    const data = path.join(dir, "data", "Hand-Crafted");
    mkdirSync(data, { recursive: true });
    for (const f of ["1.json", "2.json"]) cpSync(path.join(ROOT, "Hand-Crafted", f), path.join(data, f));
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = url;
    let r;
    try {
      r = await attributionCommand(["--dir", path.join(dir, "data"), "--methods", "last,random", "--run", "bg", "--background"]);
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
    expect(r.code).toBe(0);
    expect(r.output).toMatchObject({ background: true, run: "bg", status: "running", enqueued: 4, progress: { total: 4, queued: 4, done: 0 } });
    const h = openDb(url);
    try {
      // queued, not run: nobody works on it yet
      expect((await getAttributionRun(h.db, "bg"))!.progress).toMatchObject({ queued: 4, done: 0 });
      let err = "";
      child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", "scripts/worker.ts"], {
        cwd: REPO,
        env: { ...process.env, DATABASE_URL: url, SYMTRACE_WORKER_KIND: "attribution", SYMTRACE_WORKER_POLL_MS: "200", SYMTRACE_WORKER_LEASE_MS: "4000", SYMTRACE_OTLP_ASSEMBLER: "0" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
      const deadline = Date.now() + 150_000;
      let run = await getAttributionRun(h.db, "bg");
      // finished: every job done, and a worker's sweep (every lease/2) marked the run
      while (Date.now() < deadline && run?.status !== "finished" && child.exitCode === null) {
        await new Promise((ok) => setTimeout(ok, 300));
        run = await getAttributionRun(h.db, "bg");
      }
      expect(run, err).toMatchObject({ status: "finished", runner: null, progress: { total: 4, done: 4, error: 0, queued: 0, running: 0 } });
      expect(err).toMatch(/attribution worker .* started \(sqlite, poll\)/);
      const jobs = await h.db.attributionJob.findMany({ where: { runId: run!.id }, select: { workerId: true, claims: true } });
      expect(jobs.every((j) => j.claims === 1 && /^worker:/.test(j.workerId ?? ""))).toBe(true);
      const t = (await attributionRunTable(h.db, "bg"))!;
      expect(t.progress).toEqual({ finished: 4, failed: 0, total: 4 });
      expect(t.rows.map((x) => [x.attributor, x.subset, x.done])).toEqual([["last", "Hand-Crafted", 2], ["random", "Hand-Crafted", 2]]);
      // Last on these two files: the last step and its author, hand-checked against the raw records
      const raws = ["1.json", "2.json"].map((f) => JSON.parse(readFileSync(path.join(data, f), "utf8")) as { history: unknown[]; mistake_step: string });
      expect(t.rows[0].step[0].x).toBe(raws.filter((x) => x.history.length - 1 === Number(x.mistake_step)).length);
    } finally {
      await h.db.$disconnect();
    }
  }, 180_000);

  test("bad usage exits 2 and names the problem", async () => {
    expect(await attributionCommand([])).toMatchObject({ code: 2 });
    expect(JSON.stringify((await attributionCommand(["--dir", ROOT, "--methods", "mcts"])).output)).toMatch(/unknown attributor \\"mcts\\"/);
    expect((await attributionCommand(["--dir", ROOT, "--ground-truth", "maybe"])).code).toBe(2);
    expect(JSON.stringify((await attributionCommand(["--dir", ROOT, "--run", "../x"])).output)).toMatch(/--run must be/);
    expect((await attributionCommand(["--dir", ROOT, "--run-dir", "x"])).code).toBe(2);
  });
});
