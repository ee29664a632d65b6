/**
 * Experiment attempts as jobs (issue 13 item 4), with fake methods of seeded outcomes
 * (./experiment-fake-methods.ts: no MAS, no network). SQLite by default; PostgreSQL (pg-boss)
 * when TEST_DATABASE_URL is set.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { openDb, type Db, type DbHandle } from "../db/client";
import { exportBundle, importCase } from "../db/cases";
import { createExperiment, getExperiment, listExperimentAttempts, stopExperiment, type ExperimentAttemptView, type ExperimentView } from "../db/experiments";
import { freshTestDb } from "../db/test-db";
import { closeBoss } from "./backends";
import { fakeMethods } from "./experiment-fake-methods";
import type { AttemptContext, ExperimentSettings } from "../services/experiments/methods/types";
import { attemptBundleId, attemptSeed, enqueueExperiment } from "./kinds/experiment-attempt";
import { createWorker } from "./kinds";
import { unitFromSeed } from "./experiment-fake-methods";
import { waitFor as waitForCondition } from "../testing/wait-for";
import { spawnWorkerProcess } from "../testing/worker-process";

const PG = !!process.env.TEST_DATABASE_URL;
let h: DbHandle;
const caseIds: string[] = [];
const children: ChildProcess[] = [];
const quiet = () => {};

const settings = (o: Partial<ExperimentSettings> = {}): ExperimentSettings => ({
  upstream: "http://127.0.0.1:9/v1",
  toolUpstream: null,
  model: null,
  evaluator: null,
  reproductionJudge: null,
  command: ["node", "mas.js"], // a command for every case: task-level methods apply
  seed: 11,
  attempts: 2,
  budget: { maxCalls: null, maxTokens: null },
  timeoutMs: 60_000,
  ...o,
});

beforeAll(async () => {
  h = await freshTestDb();
  for (let i = 0; i < 6; i++) caseIds.push((await importCase(h.db, { bundle: syntheticBundle({ id: `jx-${i}`, turns: 2, seed: 3 * i + 1 }) })).caseId);
}, 60_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (PG) await closeBoss(h.url);
  await h?.db.$disconnect();
});

/** experiments.test.ts's default wait: 30_000 ms, probing every 100 ms. */
const waitFor = <T,>(what: string, f: () => Promise<T | null | undefined | false>, timeoutMs = 30_000, everyMs = 100) => waitForCondition(what, f, timeoutMs, everyMs);
const finalExperiment = (id: string, timeoutMs = 30_000) =>
  waitFor<ExperimentView>("the experiment to end", async () => {
    const e = await getExperiment(h.db, id);
    return e && ["finished", "cancelled", "budget-exhausted"].includes(e.status) ? e : null;
  }, timeoutMs);

/** Invariants of a finished experiment: every tuple once, node level k rows, task-level chains stop at the first pass. */
function checkExactlyOnce(rows: ExperimentAttemptView[], methods: string[], cases: number, k: number) {
  const keys = rows.map((r) => `${r.caseBundleId}|${r.method}|${r.attempt}`);
  expect(new Set(keys).size).toBe(keys.length);
  for (const r of rows) expect(["passed", "failed"]).toContain(r.status);
  for (const m of methods) {
    const mine = rows.filter((r) => r.method === m);
    const byCase = new Map<string, ExperimentAttemptView[]>();
    for (const r of mine) byCase.set(r.caseBundleId, [...(byCase.get(r.caseBundleId) ?? []), r]);
    expect(byCase.size).toBe(cases);
    for (const chain of byCase.values()) {
      const attempts = chain.map((r) => r.attempt).sort((a, b) => a - b);
      if (["rerun", "self-reflection", "critic"].includes(m)) {
        expect(attempts).toEqual(attempts.map((_, i) => i + 1));
        const sorted = [...chain].sort((a, b) => a.attempt - b.attempt);
        expect(sorted.slice(0, -1).every((r) => r.status === "failed")).toBe(true);
        expect(sorted.at(-1)!.status === "passed" || sorted.length === k).toBe(true);
      } else expect(attempts).toEqual(Array.from({ length: k }, (_, i) => i + 1));
    }
  }
}

