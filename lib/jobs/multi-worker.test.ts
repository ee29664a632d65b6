/**
 * Issue 23 item 1: on PostgreSQL, N worker processes share the work of every job kind. Three
 * worker processes (scripts/worker.ts through the test harness lib/testing/fake-worker.ts: FAKE
 * experiment methods, stamped; repair searches on the calibrated world with the LOCAL scripted
 * selector/judge of lib/testing/scripted-mars.ts — no real model) take one experiment and one
 * repair search through pg-boss; the one holding the search is SIGKILLed mid-job. Every attempt
 * is recorded exactly once, the killed worker's attempt and search are taken over (claims 2), and
 * every search iteration is saved exactly once. PostgreSQL only (TEST_DATABASE_URL).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../bundle";
import { importCase } from "../db/cases";
import type { DbHandle } from "../db/client";
import { createExperiment, getExperiment, listExperimentAttempts, type ExperimentView } from "../db/experiments";
import { createRepairSearch, getRepairSearch, type RepairSearchView } from "../db/repair-searches";
import { freshTestDb } from "../db/test-db";
import { DEFAULT_SETTINGS } from "../repair-search";
import { buildCalibratedMas } from "../testing/calibrated/fast-mas";
import { recordCalibratedFailures } from "../testing/calibrated/record";
import { startCalibratedWorld, type CalibratedWorld } from "../testing/calibrated/world";
import { startScriptedMarsControl } from "../testing/scripted-mars";
import type { ScriptedOpenAI } from "../testing/scripted-openai";
import { closeBoss, enqueueJobs } from "./backends";
import type { ExperimentSettings } from "../services/experiments/methods/types";
import { enqueueExperiment } from "./kinds/experiment-attempt";
import { waitFor as waitForCondition } from "../testing/wait-for";
import { spawnWorkerProcess } from "../testing/worker-process";

const PG = !!process.env.TEST_DATABASE_URL;
let h: DbHandle;
let recordWorld: CalibratedWorld;
let live: CalibratedWorld;
let control: ScriptedOpenAI;
let dir: string;
let command: string[];
let sourceCaseId: string;
const caseIds: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!PG) return;
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-multi-"));
  command = buildCalibratedMas(dir);
  h = await freshTestDb();
  recordWorld = await startCalibratedWorld({ seed: 13, session: "record" });
  live = await startCalibratedWorld({ seed: 13, session: "live" });
  control = await startScriptedMarsControl();
  const [failure] = (await recordCalibratedFailures(recordWorld, { count: 1, command })).failures;
  sourceCaseId = (await importCase(h.db, { bundle: failure.bundle })).caseId;
  for (let i = 0; i < 6; i++) caseIds.push((await importCase(h.db, { bundle: syntheticBundle({ id: `mw-${i}`, turns: 2, seed: 5 * i + 2 }) })).caseId);
}, 240_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  if (PG && h) await closeBoss(h.url);
  await h?.db.$disconnect();
  await recordWorld?.stop();
  await live?.stop();
  await control?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** multi-worker.test.ts's default wait: 120_000 ms, probing every 100 ms. */
const waitFor = <T,>(what: string, f: () => Promise<T | null | undefined | false>, timeoutMs = 120_000, everyMs = 100) => waitForCondition(what, f, timeoutMs, everyMs);

/** The worker process (test harness: fake experiment methods injected), attempts and searches. */
function spawnWorker(id: string): Promise<{ id: string; child: ChildProcess; stderr: () => string }> {
  return spawnWorkerProcess({ script: "lib/testing/fake-worker.ts", env: { DATABASE_URL: h.url,
    SYMTRACE_WORKER_ID: id,
    SYMTRACE_WORKER_KIND: "experiment-attempt,repair-search",
    SYMTRACE_FAKE_STEP_MS: "150",
    SYMTRACE_FAKE_STEPS: "4",
    SYMTRACE_WORKER_LEASE_MS: "3000",
    SYMTRACE_WORKER_POLL_MS: "100",
    SYMTRACE_OTLP_ASSEMBLER: "0",
  }, ready: [/experiment worker .* started/, /repair-search worker .* started/], track: children }).then((w) => ({ id, ...w }));
}

