import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { openDb, type Db, type DbHandle } from "../db/client";
import { exportBundle, importCase } from "../db/cases";
import { createReplayRuns, getRun, requestCancel, retryRun, markInterrupted, type ReplayRunView } from "../db/replay-runs";
import { freshTestDb } from "../db/test-db";
import { closeBoss, enqueueJobs } from "./backends";
import { fakeExecutor } from "./fake-executor";
import { JobWorker, type JobKind } from "./job-worker";
import { createWorker } from "./kinds";
import { waitFor as waitForCondition } from "../testing/wait-for";
import { spawnWorkerProcess } from "../testing/worker-process";

const PG = !!process.env.TEST_DATABASE_URL;
const ENDPOINT = { upstream: null, model: null, toolUpstream: null };

let h: DbHandle;
let caseId: string;
let target: string;
const children: ChildProcess[] = [];
const quiet = () => {};

beforeAll(async () => {
  h = await freshTestDb();
  const bundle = syntheticBundle({ id: "jobs-source", turns: 3 });
  caseId = (await importCase(h.db, { bundle })).caseId;
  target = bundle.order[5];
}, 60_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (PG) await closeBoss(h.url);
  await h?.db.$disconnect();
});

const queue = async (count: number) =>
  (await createReplayRuns(h.db, { sourceCaseId: caseId, targetNodeId: target, guidance: "try again", count, endpoint: ENDPOINT })).runs.map((r) => r.id);

/** jobs.test.ts's default wait: 20_000 ms, probing every 50 ms. */
const waitFor = <T,>(what: string, f: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, everyMs = 50) => waitForCondition(what, f, timeoutMs, everyMs);
const runIs = (id: string, ...statuses: string[]) => async () => {
  const r = await getRun(h.db, id);
  return r && statuses.includes(r.status) ? r : null;
};

/** scripts/worker.ts as a child process, with a fake executor; resolves once it has started. */
/**
 * A worker child process: by default the test harness lib/testing/fake-worker.ts (scripts/worker.ts
 * with the fake replay executor SYMTRACE_WORKER_FAKE_EXECUTOR names), or `script`.
 */
function spawnWorker(env: Record<string, string>, script = "lib/testing/fake-worker.ts"): Promise<{ child: ChildProcess; stderr: () => string }> {
  return spawnWorkerProcess({ script: script, env: { DATABASE_URL: h.url, SYMTRACE_WORKER_HEARTBEAT_MS: "200", SYMTRACE_WORKER_STALE_MS: "30000", ...env }, ready: [/replay worker .* started/], track: children });
}

