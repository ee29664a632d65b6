/**
 * The whole Who&When benchmark (184 files) through `symtrace detect --eval --attribution` against a
 * local **scripted** OpenAI-compatible server (lib/testing/scripted-openai.ts; model id
 * "scripted-model"): every figure of the table is recomputed here from the raw files and the
 * server's recorded requests; a rerun asks nothing (call cache + done jobs in the database); the
 * budget stops the run and a rerun with room resumes; a job whose endpoint call failed is retried
 * by the next start while done ones are not. The run lives in a fresh SQLite database
 * (DATABASE_URL) and its jobs run on the job layer (lib/jobs kind "attribution", an in-process
 * worker of the CLI). Prints the elapsed time; the whole table must finish within two minutes
 * (issue 24 "Done when"): the test's timeout is 120 s.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { attributionCommand } from "../../../cli/detect-attribution";
import { getAttributionRun, openDb } from "../../db";
import { agentMatches, TOLERANCES, type TableRow } from "../../attribution";
import { scriptedAttributionReply } from "../../testing/scripted-attribution";
import { startScriptedOpenAI, type ScriptedOpenAI } from "../../testing/scripted-openai";

const ROOT = path.resolve(__dirname, "../../../../shared/datasets/who_and_when_full");
type Raw = { question: string; history: Array<{ role: string; name?: string; content: string }>; mistake_step: string; mistake_agent: string };
const raws = (["Hand-Crafted", "Algorithm-Generated"] as const).flatMap((subset) =>
  readdirSync(path.join(ROOT, subset))
    .filter((f) => f.endsWith(".json"))
    .map((f) => ({ subset, raw: JSON.parse(readFileSync(path.join(ROOT, subset, f), "utf8")) as Raw })),
);
const who = (subset: string, m: { role: string; name?: string }) => (subset === "Hand-Crafted" ? m.role : (m.name ?? m.role));

/** While set, a request whose prompt contains this text fails (HTTP 500): an endpoint failure. */
let failOn: string | null = null;
const respond = (q: Parameters<typeof scriptedAttributionReply>[0]) => {
  if (failOn && JSON.stringify(q.messages).includes(failOn)) throw new Error("scripted failure");
  return scriptedAttributionReply(q);
};

