/**
 * Starting and resuming attribution runs from the app (lib/services/attribution/app-start.ts) on a
 * fresh test database, with the shipped Who&When folders (../shared/datasets/who_and_when_full):
 * what the form offers with and without a server endpoint; a baseline run over the first cases of
 * each subset, queued for any worker, stored exactly as `symtrace detect --eval --attribution
 * --background` stores the same selection, then run by an ordinary worker; refusals naming the
 * field; Resume of a run stopped at its budget. The LLM is a labelled FAKE (fixed reply), never a model.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { attributionCommand } from "../../../cli/detect-attribution";
import type { AttributionLlm } from "../../attribution";
import { AttributionRunError, getAttributionRun, importCase, type Db } from "../../db";
import { importText } from "../../importers";
import { urlOfDb } from "../../db/client";
import { testDbPerFile } from "../../db/test-db";
import { createWorker } from "../../jobs";
import { attributionPostSchema } from "../../schemas/attribution";
import { attributionAppOptions, cancelAttributionFromApp, canCancel, resumeAttributionFromApp, resumeRefusal, serverAttributionEndpoint, startAttributionFromApp } from "./app-start";
import { attributionRunTable } from "./runs";
import { whoWhenSources } from "./sources";

const h = testDbPerFile();
const ROOT = path.resolve(__dirname, "../../../../shared/datasets/who_and_when_full");
const sources = whoWhenSources(ROOT);
const NO_ENDPOINT = {} as NodeJS.ProcessEnv;
const FAKE_ENDPOINT = { SYMTRACE_ATTRIBUTION_UPSTREAM: "http://fake.invalid/v1", SYMTRACE_ATTRIBUTION_MODEL: "fake-test-model", SYMTRACE_ATTRIBUTION_API_KEY: "sk-secret-test" } as unknown as NodeJS.ProcessEnv;
const BASELINES = ["random", "last", "rules"] as const;
/** A researcher with no annotator assignment (the all-cases blindness gate is open); made in beforeAll. */
const RESEARCHER = { id: "", roles: ["researcher" as const] };

/** FAKE model (test only): All-at-Once's reply format, step 1, 10 + 2 tokens. */
const fakeLlm: AttributionLlm = { model: "fake-test-model", complete: async () => ({ text: "Agent Name: Orchestrator\nStep Number: 1\nReason: fake", usage: { prompt: 10, completion: 2 }, cached: false }) };

/** The refusal of `p`, as {code, at, message}. */
async function refusal(p: Promise<unknown>) {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AttributionRunError);
  const r = e as AttributionRunError;
  return { code: r.code, at: r.at, message: r.message };
}

/** Every job of a run as "attributor/groundTruth/caseId", sorted. */
async function jobKeys(db: Db, name: string): Promise<string[]> {
  const run = await db.attributionRun.findUniqueOrThrow({ where: { name } });
  const jobs = await db.attributionJob.findMany({ where: { runId: run.id }, select: { attributor: true, groundTruth: true, runCase: { select: { caseId: true } } } });
  return jobs.map((j) => `${j.attributor}/${j.groundTruth}/${j.runCase.caseId}`).sort();
}

const env = { ...process.env };
beforeAll(async () => {
  RESEARCHER.id = (await h.db.user.create({ data: { name: "Researcher", email: "researcher@test", roles: "researcher" } })).id;
  for (const k of Object.keys(process.env)) if (/^SYMTRACE_(ATTRIBUTION|JUDGE)_/.test(k)) delete process.env[k];
});
afterAll(() => {
  process.env = env;
});

