/**
 * Job kind "attribution" (lib/jobs/kinds/attribution.ts over lib/db/attribution-runs.ts), in
 * process on a fresh test database: a dead worker's job is taken over once its lease expired and
 * the dead worker's late result is not recorded; a job whose worker died three times is closed as
 * an error by the sweep and retried by the next start; a run reserved for a runner is invisible to
 * ordinary workers; the budget stops claims and a start with room continues; a stored case that
 * cannot be read is an error result; spending counts the endpoint's answers, not the cache; a
 * cancel stops claims while the running job finishes and counts, and a start resumes the run (also
 * under a foreground study, which then stops); the page's read functions. PostgreSQL only
 * (TEST_DATABASE_URL): the `--background` path, one pg-boss job per queued job, run by a
 * `npm run worker` process of kind attribution. Cases: two Hand-Crafted Who&When
 * files; the LLM is a labelled FAKE (fixed reply), never a model.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import type { AttributionLlm, LlmRequest } from "../attribution";
import { attributionRunResults, cancelAttributionRun, claimNextAttributionJob, finishAttributionJob, getAttributionRun, startAttributionRun, sweepAttributionJobs, type StartAttributionRunInput } from "../db/attribution-runs";
import { testDbPerFile } from "../db/test-db";
import { enqueueAttributionStudy, loadAttributionCases, planFor, runAttributionStudy } from "../services/attribution/study";
import { waitFor } from "../testing/wait-for";
import { spawnWorkerProcess } from "../testing/worker-process";
import { closeBoss } from "./backends";
import { ATTRIBUTION_QUEUE } from "./kinds/attribution";
import { attributionRunTable, listAttributionRuns } from "../services/attribution/runs";
import { countingLlm } from "./kinds/attribution";
import { createWorker } from "./kinds";

const h = testDbPerFile();
const PG = !!process.env.TEST_DATABASE_URL;
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (PG) await closeBoss(h.url);
});
const HC = path.resolve(__dirname, "../../../shared/datasets/who_and_when_full/Hand-Crafted");
const files = ["1.json", "2.json"].map((f) => path.join(HC, f));
const { cases } = loadAttributionCases(files);
const raws = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as { history: Array<{ role: string }>; mistake_step: string; mistake_agent: string });

/** FAKE model (test only): All-at-Once's reply format, step 1, 10 + 2 tokens; `cached` as told. */
function fakeLlm(cached: (r: LlmRequest) => boolean = () => false): AttributionLlm & { asked: number } {
  const llm = {
    model: "fake-test-model",
    asked: 0,
    async complete(r: LlmRequest) {
      llm.asked++;
      return { text: "Agent Name: Orchestrator\nStep Number: 1\nReason: fake", usage: { prompt: 10, completion: 2 }, cached: cached(r) };
    },
  };
  return llm;
}

