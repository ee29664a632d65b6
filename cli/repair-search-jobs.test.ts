/**
 * `symtrace repair-search start | show` argument handling on a fresh SQLite database (no worker, no
 * model). The full flow (start → a worker runs it → show) is in lib/jobs/repair-search.test.ts on the
 * calibrated world.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { syntheticBundle } from "../lib/bundle";
import { importCase } from "../lib/db/cases";
import type { DbHandle } from "../lib/db/client";
import { getRepairSearch } from "../lib/db/repair-searches";
import { freshTestDb } from "../lib/db/test-db";
import { repairSearchCommand } from "./repair-search";
import { repairSearchJobCommand } from "./repair-search-jobs";

let h: DbHandle;
let caseId: string;
beforeAll(async () => {
  h = await freshTestDb();
  caseId = (await importCase(h.db, { bundle: syntheticBundle({ id: "rs-cli", turns: 2 }) })).caseId;
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

const messageOf = (r: { output: unknown }) => (r.output as { errors: Array<{ message: string; path: string }> }).errors[0];

test("start queues a job (flags over the environment; the command after --); show prints it; bad usage / input are named", async () => {
  const env = { SYMTRACE_REPLAY_UPSTREAM: "http://127.0.0.1:9/v1", SYMTRACE_SEARCH_JUDGE_CMD: "node judge.mjs" };
  const r = await repairSearchJobCommand(["start", "--case", "rs-cli", "--iterations", "7", "--max-calls", "50", "--seed", "3", "--", "node", "mas.js"], { url: h.url, env });
  expect(r.code).toBe(0);
  const out = r.output as { id: string; status: string; sourceCaseId: string; sourceBundleId: string };
  expect(out).toMatchObject({ status: "queued", sourceCaseId: caseId, sourceBundleId: "rs-cli" });
  const v = (await getRepairSearch(h.db, out.id))!;
  expect(v.settings).toMatchObject({ upstream: "http://127.0.0.1:9/v1", judge: { kind: "command", cmd: "node judge.mjs" }, command: ["node", "mas.js"], seed: 3, maxCalls: 50, search: { iterations: 7, budget: { maxCalls: 50, maxTokens: null } } });

  const shown = await repairSearchJobCommand(["show", out.id], { url: h.url });
  expect(shown).toEqual({
    code: 0,
    output: { id: out.id, status: "queued", stopped: null, sourceCaseId: caseId, sourceBundleId: "rs-cli", best: null, iterations: 0, nodes: 0, calls: { selector: 0, judge: 0, mas: 0 }, tokens: { selector: 0, judge: 0, mas: 0, total: 0 }, error: null },
  });
  // the subcommands are reached through `symtrace repair-search`
  expect((await repairSearchCommand(["show"])).code).toBe(2);

  const noCase = await repairSearchJobCommand(["start", "--iterations", "3"], { url: h.url, env });
  expect(noCase.code).toBe(2);
  expect(messageOf(noCase).path).toBe("--case");
  const missing = await repairSearchJobCommand(["start", "--case", "nope"], { url: h.url, env });
  expect(missing.code).toBe(1);
  expect(messageOf(missing).message).toMatch(/no case with id or bundle id "nope"/);
  const noEndpoint = await repairSearchJobCommand(["start", "--case", "rs-cli"], { url: h.url, env: {} });
  expect(noEndpoint.code).toBe(2);
  expect(messageOf(noEndpoint).message).toMatch(/SYMTRACE_REPLAY_UPSTREAM/);
  const badInt = await repairSearchJobCommand(["start", "--case", "rs-cli", "--iterations", "0"], { url: h.url, env });
  expect(badInt.code).toBe(2);
  expect(messageOf(badInt).path).toBe("--iterations");
  expect((await repairSearchJobCommand(["start", "--case", "rs-cli", "--bogus", "1"], { url: h.url, env })).code).toBe(2);
  expect((await repairSearchJobCommand(["show"], { url: h.url })).code).toBe(2);
  expect(messageOf(await repairSearchJobCommand(["show", "nope"], { url: h.url })).message).toBe("no repair search nope");
});
