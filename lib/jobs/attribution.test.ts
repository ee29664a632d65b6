/**
 * Job kind "attribution" (lib/jobs/kinds/attribution.ts over lib/db/attribution-runs.ts), in
 * process on a fresh test database: a dead worker's job is taken over once its lease expired and
 * the dead worker's late result is not recorded; a job whose worker died three times is closed as
 * an error by the sweep and retried by the next start; a run reserved for a runner is invisible to
 * ordinary workers; the budget stops claims and a start with room continues; a stored case that
 * cannot be read is an error result; spending counts the endpoint's answers, not the cache; the
 * page's read functions. Cases: two Hand-Crafted Who&When
 * files; the LLM is a labelled FAKE (fixed reply), never a model.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { AttributionLlm, LlmRequest } from "../attribution";
import { claimNextAttributionJob, finishAttributionJob, getAttributionRun, startAttributionRun, sweepAttributionJobs, type StartAttributionRunInput } from "../db/attribution-runs";
import { testDbPerFile } from "../db/test-db";
import { loadAttributionCases } from "../services/attribution/study";
import { attributionRunTable, listAttributionRuns } from "../services/attribution/runs";
import { countingLlm } from "./kinds/attribution";
import { createWorker } from "./kinds";

const h = testDbPerFile();
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
    await sleep(deadUntil - Date.now() + 100);
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

  test("the page's runs: listed by name with progress; an unknown or malformed name has no table", async () => {
    const names = (await listAttributionRuns(h.db)).map((r) => [r.name, r.progress.done, r.progress.total]);
    expect(names).toEqual([["budget", 2, 2], ["reserved", 1, 1], ["takeover", 2, 2], ["thrice", 1, 1], ["unreadable", 0, 1]]);
    expect(await attributionRunTable(h.db, "nope")).toBeNull();
    expect(await attributionRunTable(h.db, "../etc")).toBeNull();
  });
});