const input = (name: string, o: Partial<StartAttributionRunInput> = {}): StartAttributionRunInput => ({
  name,
  model: null,
  upstream: null,
  protocol: "chat",
  seed: 7,
  plan: [{ attributor: "last", groundTruth: "n/a" }],
  dirs: [HC],
  cases,
  budget: { maxCalls: null, maxTokens: null },
  runner: `test-${name}`,
  ...o,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("attribution jobs on the job layer", () => {
  test("a dead worker's job is taken over after its lease expired (claims 2); the dead worker's late result is not recorded", async () => {
    const { run } = await startAttributionRun(h.db, input("takeover"));
    expect(run.progress).toMatchObject({ total: 2, queued: 2 });
    const deadLeaseMs = 1500;
    const deadUntil = Date.now() + deadLeaseMs;
    const dead = await claimNextAttributionJob(h.db, "dead-worker", deadLeaseMs, { runner: "test-takeover" });
    expect(dead).toMatchObject({ attributor: "last", claims: 1 });
    const worker = createWorker("attribution", { db: h.db, runner: "test-takeover", leaseMs: 10_000, log: () => {} });
    const other = await worker.runNext(); // the queued job first; the dead one's lease still runs
    expect(other).not.toBe(dead!.id);
    expect(await worker.runNext()).toBeNull();
    // wait past the lease the claim actually stored (set when the claim ran, which under load is
    // later than `deadUntil` computed before it)
    const lease = (await h.db.attributionJob.findUniqueOrThrow({ where: { id: dead!.id }, select: { leaseUntil: true } })).leaseUntil!.getTime();
    await sleep(Math.max(deadUntil, lease) - Date.now() + 100);
    expect(await worker.runNext()).toBe(dead!.id);
    const row = await h.db.attributionJob.findUniqueOrThrow({ where: { id: dead!.id } });
    expect(row).toMatchObject({ status: "done", claims: 2, workerId: worker.id });
    // the dead worker comes back with a result: refused, the taker's stays
    const late = await finishAttributionJob(h.db, dead!, "dead-worker", { attributor: "last", groundTruth: "n/a", caseId: "x", subset: "Hand-Crafted", reference: { agent: null, step: null }, status: "error", attribution: null, error: "late" }, { httpCalls: 0, tokens: 0 });
    expect(late.recorded).toBe(false);
    expect((await h.db.attributionJob.findUniqueOrThrow({ where: { id: dead!.id } })).status).toBe("done");
    expect(worker.counts).toEqual({ done: 2 });
    // Last = the last step: hand-computed from the raw files
    const t = (await attributionRunTable(h.db, "takeover"))!;
    const lastHits = raws.filter((r) => r.history.length - 1 === Number(r.mistake_step)).length;
    expect(t.rows).toHaveLength(1);
    expect(t.rows[0]).toMatchObject({ attributor: "last", subset: "Hand-Crafted", cases: 2, done: 2, step: { 0: { x: lastHits, n: 2 } } });
    expect(t.progress).toEqual({ finished: 2, failed: 0, total: 2 });
  });

  test("a job whose worker died three times is closed as an error by the sweep; the next start retries it", async () => {
    await startAttributionRun(h.db, input("thrice", { cases: cases.slice(0, 1) }));
    for (const owner of ["d1", "d2", "d3"]) {
      expect(await claimNextAttributionJob(h.db, owner, 1, { runner: "test-thrice" })).not.toBeNull();
      await sleep(10);
    }
    expect(await claimNextAttributionJob(h.db, "d4", 1, { runner: "test-thrice" })).toBeNull();
    const closed = await sweepAttributionJobs(h.db);
    expect(closed).toHaveLength(1);
    const job = await h.db.attributionJob.findUniqueOrThrow({ where: { id: closed[0] } });
    expect(job).toMatchObject({ status: "error", claims: 3 });
    expect(job.error).toMatch(/stopped reporting 3 times \(last: d3\)/);
    expect((await getAttributionRun(h.db, "thrice"))!.status).toBe("finished");
    const again = await startAttributionRun(h.db, input("thrice", { cases: cases.slice(0, 1) }));
    expect(again.jobs).toEqual({ total: 1, resumed: 0, retried: 1 });
    expect(again.run.status).toBe("running");
    const worker = createWorker("attribution", { db: h.db, runner: "test-thrice", log: () => {} });
    expect(await worker.runNext()).toBe(closed[0]);
    expect((await h.db.attributionJob.findUniqueOrThrow({ where: { id: closed[0] } })).status).toBe("done");
  });

  test("a run reserved for a runner is invisible to ordinary workers until a start leaves it to any worker", async () => {
    await startAttributionRun(h.db, input("reserved", { cases: cases.slice(0, 1), runner: "cli-somewhere" }));
    const ordinary = createWorker("attribution", { db: h.db, log: () => {} });
    expect(await ordinary.runNext()).toBeNull();
    await startAttributionRun(h.db, input("reserved", { cases: cases.slice(0, 1), runner: null }));
    expect(await ordinary.runNext()).not.toBeNull();
    expect(await ordinary.runNext()).toBeNull();
  });

  test("the budget stops claims at the run's cap; a start with room continues; only the endpoint's answers are spent", async () => {
    const llm = fakeLlm();
    const plan = [{ attributor: "all-at-once" as const, groundTruth: "with" as const }];
    const start = (maxCalls: number) => startAttributionRun(h.db, input("budget", { model: "fake-test-model", upstream: "http://fake.invalid/v1", plan, budget: { maxCalls, maxTokens: null } }));
    await start(1);
    const worker = createWorker("attribution", { db: h.db, llm, runner: "test-budget", log: () => {} });
    expect(await worker.runNext()).not.toBeNull();
    expect(await worker.runNext()).toBeNull();
    expect(await getAttributionRun(h.db, "budget")).toMatchObject({ status: "budget-exhausted", spent: { httpCalls: 1, tokens: 12 }, progress: { done: 1, queued: 1 } });
    expect(worker.counts).toEqual({ done: 1, "budget-exhausted": 1 });
    const again = await start(2);
    expect(again.run.status).toBe("running");
    expect(again.jobs).toEqual({ total: 2, resumed: 1, retried: 0 });
    expect(await worker.runNext()).not.toBeNull();
    expect(llm.asked).toBe(2);
    // the second job reached the cap of 2 and was the last: budget-exhausted until a sweep or wait finishes it
    await sweepAttributionJobs(h.db);
    expect(await getAttributionRun(h.db, "budget")).toMatchObject({ status: "finished", spent: { httpCalls: 2, tokens: 24 }, progress: { done: 2, queued: 0 } });
  });

  test("a stored case that cannot be read is an error result of its job, with the case's label", async () => {
    const { run } = await startAttributionRun(h.db, input("unreadable", { cases: cases.slice(0, 1) }));
    await h.db.attributionRunCase.updateMany({ where: { runId: run.id }, data: { bundleJson: "{}" } });
    const worker = createWorker("attribution", { db: h.db, runner: "test-unreadable", log: () => {} });
    const id = await worker.runNext();
    const job = await h.db.attributionJob.findUniqueOrThrow({ where: { id: id! } });
    expect(job.status).toBe("error");
    expect(job.error).toMatch(/^the stored case cannot be read: /);
    expect(JSON.parse(job.resultJson!)).toMatchObject({ status: "error", caseId: cases[0].caseId, subset: "Hand-Crafted", reference: cases[0].reference });
    expect(worker.counts).toEqual({ error: 1 });
  });

  test("countingLlm counts what the endpoint answered, not what the cache did", async () => {
    const c = countingLlm(fakeLlm((r) => r.messages[0].content === "cached"));
    const ask = (content: string) => c.complete({ model: "m", temperature: 0, messages: [{ role: "user", content }] });
    await ask("cached");
    await ask("fresh");
    await ask("fresh");
    expect(c.spent).toEqual({ httpCalls: 2, tokens: 24 });
  });

  test("cancel: no claim any more, the running job finishes and counts, the queued one is 'not run: cancelled'; the sweep leaves it cancelled; a start resumes it", async () => {
    await startAttributionRun(h.db, input("cancel"));
    const held = await claimNextAttributionJob(h.db, "w-cancel", 30_000, { runner: "test-cancel" });
    expect(held).not.toBeNull();
    const c = await cancelAttributionRun(h.db, "cancel", { actorId: null });
    expect(c.cancelled).toBe(true);
    expect(c.run).toMatchObject({ status: "cancelled", progress: { total: 2, running: 1, queued: 1, done: 0 } });
    const audit = await h.db.auditEvent.findMany({ where: { action: "attribution.cancel", entityId: c.run.id } });
    expect(audit.map((a) => JSON.parse(a.dataJson!))).toEqual([{ name: "cancel", was: "running", progress: { total: 2, queued: 1, running: 1, done: 0, error: 0 } }]);
    const worker = createWorker("attribution", { db: h.db, runner: "test-cancel", log: () => {} });
    expect(await worker.runNext()).toBeNull();
    // the job that was running when the run was cancelled is recorded by its holder
    const result = { attributor: "last" as const, groundTruth: "n/a" as const, caseId: cases[0].caseId, subset: cases[0].subset, reference: cases[0].reference, status: "done" as const, attribution: { agent: "X", step: 1, reason: "test", calls: 0, httpCalls: 0, tokens: { prompt: 0, completion: 0 }, parseError: null }, error: null };
    expect((await finishAttributionJob(h.db, held!, "w-cancel", result, { httpCalls: 0, tokens: 0 })).recorded).toBe(true);
    await sweepAttributionJobs(h.db);
    const after = await getAttributionRun(h.db, "cancel");
    expect(after).toMatchObject({ status: "cancelled", progress: { done: 1, queued: 1, running: 0 } });
    expect((await attributionRunResults(h.db, after!.id)).map((r) => [r.status, r.error])).toEqual([
      ["done", null],
      ["not-run", "cancelled"],
    ]);
    expect((await cancelAttributionRun(h.db, "cancel")).cancelled).toBe(false);
    await expect(cancelAttributionRun(h.db, "no-such-run")).rejects.toMatchObject({ code: "not-found", at: "name" });
    const again = await startAttributionRun(h.db, input("cancel"));
    expect(again.run.status).toBe("running");
    expect(again.jobs).toEqual({ total: 2, resumed: 1, retried: 0 });
    expect(await worker.runNext()).not.toBeNull();
    expect(await worker.runNext()).toBeNull();
    await sweepAttributionJobs(h.db);
    expect(await getAttributionRun(h.db, "cancel")).toMatchObject({ status: "finished", progress: { done: 2, queued: 0 } });
    expect((await cancelAttributionRun(h.db, "cancel")).cancelled).toBe(false);
  });

  test("a foreground study whose run a user cancels stops once its running job is recorded, and says so", async () => {
    const llm = fakeLlm();
    const complete = llm.complete.bind(llm);
    let cancelledDuring = false;
    llm.complete = async (r: LlmRequest) => {
      if (!cancelledDuring) cancelledDuring = (await cancelAttributionRun(h.db, "foreground-cancel")).cancelled;
      return complete(r);
    };
    const report = await runAttributionStudy({
      db: h.db,
      name: "foreground-cancel",
      cases,
      plan: [{ attributor: "all-at-once", groundTruth: "with" }],
      llm,
      endpoint: { upstream: "http://fake.invalid/v1", model: "fake-test-model", protocol: "chat" },
      seed: 7,
      concurrency: 1,
      log: () => {},
    });
    expect(cancelledDuring).toBe(true);
    expect(report.cancelled).toBe(true);
    expect(report.budgetStopped).toBe(false);
    expect(report.run.status).toBe("cancelled");
    expect(report.jobs).toEqual({ total: 2, resumed: 0, ran: 1, errors: 0, notRun: 1 });
    expect(report.spent).toEqual({ httpCalls: 1, tokens: 12 });
    expect(llm.asked).toBe(1);
  });

  test.runIf(PG)(
    "PostgreSQL: --background's path sends one pg-boss job per queued job, and a worker process of kind attribution runs them all",
    async () => {
      const was = process.env.DATABASE_URL;
      process.env.DATABASE_URL = h.url; // where enqueueAttributionStudy sends (as the CLI and the app: their DATABASE_URL)
      let q: Awaited<ReturnType<typeof enqueueAttributionStudy>>;
      try {
        q = await enqueueAttributionStudy({ db: h.db, name: "pg-background", cases, plan: planFor(["last", "random"]), endpoint: null, seed: 7, dirs: [HC] });
      } finally {
        if (was === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = was;
      }
      expect(q.enqueued).toBe(4);
      expect(q.run).toMatchObject({ status: "running", runner: null, progress: { total: 4, queued: 4 } });
      const client = new pg.Client({ connectionString: h.url });
      await client.connect();
      try {
        const sent = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1", [ATTRIBUTION_QUEUE]);
        expect(sent.rows[0].n).toBe(4);
        const w = await spawnWorkerProcess({ env: { DATABASE_URL: h.url, SYMTRACE_WORKER_ID: "pg-attribution", SYMTRACE_WORKER_KIND: "attribution" }, ready: [/attribution worker pg-attribution started \(postgresql, pg-boss/], track: children });
        const run = await waitFor("the run finished by the worker process", async () => {
          const r = await getAttributionRun(h.db, "pg-background");
          return r && r.status === "finished" ? r : null;
        }, 60_000, 200).catch((e) => {
          throw new Error(`${(e as Error).message}; worker: ${w.stderr().slice(-1500)}`);
        });
        expect(run.progress).toEqual({ total: 4, queued: 0, running: 0, done: 4, error: 0 });
        const jobs = await h.db.attributionJob.findMany({ where: { runId: run.id }, select: { workerId: true, claims: true } });
        expect(jobs.map((j) => [j.workerId, j.claims])).toEqual(jobs.map(() => ["pg-attribution", 1]));
        // pg-boss marks its job completed after the handler returned, so possibly after the run finished
        const completed = await waitFor("pg-boss to mark the 4 jobs completed", async () => {
          const n = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'", [ATTRIBUTION_QUEUE])).rows[0].n;
          return n >= 4 ? n : null;
        }, 15_000, 100);
        expect(completed).toBeGreaterThanOrEqual(4);
        const exit = new Promise<number | null>((r) => w.child.once("exit", (code) => r(code)));
        w.child.kill("SIGTERM");
        expect(await exit).toBe(0);
      } finally {
        await client.end();
      }
    },
    90_000,
  );

  test("the page's runs: listed by name with progress; an unknown or malformed name has no table", async () => {
    const names = (await listAttributionRuns(h.db)).map((r) => [r.name, r.progress.done, r.progress.total]);
    expect(names).toEqual([["budget", 2, 2], ["cancel", 2, 2], ["foreground-cancel", 1, 2], ...(PG ? [["pg-background", 4, 4]] : []), ["reserved", 1, 1], ["takeover", 2, 2], ["thrice", 1, 1], ["unreadable", 0, 1]]);
    expect(await attributionRunTable(h.db, "nope")).toBeNull();
    expect(await attributionRunTable(h.db, "../etc")).toBeNull();
  });
});