/** scripts/worker.ts (experiment attempts only) with fake methods injected by the test harness (lib/testing/fake-worker.ts) as a child process. */
function spawnWorker(id: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; stderr: () => string }> {
  return spawnWorkerProcess({ script: "lib/testing/fake-worker.ts", env: { DATABASE_URL: h.url,
    SYMTRACE_WORKER_ID: id,
    SYMTRACE_WORKER_KIND: "experiment",
    SYMTRACE_FAKE_STEP_MS: "100",
    SYMTRACE_FAKE_STEPS: "4",
    SYMTRACE_WORKER_LEASE_MS: "1500",
    SYMTRACE_WORKER_POLL_MS: "100",
    SYMTRACE_WORKER_CONCURRENCY: "2",
    ...env,
  }, ready: [/experiment worker .* started/], track: children });
}

/** Attempt ids a worker's stderr says it recorded. */
const recordedIds = (stderr: string) => [...stderr.matchAll(/^attempt (\S+) \(\S+ #\d+\) (passed|failed|error|skipped|cancelled) calls=/gm)].map((m) => m[1]);

describe(`lib/jobs experiment attempts (${PG ? "PostgreSQL" : "SQLite"})`, () => {
  test.skipIf(PG)("two in-process workers run every attempt exactly once; outcomes follow the seeds; bundles are stored", async () => {
    const methods = ["rerun", "suspicious-node", "nudge"];
    const e = await createExperiment(h.db, { settings: settings({ attempts: 3 }), methods, caseIds: caseIds.slice(0, 4), caseSet: { kind: "list" } });
    const started: string[] = [];
    const onStart = (c: AttemptContext) => started.push(`${c.case.caseId}|${c.method}|${c.attempt}`);
    const fm = () => fakeMethods({ passRate: { rerun: 0.3, "suspicious-node": 0.8, nudge: 0.5 }, stepMs: 5, onStart, withBundle: true });
    const second: Db = openDb(h.url).db;
    const w1 = createWorker("experiment-attempt", { db: h.db, workerId: "w1", methods: fm(), idlePollMs: 30, log: quiet, runners: [] });
    const w2 = createWorker("experiment-attempt", { db: second, workerId: "w2", methods: fm(), idlePollMs: 30, log: quiet, runners: [] });
    w1.start();
    w2.start();
    try {
      const done = await finalExperiment(e.id, 60_000);
      expect(done.status).toBe("finished");
      const rows = await listExperimentAttempts(h.db, e.id);
      checkExactlyOnce(rows, methods, 4, 3);
      expect(started.sort()).toEqual(rows.map((r) => `${r.caseBundleId}|${r.method}|${r.attempt}`).sort());
      expect((w1.counts.recorded ?? 0) + (w2.counts.recorded ?? 0)).toBe(rows.length);
      for (const r of rows) {
        const rate = { rerun: 0.3, "suspicious-node": 0.8, nudge: 0.5 }[r.method] as number;
        expect(r.passed).toBe(unitFromSeed(attemptSeed(11, r.caseBundleId, r.method, r.attempt)) < rate);
        expect(r.bundleId).toBe(attemptBundleId(r.caseBundleId, e.id, r.method, r.attempt));
        expect(r.calls).toBe(3);
      }
      const node = rows.find((r) => r.method === "nudge")!;
      const stored = await exportBundle(h.db, { bundleId: node.bundleId! });
      expect(stored?.parent).toMatchObject({ bundleId: node.caseBundleId, targetNodeId: node.anchorNodeId });
      expect((await h.db.case.findUnique({ where: { bundleId: node.bundleId! } }))?.sourceDataset).toBe("experiment");
      expect(done.progress.done).toBe(rows.length);
      expect(done.progress.used.calls).toBe(3 * rows.length);
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
      await second.$disconnect();
    }
  }, 90_000);

  test("an experiment reserved for a runner is run only by a worker started for that runner (Experiment.runner)", async () => {
    const e = await createExperiment(h.db, { settings: settings({ attempts: 1 }), methods: ["last-node"], caseIds: caseIds.slice(0, 2), caseSet: { kind: "list" }, runner: "harness" });
    const any = createWorker("experiment-attempt", { db: h.db, workerId: "any", methods: fakeMethods({ stepMs: 1 }), log: quiet, runners: [] });
    const other = createWorker("experiment-attempt", { db: h.db, workerId: "other", methods: fakeMethods({ stepMs: 1 }), runner: "other-harness", log: quiet, runners: [] });
    expect(await any.runNext()).toBeNull();
    expect(await other.runNext()).toBeNull();
    const [first] = await listExperimentAttempts(h.db, e.id);
    expect(await any.process(first.id)).toBe(false);
    const mine = createWorker("experiment-attempt", { db: h.db, workerId: "mine", methods: fakeMethods({ stepMs: 1 }), runner: "harness", log: quiet, runners: [] });
    while (await mine.runNext());
    const rows = await listExperimentAttempts(h.db, e.id);
    expect(rows.map((r) => [r.leaseOwner, r.claims])).toEqual([
      ["mine", 1],
      ["mine", 1],
    ]);
    expect(mine.counts.recorded).toBe(2);
    expect((await getExperiment(h.db, e.id))?.status).toBe("finished");
  }, 30_000);

  test.skipIf(PG)("skips are recorded with their reason; the budget cap stops the experiment cleanly; cancel aborts the running attempt", async () => {
    // task level on a case with no runner and no command: skipped, never silently dropped
    const s = await createExperiment(h.db, { settings: settings({ command: null, attempts: 2 }), methods: ["critic", "last-node"], caseIds: caseIds.slice(0, 2), caseSet: { kind: "list" } });
    const w = createWorker("experiment-attempt", { db: h.db, workerId: "ws", methods: fakeMethods({ stepMs: 1 }), experimentId: s.id, log: quiet, runners: [] });
    while (await w.runNext());
    const rows = await listExperimentAttempts(h.db, s.id);
    expect(rows.filter((r) => r.method === "critic").map((r) => [r.status, r.skipReason])).toEqual([
      ["skipped", "no MAS to restart: the case has no registered runner and no command was given"],
      ["skipped", "no MAS to restart: the case has no registered runner and no command was given"],
    ]);
    expect(rows.filter((r) => r.method === "last-node").length).toBe(4);
    expect((await getExperiment(h.db, s.id))?.status).toBe("finished");

    // budget: 3 calls per attempt, cap 10 → the 4th attempt's finish reaches 12 ≥ 10; the rest are not run
    const b = await createExperiment(h.db, { settings: settings({ attempts: 3, budget: { maxCalls: 10, maxTokens: null } }), methods: ["random-node"], caseIds: caseIds.slice(0, 4), caseSet: { kind: "list" } });
    const wb = createWorker("experiment-attempt", { db: h.db, workerId: "wb", methods: fakeMethods({ stepMs: 1, callsPerAttempt: 3 }), experimentId: b.id, log: quiet, runners: [] });
    while (await wb.runNext());
    const bv = await getExperiment(h.db, b.id);
    expect(bv).toMatchObject({ status: "budget-exhausted" });
    expect(bv?.progress.used.calls).toBe(12);
    expect(bv?.progress.total.cancelled).toBe(12 - 4);
    expect((await listExperimentAttempts(h.db, b.id, { status: "cancelled" })).every((r) => /^not run: budget exhausted \(calls 12\/10\)$/.test(r.skipReason ?? ""))).toBe(true);

    // cancel while an attempt runs: it is aborted and recorded cancelled; the experiment is cancelled
    const c = await createExperiment(h.db, { settings: settings({ attempts: 2 }), methods: ["nudge"], caseIds: caseIds.slice(0, 2), caseSet: { kind: "list" } });
    const wc = createWorker("experiment-attempt", { db: h.db, workerId: "wc", methods: fakeMethods({ stepMs: 100, steps: 100 }), experimentId: c.id, renewMs: 50, log: quiet, runners: [] });
    const running = wc.runNext();
    await waitFor("running", async () => (await getExperiment(h.db, c.id))?.progress.total.running === 1);
    const t0 = Date.now();
    await stopExperiment(h.db, c.id, "cancelled");
    await running;
    expect(Date.now() - t0).toBeLessThan(3000);
    const cv = await getExperiment(h.db, c.id);
    expect(cv?.status).toBe("cancelled");
    expect(cv?.progress.total).toMatchObject({ cancelled: 4, running: 0, passed: 0, failed: 0 });
  }, 60_000);

  test.skipIf(PG)(
    "SQLite: a worker process killed (SIGKILL) mid-experiment; another one finishes it with every attempt counted exactly once",
    async () => {
      const methods = ["rerun", "nudge", "last-node"];
      const e = await createExperiment(h.db, { settings: settings({ attempts: 2 }), methods, caseIds: caseIds.slice(0, 5), caseSet: { kind: "list" } });
      const a = await spawnWorker("kill-a");
      await waitFor("a few attempts done and two running", async () => {
        const v = await getExperiment(h.db, e.id);
        return v && v.progress.done >= 4 && v.progress.total.running === 2 ? v : null;
      });
      a.child.kill("SIGKILL");
      await new Promise((r) => a.child.once("exit", r));
      const orphaned = (await listExperimentAttempts(h.db, e.id, { status: "running" })).map((r) => r.id);
      expect(orphaned.length).toBe(2);
      const b = await spawnWorker("kill-b");
      const done = await finalExperiment(e.id, 60_000);
      expect(done.status).toBe("finished");
      const rows = await listExperimentAttempts(h.db, e.id);
      checkExactlyOnce(rows, methods, 5, 2);
      // each attempt recorded by exactly one worker; the orphaned ones re-run by b (claimed twice)
      const recA = recordedIds(a.stderr());
      const recB = recordedIds(b.stderr());
      expect([...recA, ...recB].sort()).toEqual(rows.map((r) => r.id).sort());
      for (const id of orphaned) {
        expect(recB).toContain(id);
        expect(rows.find((r) => r.id === id)?.claims).toBe(2);
      }
      expect(done.progress.used.calls).toBe(3 * rows.length);
      const exit = new Promise((r) => b.child.once("exit", r));
      b.child.kill("SIGTERM");
      await exit;
    },
    120_000,
  );

  test.runIf(PG)(
    "PostgreSQL: two worker processes share an experiment through pg-boss; one is killed, the other finishes it, each attempt counted once",
    async () => {
      const methods = ["self-reflection", "suspicious-node", "random-node"];
      // one after the other: two fresh processes creating pg-boss's schema at once can deadlock
      const a = await spawnWorker("pg-a");
      const b = await spawnWorker("pg-b");
      const e = await createExperiment(h.db, { settings: settings({ attempts: 2 }), methods, caseIds: caseIds.slice(0, 6), caseSet: { kind: "list" } });
      // one job per claimable attempt (6 + 12 + 12); the workers' maintenance may already have sent some (then dropped here)
      const sent = await enqueueExperiment(h.db, e.id, { url: h.url });
      expect(sent).toBeGreaterThan(0);
      expect(sent).toBeLessThanOrEqual(30);
      await enqueueExperiment(h.db, e.id, { url: h.url }); // duplicates are dropped / harmless
      await waitFor("both workers busy", async () => {
        const rows = await listExperimentAttempts(h.db, e.id);
        const owners = new Set(rows.filter((r) => r.status !== "queued").map((r) => r.leaseOwner));
        return owners.has("pg-a") && owners.has("pg-b") && rows.some((r) => r.status === "running" && r.leaseOwner === "pg-a");
      });
      a.child.kill("SIGKILL");
      await new Promise((r) => a.child.once("exit", r));
      const done = await finalExperiment(e.id, 90_000).catch(async (err) => {
        const left = (await listExperimentAttempts(h.db, e.id)).filter((r) => r.status === "queued" || r.status === "running");
        throw new Error(`${(err as Error).message}; left: ${JSON.stringify(left.map((r) => [r.id, r.status, r.leaseOwner, r.claims]))}; b: ${b.stderr().slice(-1500)}`);
      });
      expect(done.status).toBe("finished");
      const rows = await listExperimentAttempts(h.db, e.id);
      checkExactlyOnce(rows, methods, 6, 2);
      expect([...recordedIds(a.stderr()), ...recordedIds(b.stderr())].sort()).toEqual(rows.map((r) => r.id).sort());
      expect(rows.some((r) => r.claims === 2)).toBe(true);
      const exit = new Promise((r) => b.child.once("exit", r));
      b.child.kill("SIGTERM");
      await exit;
    },
    150_000,
  );
});