describe(`lib/jobs replay workers (${PG ? "PostgreSQL" : "SQLite"})`, () => {
  test("two polling workers on separate connections execute each of 10 runs exactly once", async () => {
    const ids = await queue(5);
    ids.push(...(await queue(5)));
    const executed: string[] = [];
    const onStart = (s: { newBundleId?: string }) => executed.push(s.newBundleId as string);
    const second: Db = openDb(h.url).db;
    const w1 = createWorker("replay", { db: h.db, workerId: "w1", executor: fakeExecutor({ steps: 2, stepMs: 20, onStart }), idlePollMs: 50, log: quiet });
    const w2 = createWorker("replay", { db: second, workerId: "w2", executor: fakeExecutor({ steps: 2, stepMs: 20, onStart }), idlePollMs: 50, log: quiet });
    w1.start();
    w2.start();
    try {
      const done = await waitFor("all completed", async () => {
        const runs = await Promise.all(ids.map((id) => getRun(h.db, id)));
        return runs.every((r) => r?.status === "completed") ? (runs as ReplayRunView[]) : null;
      });
      expect(executed.sort()).toEqual(ids.map((id) => `jobs-source~replay-${id}`).sort());
      expect(new Set(done.map((r) => r.workerId))).toEqual(new Set(["w1", "w2"]));
      for (const r of done) {
        expect(r.resultBundleId).toBe(`jobs-source~replay-${r.id}`);
        expect(r.progress).toMatchObject({ verified: 2, prefixTotal: 2, liveCalls: 1 });
        const c = await h.db.case.findUnique({ where: { id: r.resultCaseId as string } });
        expect(c?.parentBundleId).toBe("jobs-source");
      }
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
      await second.$disconnect();
    }
  }, 60_000);

  test("progress is saved while running; cancel aborts the executor and records cancelled", async () => {
    const [id] = await queue(1);
    const w = createWorker("replay", { db: h.db, workerId: "wc", executor: fakeExecutor({ steps: 200, stepMs: 50 }), renewMs: 100, controlPollMs: 50, log: quiet });
    const running = w.runNext();
    const mid = await waitFor("progress saved", async () => {
      const r = await getRun(h.db, id);
      return r && r.status === "running" && r.progress.verified >= 2 ? r : null;
    });
    expect(mid.progress.prefixTotal).toBe(200);
    expect(mid.heartbeatAt).not.toBeNull();
    const t0 = Date.now();
    await requestCancel(h.db, id, null);
    expect(await running).toBe(id);
    expect(Date.now() - t0).toBeLessThan(3000);
    const r = await getRun(h.db, id);
    expect(r?.status).toBe("cancelled");
    expect(r?.progress.verified).toBeGreaterThanOrEqual(2);
    expect(r?.progress.verified).toBeLessThan(200);
    await w.stop();
  }, 30_000);

  test("executor outcomes map to statuses; a throwing executor fails the run", async () => {
    const cases = [
      ["prefix-verified", "prefix_verified"],
      ["diverged", "diverged"],
      ["failed", "failed"],
      ["throw", "failed"],
    ] as const;
    for (const [outcome, status] of cases) {
      const [id] = await queue(1);
      const w = createWorker("replay", { db: h.db, workerId: "wo", executor: fakeExecutor({ steps: 1, stepMs: 1, outcome }), log: quiet });
      expect(await w.runNext()).toBe(id);
      const r = await getRun(h.db, id);
      expect(r?.status).toBe(status);
      if (status === "diverged") expect(r?.divergence).toMatchObject({ reason: "content" });
      if (status === "failed") expect(r?.error?.message).toMatch(/fake/);
    }
  }, 30_000);

  test("SYMTRACE_REPLAY_EVALUATOR: the replay's outcome, and the source's when it records no verdict (outcome.sourceEvaluation)", async () => {
    const before = process.env.SYMTRACE_REPLAY_EVALUATOR;
    // passes the replay (its bundle id has "~replay-"), fails the source: the two are evaluated apart
    process.env.SYMTRACE_REPLAY_EVALUATOR = `node -e 'process.exit(JSON.parse(require("fs").readFileSync(process.env.SYMTRACE_BUNDLE,"utf8")).id.includes("~replay-") ? 0 : 1)'`;
    try {
      const plain = syntheticBundle({ id: "jobs-source-noverdict", turns: 2 });
      delete (plain as { outcome?: unknown }).outcome;
      const noVerdict = (await importCase(h.db, { bundle: plain })).caseId;
      const { runs } = await createReplayRuns(h.db, { sourceCaseId: noVerdict, targetNodeId: plain.order[3], guidance: "g", count: 1, endpoint: ENDPOINT });
      const w = createWorker("replay", { db: h.db, workerId: "we", executor: fakeExecutor({ steps: 1, stepMs: 1 }), log: quiet });
      expect(await w.runNext()).toBe(runs[0].id);
      const r = await getRun(h.db, runs[0].id);
      const out = (await exportBundle(h.db, { caseId: r!.resultCaseId! }))?.outcome as Record<string, unknown>;
      expect(out).toMatchObject({ passed: true, evaluator: expect.stringContaining("node -e"), sourceEvaluation: { passed: false, evaluator: expect.stringContaining("node -e") } });
      // a source with a recorded verdict is not re-evaluated
      const [id2] = await queue(1);
      expect(await w.runNext()).toBe(id2);
      const r2 = await getRun(h.db, id2);
      const out2 = (await exportBundle(h.db, { caseId: r2!.resultCaseId! }))?.outcome as Record<string, unknown>;
      expect(out2.passed).toBe(true);
      expect(out2).not.toHaveProperty("sourceEvaluation");
    } finally {
      if (before === undefined) delete process.env.SYMTRACE_REPLAY_EVALUATOR;
      else process.env.SYMTRACE_REPLAY_EVALUATOR = before;
    }
  }, 30_000);

  test("a worker process killed mid-run: the run becomes interrupted, keeps its progress, and a retry completes", async () => {
    const [id] = await queue(1);
    if (PG) await enqueueJobs(h.db, "replay", [id], { url: h.url });
    const { child } = await spawnWorker({ SYMTRACE_WORKER_FAKE_EXECUTOR: "slow", SYMTRACE_FAKE_STEP_MS: "100" });
    const mid = await waitFor("the child to make progress", async () => {
      const r = await getRun(h.db, id);
      return r && r.status === "running" && r.progress.verified >= 2 ? r : null;
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect((await getRun(h.db, id))?.status).toBe("running");
    await new Promise((r) => setTimeout(r, 1200));
    expect(await markInterrupted(h.db, { staleAfterMs: 1000 })).toEqual([id]);
    const dead = await getRun(h.db, id);
    expect(dead?.status).toBe("interrupted");
    expect(dead?.workerId).toBe(mid.workerId);
    expect(dead?.progress.verified).toBeGreaterThanOrEqual(2);

    const again = await retryRun(h.db, id, null);
    expect(again).toMatchObject({ status: "queued", attempt: 1, retryOfId: id });
    const w = createWorker("replay", { db: h.db, workerId: "wr", executor: fakeExecutor({ steps: 2, stepMs: 5 }), log: quiet });
    expect(await w.runNext()).toBe(again.id);
    const done = await getRun(h.db, again.id);
    expect(done).toMatchObject({ status: "completed", attempt: 1 });
    expect((await h.db.case.findUnique({ where: { id: done?.resultCaseId as string } }))?.parentBundleId).toBe("jobs-source");
    expect((await getRun(h.db, id))?.status).toBe("interrupted");
  }, 60_000);

  test("SIGTERM mid-run: the worker releases the run as interrupted and exits cleanly", async () => {
    const [id] = await queue(1);
    if (PG) await enqueueJobs(h.db, "replay", [id], { url: h.url });
    const { child, stderr } = await spawnWorker({ SYMTRACE_WORKER_FAKE_EXECUTOR: "slow", SYMTRACE_FAKE_STEP_MS: "200", SYMTRACE_WORKER_GRACE_MS: "500" });
    await waitFor("running", runIs(id, "running"));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const r = await getRun(h.db, id);
    expect(r?.status).toBe("interrupted");
    expect(r?.error?.message).toMatch(/shut down/);
    expect(stderr()).toMatch(new RegExp(`replay ${id} interrupted`));
  }, 60_000);

  test("a stop that lands while a delivery's claim is in flight: the job is released and the release is logged", async () => {
    let claimed!: () => void;
    const released: string[] = [];
    const lines: string[] = [];
    const kind = {
      name: "replay",
      label: "replay",
      released: "interrupted",
      queue: { name: "q", policy: "short", expireInSeconds: 60 },
      leaseMs: 1000,
      cancel: "abort",
      // the claim succeeds in the database, but the worker sees it only after stop() began
      claim: (_db: unknown, id: string) => new Promise((r) => (claimed = () => r({ id }))),
      claimNext: async () => null,
      claimable: async () => [],
      renew: async () => ({ owned: true, cancel: false }),
      release: async (_db: unknown, id: string) => (released.push(id), true),
      sweep: async () => [],
      held: async () => [],
      run: async () => {
        throw new Error("a job claimed during stop must not run");
      },
    } as unknown as JobKind;
    const w = new JobWorker(kind, { db: h.db, workerId: "w-race", log: (l) => lines.push(l) });
    const delivered = w.process("job-1");
    await new Promise((r) => setTimeout(r, 10));
    const stopped = w.stop({ graceMs: 10 });
    claimed();
    expect(await delivered).toBe(false);
    await stopped;
    expect(released).toEqual(["job-1"]);
    expect(lines).toEqual(["replay job-1 interrupted (worker shut down before starting it) [w-race]"]);
  });

  test("the production worker (scripts/worker.ts) ignores SYMTRACE_WORKER_FAKE_EXECUTOR: the real executor runs the replay (issue 20 item 5)", async () => {
    const log = path.join(mkdtempSync(path.join(os.tmpdir(), "symtrace-jobs-")), "exec.log");
    const { child, stderr } = await spawnWorker({ SYMTRACE_WORKER_FAKE_EXECUTOR: "fast", SYMTRACE_FAKE_EXEC_LOG: log, SYMTRACE_WORKER_KIND: "replay" }, "scripts/worker.ts");
    expect(stderr()).not.toMatch(/fake|FAKE/);
    const [id] = await queue(1);
    const run = await waitFor("final", async () => {
      const r = await getRun(h.db, id);
      return r && !["queued", "running"].includes(r.status) ? r : null;
    }, 60_000, 100);
    // the fake would have logged the run and completed it in ~0.5 s with no error; the real one never writes that log
    expect(existsSync(log)).toBe(false);
    expect(run.workerId).toMatch(/^worker:/);
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }, 90_000);

  test.runIf(PG)(
    "PostgreSQL: two worker processes share a batch through pg-boss, each run executed once",
    async () => {
      const log = path.join(mkdtempSync(path.join(os.tmpdir(), "symtrace-jobs-")), "exec.log");
      const env = { SYMTRACE_WORKER_FAKE_EXECUTOR: "fast", SYMTRACE_FAKE_STEP_MS: "150", SYMTRACE_FAKE_EXEC_LOG: log };
      const [a, b] = await Promise.all([spawnWorker({ ...env, SYMTRACE_WORKER_ID: "pg-a" }), spawnWorker({ ...env, SYMTRACE_WORKER_ID: "pg-b" })]);
      const ids = [...(await queue(5)), ...(await queue(5))];
      expect(await enqueueJobs(h.db, "replay", ids, { url: h.url })).toBe(10);
      // a duplicate delivery is harmless
      await enqueueJobs(h.db, "replay", ids.slice(0, 3), { url: h.url });
      const runs = await waitFor(
        "all completed",
        async () => {
          const rs = await Promise.all(ids.map((id) => getRun(h.db, id)));
          return rs.every((r) => r && ["completed", "failed", "interrupted"].includes(r.status)) ? (rs as ReplayRunView[]) : null;
        },
        40_000,
        200,
      );
      expect(runs.map((r) => r.status)).toEqual(ids.map(() => "completed"));
      const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => l.split("\t"));
      expect(lines.map((l) => l[0]).sort()).toEqual(ids.map((id) => `jobs-source~replay-${id}`).sort());
      expect(new Set(lines.map((l) => l[1]))).toEqual(new Set(["pg-a", "pg-b"]));
      expect(new Set(runs.map((r) => r.workerId))).toEqual(new Set(["pg-a", "pg-b"]));
      const exits = [a, b].map(({ child }) => new Promise<number | null>((r) => child.once("exit", (code) => r(code))));
      a.child.kill("SIGTERM");
      b.child.kill("SIGTERM");
      expect(await Promise.all(exits)).toEqual([0, 0]);
    },
    90_000,
  );
});