describe("attribution runs from the app", () => {
  test("the form's choices: the shipped subsets with their case counts; LLM attributors disabled with the reason when no endpoint", async () => {
    const o = await attributionAppOptions(h.db, RESEARCHER, NO_ENDPOINT, sources);
    expect(o.subsets).toEqual([
      { subset: "Hand-Crafted", cases: 58 },
      { subset: "Algorithm-Generated", cases: 126 },
    ]);
    expect(o.endpoint).toBeNull();
    expect(o.attributors.filter((a) => !a.disabled).map((a) => a.name)).toEqual([...BASELINES]);
    expect(o.attributors.filter((a) => a.disabled).map((a) => a.name)).toEqual(["rules+judge", "all-at-once", "step-by-step", "binary-search"]);
    expect(o.attributors.find((a) => a.name === "all-at-once")!.disabled).toMatch(/needs a model endpoint: no model endpoint is configured on the server \(SYMTRACE_ATTRIBUTION_UPSTREAM/);
    expect(o.defaultSeed).toBe(20260512);
    expect(o.database).toEqual({ refused: null, subsets: [] });
  });

  test("with an endpoint configured every attributor is offered; the endpoint is shown without its API key", async () => {
    const o = await attributionAppOptions(h.db, RESEARCHER, { ...FAKE_ENDPOINT, SYMTRACE_ATTRIBUTION_PROTOCOL: "responses" }, sources);
    expect(o.endpoint).toEqual({ upstream: "http://fake.invalid/v1", model: "fake-test-model", protocol: "responses" });
    expect(o.attributors.every((a) => a.disabled === null)).toBe(true);
    expect(JSON.stringify(o)).not.toContain("sk-secret-test");
    expect(serverAttributionEndpoint({ SYMTRACE_ATTRIBUTION_UPSTREAM: "not a url", SYMTRACE_ATTRIBUTION_MODEL: "m" } as unknown as NodeJS.ProcessEnv)).toEqual({ endpoint: null, problem: expect.stringMatching(/SYMTRACE_ATTRIBUTION_UPSTREAM must be an http\(s\) URL/) });
  });

  test("a baseline run over the first 2 cases of each subset: queued for any worker, stored as the CLI's --background stores it, run by an ordinary worker", async () => {
    const r = await startAttributionFromApp(h.db, RESEARCHER, { action: "start", source: "dataset", name: "app-baselines", attributors: [...BASELINES], groundTruth: "both", subsets: ["Hand-Crafted", "Algorithm-Generated"], limit: 2 }, { env: NO_ENDPOINT, sources });
    expect(r.cases).toEqual({ "Hand-Crafted": 2, "Algorithm-Generated": 2 });
    expect(r.enqueued).toBe(12);
    expect(r.run).toMatchObject({ name: "app-baselines", status: "running", runner: null, budget: { maxCalls: null, maxTokens: null }, progress: { total: 12, queued: 12 } });
    expect(r.run.plan).toMatchObject({ model: null, upstream: null, protocol: "chat", seed: 20260512, plan: BASELINES.map((a) => ({ attributor: a, groundTruth: "n/a" })), dirs: [path.join(ROOT, "Hand-Crafted"), path.join(ROOT, "Algorithm-Generated")] });

    expect(await h.db.auditEvent.findMany({ where: { entityId: r.run.id }, select: { actorId: true, action: true } })).toEqual([{ actorId: RESEARCHER.id, action: "attribution.create" }]);

    // The same selection through the CLI's --background (its own connection to this database).
    process.env.DATABASE_URL = urlOfDb(h.db)!;
    const files = ["Hand-Crafted/1.json", "Hand-Crafted/2.json", "Algorithm-Generated/1.json", "Algorithm-Generated/2.json"].map((f) => path.join(ROOT, f));
    const cli = await attributionCommand([...files.flatMap((f) => ["--dir", f]), "--methods", BASELINES.join(","), "--run", "cli-baselines", "--background"]);
    expect(cli.code).toBe(0);
    expect(cli.output).toMatchObject({ background: true, run: "cli-baselines", enqueued: 12 });
    const viaCli = (await getAttributionRun(h.db, "cli-baselines"))!;
    expect({ ...viaCli.plan, dirs: [] }).toEqual({ ...r.run.plan, dirs: [] });
    expect(viaCli.runner).toBeNull();
    expect(await jobKeys(h.db, "cli-baselines")).toEqual(await jobKeys(h.db, "app-baselines"));

    const worker = createWorker("attribution", { db: h.db, log: () => {} });
    while (await worker.runNext()) {
      /* every queued job of both runs */
    }
    expect(worker.counts).toEqual({ done: 24 });
    const t = (await attributionRunTable(h.db, "app-baselines"))!;
    expect(t.progress).toEqual({ finished: 12, failed: 0, total: 12 });
    expect(t.rows.map((x) => [x.attributor, x.subset, x.done])).toEqual(BASELINES.flatMap((a) => [[a, "Hand-Crafted", 2], [a, "Algorithm-Generated", 2]]));
    // Last = the last step: exact-step hits hand-checked against the raw files
    const raws = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as { history: unknown[]; mistake_step: string });
    const hits = (i: number[]) => i.filter((k) => raws[k].history.length - 1 === Number(raws[k].mistake_step)).length;
    const last = (subset: string) => t.rows.find((x) => x.attributor === "last" && x.subset === subset)!;
    expect(last("Hand-Crafted").step["0"].x).toBe(hits([0, 1]));
    expect(last("Algorithm-Generated").step["0"].x).toBe(hits([2, 3]));
  });

  test("refusals name the field: an LLM attributor without endpoint, a name in use, a subset not shipped", async () => {
    const body = { action: "start" as const, source: "dataset" as const, name: "refused", attributors: ["last" as const], groundTruth: "both" as const, subsets: ["Hand-Crafted"], limit: 1 };
    expect(await refusal(startAttributionFromApp(h.db, RESEARCHER, { ...body, attributors: ["last", "all-at-once", "binary-search"] }, { env: NO_ENDPOINT, sources }))).toEqual({
      code: "invalid",
      at: "attributors",
      message: expect.stringMatching(/^all-at-once, binary-search need a model endpoint: no model endpoint is configured/),
    });
    expect(await refusal(startAttributionFromApp(h.db, RESEARCHER, { ...body, name: "app-baselines" }, { env: NO_ENDPOINT, sources }))).toEqual({ code: "conflict", at: "name", message: 'a run named "app-baselines" already exists: resume it or choose another name' });
    expect(await refusal(startAttributionFromApp(h.db, RESEARCHER, { ...body, subsets: ["Algorithm-Generated"] }, { env: NO_ENDPOINT, sources: sources.slice(0, 1) }))).toMatchObject({ code: "invalid", at: "subsets", message: expect.stringMatching(/^the Algorithm-Generated subset of Who&When is not available on this server/) });
    expect(await getAttributionRun(h.db, "refused")).toBeNull();
  });

  test("Resume: a run stopped at its budget continues with a larger cap; a cap not above the spent, an unknown run or a finished run are refused", async () => {
    const r = await startAttributionFromApp(h.db, RESEARCHER, { action: "start", source: "dataset", name: "app-budget", attributors: ["all-at-once"], groundTruth: "with", subsets: ["Hand-Crafted"], limit: 3, maxCalls: 1 }, { env: FAKE_ENDPOINT, sources });
    expect(r.run.plan).toMatchObject({ model: "fake-test-model", upstream: "http://fake.invalid/v1", protocol: "chat" });
    const worker = createWorker("attribution", { db: h.db, llm: fakeLlm, log: () => {} });
    expect(await worker.runNext()).not.toBeNull();
    expect(await worker.runNext()).toBeNull();
    expect(await getAttributionRun(h.db, "app-budget")).toMatchObject({ status: "budget-exhausted", spent: { httpCalls: 1, tokens: 12 }, progress: { done: 1, queued: 2 } });

    expect(await refusal(resumeAttributionFromApp(h.db, RESEARCHER, { action: "resume", name: "app-budget", maxCalls: 1 }))).toEqual({ code: "invalid", at: "maxCalls", message: "maxCalls must be above the 1 calls the run has spent (or empty: no cap)" });
    expect(await refusal(resumeAttributionFromApp(h.db, RESEARCHER, { action: "resume", name: "app-budget", maxTokens: 12 }))).toMatchObject({ code: "invalid", at: "maxTokens" });
    expect(await refusal(resumeAttributionFromApp(h.db, RESEARCHER, { action: "resume", name: "no-such-run" }))).toEqual({ code: "not-found", at: "name", message: 'no attribution run named "no-such-run"' });
    expect(await refusal(resumeAttributionFromApp(h.db, RESEARCHER, { action: "resume", name: "app-baselines" }))).toMatchObject({ code: "conflict", at: "name", message: expect.stringMatching(/^run "app-baselines" is (running|finished) with no failed job: only a run stopped at its budget/) });

    const resumed = await resumeAttributionFromApp(h.db, RESEARCHER, { action: "resume", name: "app-budget", maxCalls: 3 });
    expect(resumed.enqueued).toBe(2);
    expect(await h.db.auditEvent.findMany({ where: { entityId: r.run.id }, orderBy: { at: "asc" }, select: { actorId: true, action: true } })).toEqual([
      { actorId: RESEARCHER.id, action: "attribution.create" },
      { actorId: RESEARCHER.id, action: "attribution.resume" },
    ]);
    expect(resumed.run).toMatchObject({ status: "running", budget: { maxCalls: 3, maxTokens: null }, progress: { total: 3, done: 1, queued: 2 }, plan: { model: "fake-test-model", seed: 20260512 } });
    while (await worker.runNext()) {
      /* the two queued jobs */
    }
    expect(await getAttributionRun(h.db, "app-budget")).toMatchObject({ spent: { httpCalls: 3, tokens: 36 }, progress: { done: 3, queued: 0 } });
  });

  test("Cancel: a running run stops (audited with the viewer), shows Resume with its queued jobs, and Resume runs them; Cancel is offered only while something can still start", async () => {
    const r = await startAttributionFromApp(h.db, RESEARCHER, { action: "start", source: "dataset", name: "app-cancel", attributors: ["last"], groundTruth: "both", subsets: ["Hand-Crafted"], limit: 3 }, { env: NO_ENDPOINT, sources });
    expect(canCancel(r.run)).toBe(true);
    expect(resumeRefusal(r.run)).toMatch(/is running with no failed job/);
    const c = await cancelAttributionFromApp(h.db, RESEARCHER, { action: "cancel", name: "app-cancel" });
    expect(c).toMatchObject({ cancelled: true, run: { status: "cancelled", progress: { total: 3, queued: 3, done: 0 } } });
    expect(canCancel(c.run)).toBe(false);
    expect(resumeRefusal(c.run)).toBeNull();
    const worker = createWorker("attribution", { db: h.db, log: () => {} });
    expect(await worker.runNext()).toBeNull();
    expect((await cancelAttributionFromApp(h.db, RESEARCHER, { action: "cancel", name: "app-cancel" })).cancelled).toBe(false);
    expect(await refusal(cancelAttributionFromApp(h.db, RESEARCHER, { action: "cancel", name: "no-such-run" }))).toEqual({ code: "not-found", at: "name", message: 'no attribution run named "no-such-run"' });
    const resumed = await resumeAttributionFromApp(h.db, RESEARCHER, { action: "resume", name: "app-cancel" });
    expect(resumed).toMatchObject({ enqueued: 3, run: { status: "running" } });
    while (await worker.runNext()) {
      /* the three queued jobs */
    }
    const done = await getAttributionRun(h.db, "app-cancel");
    expect(done).toMatchObject({ status: "finished", progress: { done: 3, queued: 0 } });
    expect(canCancel(done!)).toBe(false);
    expect((await h.db.auditEvent.findMany({ where: { entityId: r.run.id }, orderBy: { at: "asc" }, select: { actorId: true, action: true } })).map((a) => [a.actorId, a.action])).toEqual([
      [RESEARCHER.id, "attribution.create"],
      [RESEARCHER.id, "attribution.cancel"],
      [RESEARCHER.id, "attribution.resume"],
    ]);

    // The CLI's --cancel (its own connection to this database; audited without an actor).
    process.env.DATABASE_URL = urlOfDb(h.db)!;
    const other = await startAttributionFromApp(h.db, RESEARCHER, { action: "start", source: "dataset", name: "cli-cancel", attributors: ["random"], groundTruth: "both", subsets: ["Hand-Crafted"], limit: 2 }, { env: NO_ENDPOINT, sources });
    expect(await attributionCommand(["--cancel", "--run", "cli-cancel"])).toEqual({ code: 0, output: { source: "attribution", run: "cli-cancel", cancelled: true, status: "cancelled", progress: { total: 2, queued: 2, running: 0, done: 0, error: 0 } } });
    expect((await attributionCommand(["--cancel", "--run", "cli-cancel"])).output).toMatchObject({ cancelled: false, status: "cancelled" });
    expect(await attributionCommand(["--cancel", "--run", "no-such-run"])).toEqual({ code: 1, output: { ok: false, errors: [{ path: "--run", message: 'no attribution run named "no-such-run"' }] } });
    expect((await attributionCommand(["--cancel"])).code).toBe(2);
    expect((await attributionCommand(["--cancel", "--run", "cli-cancel", "--background"])).code).toBe(2);
    expect((await attributionCommand(["--cancel", "--run", "../x"])).code).toBe(2);
    expect(await h.db.auditEvent.findMany({ where: { entityId: other.run.id, action: "attribution.cancel" }, select: { actorId: true } })).toEqual([{ actorId: null }]);
  });

  test("the Who&When cases imported into the database: counted per subset, a run over them as over the same files; closed while the viewer has an open annotator assignment", async () => {
    const files = ["Hand-Crafted/1.json", "Hand-Crafted/2.json", "Algorithm-Generated/1.json"].map((f) => path.join(ROOT, f));
    const ids: string[] = [];
    const bundleIds: string[] = [];
    for (const f of files)
      for (const c of importText(readFileSync(f, "utf8"), f).cases) {
        ids.push((await importCase(h.db, c)).caseId);
        bundleIds.push(c.bundle.id);
      }
    expect((await attributionAppOptions(h.db, RESEARCHER, NO_ENDPOINT, sources)).database).toEqual({ refused: null, subsets: [{ subset: "Hand-Crafted", cases: 2 }, { subset: "Algorithm-Generated", cases: 1 }] });
    const body = { action: "start" as const, name: "app-db", attributors: ["last" as const], groundTruth: "both" as const, source: "database" as const, subsets: ["Hand-Crafted", "Algorithm-Generated"] };
    const r = await startAttributionFromApp(h.db, RESEARCHER, body, { env: NO_ENDPOINT, sources });
    expect(r.cases).toEqual({ "Hand-Crafted": 2, "Algorithm-Generated": 1 });
    expect(r.run.plan.dirs).toEqual(["database:who_and_when"]);
    // the same cases, labels and bundles as the files give (app-baselines read the first two of each folder)
    const stored = await h.db.attributionRunCase.findMany({ where: { run: { name: "app-db" } }, orderBy: { position: "asc" } });
    const fromFiles = await h.db.attributionRunCase.findMany({ where: { run: { name: "app-baselines" }, caseId: { in: stored.map((c) => c.caseId) } } });
    expect(stored.map((c) => c.caseId)).toEqual(bundleIds); // subset order, then file order
    expect(fromFiles).toHaveLength(3);
    for (const c of stored) {
      const f = fromFiles.find((x) => x.caseId === c.caseId)!;
      expect([c.subset, c.referenceJson, c.bundleJson.length]).toEqual([f.subset, f.referenceJson, f.bundleJson.length]);
    }

    // a researcher who also annotates, with an assignment not yet submitted: blind on every label
    const u = await h.db.user.create({ data: { name: "Both", email: "both@test", roles: "researcher,annotator" } });
    await h.db.assignment.create({ data: { caseId: ids[0], userId: u.id, role: "annotator" } });
    const blind = { id: u.id, roles: ["researcher" as const, "annotator" as const] };
    const reason = "a run reads the reference labels of every case: not while you have 1 annotator assignment(s) not yet submitted";
    expect((await attributionAppOptions(h.db, blind, NO_ENDPOINT, sources)).database).toEqual({ refused: reason, subsets: [] });
    expect(await refusal(startAttributionFromApp(h.db, blind, { ...body, name: "app-db-blind" }, { env: NO_ENDPOINT, sources }))).toEqual({ code: "invalid", at: "source", message: reason });
    // every source: the shipped dataset folders hold the same labels (nothing created); resume too
    const runsBefore = await h.db.attributionRun.count();
    expect(await refusal(startAttributionFromApp(h.db, blind, { ...body, source: "dataset", name: "app-dataset-blind" }, { env: NO_ENDPOINT, sources }))).toEqual({ code: "invalid", at: "source", message: reason });
    expect(await h.db.attributionRun.count()).toBe(runsBefore);
    expect(await refusal(resumeAttributionFromApp(h.db, blind, { action: "resume", name: "app-db" }))).toEqual({ code: "invalid", at: "name", message: reason });
  });

  test("the POST body schema names the bad field", () => {
    const bad = (b: unknown) => attributionPostSchema.safeParse(b).error?.issues.map((i) => [i.path.join("."), i.message]);
    const ok = { action: "start", name: "a-run", attributors: ["last"], subsets: ["Hand-Crafted"] };
    expect(attributionPostSchema.parse(ok)).toMatchObject({ groundTruth: "both", source: "dataset" });
    expect(bad({ ...ok, source: "/etc" })?.[0][0]).toBe("source");
    expect(bad({ ...ok, name: "../x" })).toEqual([["name", "1–200 letters, digits, . _ -"]]);
    expect(bad({ ...ok, attributors: [] })).toEqual([["attributors", "choose at least one attributor"]]);
    expect(bad({ ...ok, subsets: ["Everything"] })?.[0][0]).toBe("subsets.0");
    expect(bad({ ...ok, maxCalls: 0 })).toEqual([["maxCalls", "a positive number (or null: no cap)"]]);
    expect(bad({ action: "resume", name: "a-run", maxTokens: 1.5 })).toEqual([["maxTokens", "a whole number"]]);
    expect(bad({ name: "a-run" })?.[0][0]).toBe("action");
    expect(attributionPostSchema.parse({ action: "cancel", name: "a-run" })).toEqual({ action: "cancel", name: "a-run" });
    expect(bad({ action: "cancel", name: "../x" })).toEqual([["name", "1–200 letters, digits, . _ -"]]);
  });
});