let server: ScriptedOpenAI;
let dir: string;
const env = { ...process.env };
beforeAll(async () => {
  server = await startScriptedOpenAI({ respond });
  dir = mkdtempSync(path.join(tmpdir(), "attribution-"));
  process.env.SYMTRACE_ATTRIBUTION_UPSTREAM = server.url;
  process.env.SYMTRACE_ATTRIBUTION_MODEL = "scripted-model";
  process.env.SYMTRACE_ATTRIBUTION_CACHE_DIR = path.join(dir, "cache");
  process.env.DATABASE_URL = "file:" + path.join(dir, "attribution.db");
});
/** The run as stored (status, budget, spent, progress). */
async function stored(name: string) {
  const h = openDb(process.env.DATABASE_URL);
  try {
    return await getAttributionRun(h.db, name);
  } finally {
    await h.db.$disconnect();
  }
}
afterAll(async () => {
  process.env = env;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

type Out = { run: string; status: string; rows: TableRow[]; jobs: { total: number; resumed: number; ran: number; errors: number; notRun: number }; spent: { httpCalls: number; tokens: number }; text: string[]; cases: Record<string, number>; labelWarnings: unknown[]; endpoint: { model: string } };

describe("the 184-case table on the scripted endpoint", () => {
  let first: Out;
  test("runs every job and every figure matches the hand computation", async () => {
    const t0 = Date.now();
    const cpu0 = process.cpuUsage();
    const r = await attributionCommand(["--dir", ROOT, "--run", "run", "--concurrency", "16", "--csv", path.join(dir, "table.csv")]);
    const cpu = process.cpuUsage(cpu0);
    console.log(`attribution table, 184 cases, 7 attributors (scripted endpoint): wall ${Date.now() - t0} ms, CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms (this process, server included), ${server.requests.length} HTTP calls`);
    expect(r.code).toBe(0);
    first = r.output as Out;
    expect(first.endpoint.model).toBe("scripted-model");
    expect(first).toMatchObject({ run: "run", status: "finished" });
    expect(first.cases).toEqual({ "Hand-Crafted": 58, "Algorithm-Generated": 126 });
    expect(first.labelWarnings).toHaveLength(5);
    // plan: random, last, rules (n/a) + rules+judge (n/a) + 3 paper methods × with/without = 10 settings × 184
    expect(first.jobs).toEqual({ total: 1840, resumed: 0, ran: 1840, errors: 0, notRun: 0 });
    const row = (a: string, g: string, s: string) => first.rows.find((x) => x.attributor === a && x.groundTruth === g && x.subset === s)!;
    expect(first.rows).toHaveLength(20);
    for (const subset of ["Hand-Crafted", "Algorithm-Generated"] as const) {
      const mine = raws.filter((x) => x.subset === subset);
      const hits = (pred: (r: Raw) => number | null, k: number) => mine.filter(({ raw }) => pred(raw) !== null && Math.abs(pred(raw)! - Number(raw.mistake_step)) <= k).length;
      const agentHits = (i: (r: Raw) => number | null) => mine.filter(({ raw }) => i(raw) !== null && agentMatches(who(subset, raw.history[i(raw)!]), raw.mistake_agent)).length;
      const expectRow = (a: string, g: string, step: (r: Raw) => number | null, calls: (r: Raw) => number) => {
        const x = row(a, g, subset);
        expect(x.done).toBe(mine.length);
        expect(x.agent.x).toBe(agentHits(step));
        for (const k of TOLERANCES) expect(x.step[k].x).toBe(hits(step, k));
        expect(x.calls).toBe(mine.reduce((s, { raw }) => s + calls(raw), 0));
      };
      for (const g of ["with", "without"]) {
        expectRow("all-at-once", g, () => 1, () => 1);
        expectRow("step-by-step", g, (r) => (r.history.length > 2 ? 2 : null), (r) => Math.min(3, r.history.length));
        expectRow("binary-search", g, () => 0, (r) => Math.ceil(Math.log2(r.history.length)));
      }
      expectRow("last", "n/a", (r) => r.history.length - 1, () => 0);
      // the judge rejected every category: no eligible node, no answer
      expect(row("rules+judge", "n/a", subset)).toMatchObject({ done: mine.length, agent: { x: 0 }, step: { 5: { x: 0 } } });
    }
    // tokens: the scripted server's usage, ceil(len(JSON messages)/4) + ceil(len(reply)/4), summed over its requests
    const serverTokens = server.requests.reduce((s, q) => s + Math.max(1, Math.ceil(JSON.stringify(q.messages).length / 4)) + Math.max(1, Math.ceil(respond(q).content.length / 4)), 0);
    expect(first.rows.reduce((s, x) => s + x.tokens, 0)).toBe(serverTokens);
    expect(first.spent).toEqual({ httpCalls: server.requests.length, tokens: serverTokens });
    expect(first.rows.reduce((s, x) => s + x.httpCalls, 0)).toBe(server.requests.length);
    expect(first.text[0]).toMatch(/^attributor +\| GT +\| subset/);
    const csv = readFileSync(path.join(dir, "table.csv"), "utf8").split("\r\n");
    expect(csv).toHaveLength(22);
    // the database holds the run: every job done, the spending the budget counts
    expect(await stored("run")).toMatchObject({ status: "finished", progress: { total: 1840, done: 1840, error: 0, queued: 0, running: 0 }, spent: { httpCalls: server.requests.length, tokens: serverTokens } });
  }, 120_000);

  test("a rerun resumes every job and sends no request", async () => {
    const before = server.requests.length;
    const r = await attributionCommand(["--dir", ROOT, "--run", "run"]);
    expect(server.requests.length).toBe(before);
    expect((r.output as Out).jobs).toMatchObject({ resumed: 1840, ran: 0 });
    expect((r.output as Out).rows).toEqual(first.rows);
  }, 60_000);

  test("a new run re-asks nothing either: every call is in the cache", async () => {
    const before = server.requests.length;
    const r = await attributionCommand(["--dir", path.join(ROOT, "Algorithm-Generated"), "--methods", "all-at-once", "--ground-truth", "with", "--run", "run2"]);
    expect(server.requests.length).toBe(before);
    const o = r.output as Out & { cache: { httpCalls: number; cacheHits: number } };
    expect(o.cache).toEqual({ httpCalls: 0, cacheHits: 126 });
    expect(o.rows.map((x) => x.tokens)).toEqual([first.rows.find((x) => x.attributor === "all-at-once" && x.groundTruth === "with" && x.subset === "Algorithm-Generated")!.tokens]);
  }, 60_000);

  test("the budget stops the run (exit 3); a rerun with room resumes without repeating", async () => {
    process.env.SYMTRACE_ATTRIBUTION_CACHE_DIR = path.join(dir, "cache-budget");
    const args = ["--dir", path.join(ROOT, "Hand-Crafted"), "--methods", "all-at-once", "--ground-truth", "without", "--run", "run3", "--concurrency", "1"];
    const before = server.requests.length;
    const r = await attributionCommand([...args, "--max-calls", "5"]);
    expect(r.code).toBe(3);
    expect((r.output as Out).jobs).toMatchObject({ ran: 5, notRun: 53 });
    expect((r.output as Out).rows[0]).toMatchObject({ cases: 58, done: 5, notRun: 53 });
    expect(await stored("run3")).toMatchObject({ status: "budget-exhausted", budget: { maxCalls: 5 }, spent: { httpCalls: 5 }, progress: { done: 5, queued: 53 } });
    // the cap is the run's: the same cap again starts nothing
    const again = await attributionCommand([...args, "--max-calls", "5"]);
    expect(again.code).toBe(3);
    expect((again.output as Out).jobs).toMatchObject({ resumed: 5, ran: 0, notRun: 53 });
    expect(server.requests.length - before).toBe(5);
    const r2 = await attributionCommand(args);
    expect(r2.code).toBe(0);
    expect((r2.output as Out).jobs).toMatchObject({ resumed: 5, ran: 53 });
    expect(server.requests.length - before).toBe(58);
    expect(await stored("run3")).toMatchObject({ status: "finished", spent: { httpCalls: 58 }, progress: { done: 58, queued: 0 } });
  }, 60_000);

  test("a job whose endpoint call failed is an error, retried by the next start; done jobs are not re-run", async () => {
    process.env.SYMTRACE_ATTRIBUTION_CACHE_DIR = path.join(dir, "cache-errors");
    const files = ["1.json", "2.json", "3.json"].map((f) => path.join(ROOT, "Hand-Crafted", f));
    const second = JSON.parse(readFileSync(files[1], "utf8")) as Raw;
    const args = [...files.flatMap((f) => ["--dir", f]), "--methods", "all-at-once", "--ground-truth", "with", "--run", "run-errors", "--concurrency", "1"];
    failOn = second.question.slice(0, 40);
    const before = server.requests.length;
    const r = await attributionCommand(args);
    failOn = null;
    expect(r.code).toBe(0);
    expect((r.output as Out).jobs).toEqual({ total: 3, resumed: 0, ran: 2, errors: 1, notRun: 0 });
    expect((r.output as Out).rows[0]).toMatchObject({ cases: 3, done: 2, errors: 1 });
    const failedCalls = server.requests.length - before - 2; // the SDK's retries of the failing call
    expect(failedCalls).toBeGreaterThanOrEqual(1);
    const r2 = await attributionCommand(args);
    expect((r2.output as Out).jobs).toEqual({ total: 3, resumed: 2, ran: 1, errors: 0, notRun: 0 });
    expect(server.requests.length - before - 2 - failedCalls).toBe(1);
    expect((r2.output as Out).rows[0]).toMatchObject({ cases: 3, done: 3, errors: 0 });
  }, 60_000);

  test("an LLM method without an endpoint is refused", async () => {
    delete process.env.SYMTRACE_ATTRIBUTION_UPSTREAM;
    const saved = process.env.SYMTRACE_JUDGE_UPSTREAM;
    delete process.env.SYMTRACE_JUDGE_UPSTREAM;
    const r = await attributionCommand(["--dir", ROOT, "--methods", "binary-search", "--run", "run4"]);
    expect(r.code).toBe(1);
    expect(JSON.stringify(r.output)).toMatch(/binary-search need an endpoint/);
    if (saved !== undefined) process.env.SYMTRACE_JUDGE_UPSTREAM = saved;
    process.env.SYMTRACE_ATTRIBUTION_UPSTREAM = server.url;
  });
});