/** Attempt ids a worker's stderr says it recorded. */
const recordedIds = (stderr: string) => [...stderr.matchAll(/^attempt (\S+) \(\S+ #\d+\) (passed|failed|error|skipped|cancelled) calls=/gm)].map((m) => m[1]);
/** Iteration numbers a worker's stderr says it ran and saved for one search. */
const loggedIterations = (stderr: string, id: string) => [...stderr.matchAll(new RegExp(`^repair-search ${id} iteration (\\d+) node `, "gm"))].map((m) => Number(m[1]));

const experimentSettings: ExperimentSettings = {
  upstream: "http://127.0.0.1:9/v1",
  toolUpstream: null,
  model: null,
  evaluator: null,
  reproductionJudge: null,
  command: ["node", "mas.js"],
  seed: 23,
  attempts: 2,
  budget: { maxCalls: null, maxTokens: null },
  timeoutMs: 60_000,
};

describe.runIf(PG)("lib/jobs: three worker processes on PostgreSQL share an experiment and a repair search", () => {
  test(
    "one worker SIGKILLed mid-job: every attempt done exactly once, its attempt and its search taken over",
    async () => {
      const N = 5;
      // one after the other: fresh processes creating pg-boss's schema at once can deadlock
      const workers = [await spawnWorker("mw-a"), await spawnWorker("mw-b"), await spawnWorker("mw-c")];
      const methods = ["rerun", "suspicious-node", "random-node"];
      const e = await createExperiment(h.db, { settings: experimentSettings, methods, caseIds, caseSet: { kind: "list" } });
      const s = await createRepairSearch(h.db, {
        sourceCaseId,
        settings: {
          upstream: live.upstream,
          toolUpstream: live.toolUpstream,
          model: null,
          selector: { upstream: control.url, model: "scripted-model" },
          judge: { kind: "llm", upstream: control.url, model: "scripted-model" },
          evaluator: null,
          search: { ...DEFAULT_SETTINGS, k: 2, l: 2, iterations: N },
          seed: 5,
          maxCalls: null,
          maxTokens: null,
          command,
        },
      });
      expect(await enqueueExperiment(h.db, e.id, { url: h.url })).toBeGreaterThan(0);
      expect(await enqueueJobs(h.db, "repair-search", [s.id], { url: h.url })).toBe(1);

      // the victim: the worker holding the search once it has saved an iteration, while it also runs an attempt
      const { victim, atKill } = await waitFor("the search's worker mid-search and mid-attempt", async () => {
        const v = await getRepairSearch(h.db, s.id);
        if (!v || v.status !== "running" || (v.state?.iteration ?? 0) < 1 || (v.state?.iteration ?? 0) >= N - 1) return null;
        const running = (await listExperimentAttempts(h.db, e.id, { status: "running" })).filter((r) => r.leaseOwner === v.workerId);
        const w = workers.find((x) => x.id === v.workerId);
        return w && running.length > 0 ? { victim: w, atKill: v } : null;
      });
      victim.child.kill("SIGKILL");
      await new Promise((r) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? r(null) : victim.child.once("exit", r)));
      // The attempts the victim held when it died, read after its death (the lease is 3 s, so no
      // survivor has taken them yet): one it handed off while finishing may have been recorded
      // between the snapshot above and the kill.
      const orphans = (await listExperimentAttempts(h.db, e.id, { status: "running" })).filter((r) => r.leaseOwner === victim.id).map((r) => r.id);
      expect(orphans.length, "attempts the victim held when killed").toBeGreaterThan(0);
      const k = (await getRepairSearch(h.db, s.id))!.state!.iteration;
      expect(k).toBeGreaterThanOrEqual(atKill.state!.iteration);
      const survivors = workers.filter((w) => w !== victim);

      const done = await waitFor<ExperimentView>("the experiment to end", async () => {
        const v = await getExperiment(h.db, e.id);
        return v && ["finished", "cancelled", "budget-exhausted"].includes(v.status) ? v : null;
      });
      const search = await waitFor<RepairSearchView>("the search to end", async () => {
        const v = await getRepairSearch(h.db, s.id);
        return v && ["completed", "failed", "cancelled", "interrupted"].includes(v.status) ? v : null;
      }, 180_000);

      // the experiment: every (case, method, attempt) once, each recorded by exactly one worker
      expect(done.status).toBe("finished");
      const rows = await listExperimentAttempts(h.db, e.id);
      const keys = rows.map((r) => `${r.caseBundleId}|${r.method}|${r.attempt}`);
      expect(new Set(keys).size).toBe(keys.length);
      for (const r of rows) expect(["passed", "failed"]).toContain(r.status);
      const recorded = workers.flatMap((w) => recordedIds(w.stderr()));
      expect(recorded.sort()).toEqual(rows.map((r) => r.id).sort());
      // the survivors shared the work (the victim may be killed before it records one: it holds the
      // search and an attempt from early on; on an idle CI machine it recorded none)
      for (const w of survivors) expect(recordedIds(w.stderr()).length, w.id).toBeGreaterThan(0);
      // the victim's running attempts were taken over by a survivor (second claim) and recorded there
      for (const id of orphans) {
        const r = rows.find((x) => x.id === id)!;
        expect(r.claims, id).toBe(2);
        expect(survivors.map((w) => w.id)).toContain(r.leaseOwner);
        expect(recordedIds(victim.stderr())).not.toContain(id);
      }
      expect(done.progress.used.calls).toBe(3 * rows.length);

      // the search: taken over once by a survivor, resumed from the saved iteration; each iteration saved once
      expect(search).toMatchObject({ status: "completed", stopped: "iterations", claims: 2 });
      expect(survivors.map((w) => w.id)).toContain(search.workerId);
      expect(search.state!.order).toEqual(Array.from({ length: N + 1 }, (_, i) => `n${i}`));
      const taker = survivors.find((w) => w.id === search.workerId)!;
      expect(taker.stderr()).toContain(`repair-search ${s.id} resumed at iteration ${k} (${k + 1} nodes)`);
      // Each iteration ran once (the saved tree above has one node per iteration): the survivors
      // logged exactly k+1..N; the victim logged 1..k, or 1..k-1 when the SIGKILL landed after it
      // saved iteration k and before it wrote that iteration's log line (save, then log).
      const survivorIterations = survivors.flatMap((w) => loggedIterations(w.stderr(), s.id)).sort((a, b) => a - b);
      expect(survivorIterations).toEqual(Array.from({ length: N - k }, (_, i) => k + 1 + i));
      const victimIterations = loggedIterations(victim.stderr(), s.id);
      expect([k - 1, k]).toContain(victimIterations.length);
      expect(victimIterations).toEqual(Array.from({ length: victimIterations.length }, (_, i) => i + 1));
      expect(search.usage.judge.calls).toBe(N);

      for (const w of survivors) {
        const exit = new Promise<number | null>((r) => w.child.once("exit", (code) => r(code)));
        w.child.kill("SIGTERM");
        expect(await exit).toBe(0);
      }
    },
    400_000,
  );
});
