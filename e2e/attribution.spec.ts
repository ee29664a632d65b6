/**
 * The failure-attribution page over a run in the database (issue 24 item 2): a run of two
 * Hand-Crafted Who&When cases × Last and Random is stored for any worker (what `symtrace detect
 * --eval --attribution --background` does), and the app's own embedded worker (started at boot,
 * SQLite polling) runs its four jobs; the page shows the run in its list, the progress and the
 * table; the route gives the runs, the run's rows and its CSV. A researcher starts a run from the
 * page's New run form (random, last, rules on the first two Hand-Crafted cases the server ships;
 * the form also offers the seeded Who&When cases of the database, counted per subset),
 * sees it finish by the embedded worker without reloading and its table; the POST route's
 * refusals name the field; Cancel stops a running run and Resume continues it; an annotator has
 * neither the page (form) nor the POST (403).
 * Baselines only: the e2e server configures no model endpoint, so the LLM attributors are
 * offered disabled with the reason.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { attributionCaseFromBundle } from "../lib/attribution";
import { openDb, startAttributionRun, type Db } from "../lib/db";
import { importText } from "../lib/importers";
import { E2E_DATABASE_URL } from "../playwright.config";
import { createUser, signIn } from "./fixtures";

test.describe.configure({ timeout: 120_000 });

const HC = path.resolve(import.meta.dirname, "../../shared/datasets/who_and_when_full/Hand-Crafted");
let db: Db | null = null;
const getDb = () => (db ??= openDb(E2E_DATABASE_URL).db);

test("attribution: a queued run is run by the app's worker; page shows runs, progress and table; route gives rows and CSV", async ({ page }) => {
  const files = ["1.json", "2.json"].map((f) => path.join(HC, f));
  const raws = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as { history: unknown[]; mistake_step: string });
  const cases = files.map((f) => attributionCaseFromBundle(importText(readFileSync(f, "utf8"), f).cases[0].bundle));
  const name = `e2e-${randomUUID().slice(0, 8)}`;
  const started = await startAttributionRun(getDb(), {
    name,
    model: null,
    upstream: null,
    protocol: "chat",
    seed: 20260512,
    plan: [
      { attributor: "last", groundTruth: "n/a" },
      { attributor: "random", groundTruth: "n/a" },
    ],
    dirs: [HC],
    cases,
    budget: { maxCalls: null, maxTokens: null },
    runner: null,
  });
  // Four jobs stored; the app's embedded worker may already have taken some (its poll can land
  // between the insert and this read: baseline jobs take milliseconds), but none has failed.
  const p0 = started.run.progress;
  expect(p0).toMatchObject({ total: 4, error: 0 });
  expect(p0.queued + p0.running + p0.done).toBe(4);

  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);
  // the app's embedded worker takes the jobs (polling every second)
  await expect
    .poll(
      async () => {
        await page.goto(`/experiments/attribution?run=${name}`);
        return page.getByTestId("attribution-progress").textContent();
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toBe("4 of 4 jobs finished");
  await expect(page.getByTestId("attribution-runs")).toContainText(`${name} (4/4,`);
  const table = page.getByTestId("attribution-Hand-Crafted");
  await expect(table.getByTestId("row-last-n/a")).toContainText("2/2");
  await expect(table.getByTestId("row-random-n/a")).toContainText("2/2");
  // Last = the last step: its exact-step hits hand-checked against the raw records
  const lastHits = raws.filter((r) => r.history.length - 1 === Number(r.mistake_step)).length;
  await expect(table.getByTestId("row-last-n/a").getByTestId("step-0")).toHaveAttribute("title", new RegExp(`^${lastHits}/2, Wilson`));

  const one = await page.request.get(`/api/experiments/attribution?run=${name}`);
  expect(one.status()).toBe(200);
  const t = (await one.json()) as { rows: Array<{ attributor: string; subset: string; done: number; step: Record<string, { x: number }> }>; progress: unknown };
  expect(t.progress).toEqual({ finished: 4, failed: 0, total: 4 });
  expect(t.rows.map((r) => [r.attributor, r.subset, r.done])).toEqual([["last", "Hand-Crafted", 2], ["random", "Hand-Crafted", 2]]);
  expect(t.rows[0].step["0"].x).toBe(lastHits);
  const csv = await page.request.get(`/api/experiments/attribution?run=${name}&format=csv`);
  expect(csv.headers()["content-type"]).toContain("text/csv");
  expect((await csv.text()).split("\r\n")).toHaveLength(4); // header, two rows, the final CRLF
  const list = (await (await page.request.get("/api/experiments/attribution")).json()) as { runs: Array<{ name: string; progress: { done: number } }> };
  expect(list.runs.find((r) => r.name === name)?.progress.done).toBe(4);
  expect((await page.request.get("/api/experiments/attribution?run=no-such-run")).status()).toBe(404);
});

test("attribution: a researcher starts a baseline run from the New run form; the embedded worker finishes it and the page shows its table", async ({ page }) => {
  const raws = ["1.json", "2.json"].map((f) => JSON.parse(readFileSync(path.join(HC, f), "utf8")) as { history: unknown[]; mistake_step: string });
  const lastHits = raws.filter((r) => r.history.length - 1 === Number(r.mistake_step)).length;
  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);
  await page.goto("/experiments/attribution");
  const form = page.getByTestId("new-attribution-run");
  await expect(form.getByTestId("attribution-endpoint")).toContainText("none — no model endpoint is configured on the server");
  // the registry's attributors: the baselines checked, the LLM ones disabled with the reason
  for (const a of ["random", "last", "rules"]) await expect(form.locator(`input[name=attributor][value="${a}"]`)).toBeChecked();
  for (const a of ["rules+judge", "all-at-once", "step-by-step", "binary-search"]) {
    await expect(form.locator(`input[name=attributor][value="${a}"]`)).toBeDisabled();
    await expect(form.getByTestId(`disabled-${a}`)).toHaveText("disabled: needs a model endpoint");
  }
  await expect(form.getByText("Hand-Crafted (58 cases)")).toBeVisible();
  await expect(form.getByText("Algorithm-Generated (126 cases)")).toBeVisible();
  // the other source: the Who&When cases the seed imported into the database, counted per subset
  const inDb = async (subset: string) => getDb().case.count({ where: { sourceDataset: "who_and_when", sourceSubset: subset } });
  await form.locator('input[name=source][value="database"]').check();
  await expect(form.getByText(`Hand-Crafted (${await inDb("Hand-Crafted")} cases)`)).toBeVisible();
  await expect(form.getByText(`Algorithm-Generated (${await inDb("Algorithm-Generated")} cases)`)).toBeVisible();
  await form.locator('input[name=source][value="dataset"]').check();
  const name = `e2e-form-${randomUUID().slice(0, 8)}`;
  await form.locator("input[name=name]").fill(name);
  await form.locator('input[name=subset][value="Algorithm-Generated"]').uncheck();
  await form.locator("input[name=limit]").fill("2");
  await expect(form.getByTestId("attribution-plan")).toHaveText("2 case(s): 2 Hand-Crafted — 6 job(s)");
  await form.getByTestId("start-attribution").click();
  await page.waitForURL((u) => u.searchParams.get("run") === name);
  // followed without reloading: the embedded worker runs the six jobs
  await expect(page.getByTestId("attribution-progress")).toHaveText("6 of 6 jobs finished", { timeout: 60_000 });
  await expect(page.getByTestId("attribution-runs")).toContainText(`${name} (6/6,`);
  const table = page.getByTestId("attribution-Hand-Crafted");
  for (const a of ["random", "last", "rules"]) await expect(table.getByTestId(`row-${a}-n/a`)).toContainText("2/2");
  await expect(table.getByTestId("row-last-n/a").getByTestId("step-0")).toHaveAttribute("title", new RegExp(`^${lastHits}/2, Wilson`));
  const stored = (await (await page.request.get(`/api/experiments/attribution?run=${name}`)).json()) as { run: { runner: string | null; plan: { model: string | null; seed: number; plan: unknown[] } } };
  expect(stored.run.runner).toBeNull();
  expect(stored.run.plan).toMatchObject({ model: null, seed: 20260512, plan: [{ attributor: "random", groundTruth: "n/a" }, { attributor: "last", groundTruth: "n/a" }, { attributor: "rules", groundTruth: "n/a" }] });

  // The same name again through the form: refused, naming the field.
  await page.goto("/experiments/attribution");
  await form.locator("input[name=name]").fill(name);
  await form.locator("input[name=limit]").fill("1");
  await form.getByTestId("start-attribution").click();
  await expect(form.getByTestId("attribution-error")).toHaveText(`a run named "${name}" already exists: resume it or choose another name (at name)`);

  // The route: 400 naming the field; an LLM attributor without endpoint; resume of a finished run.
  const post = (data: unknown) => page.request.post("/api/experiments/attribution", { data });
  const bad = await post({ action: "start", name: "x", attributors: ["last"], subsets: ["Hand-Crafted"], maxCalls: -1 });
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { fieldErrors: unknown[] }).fieldErrors).toEqual([{ field: "maxCalls", message: "a positive number (or null: no cap)" }]);
  const llm = await post({ action: "start", name: `e2e-llm-${randomUUID().slice(0, 8)}`, attributors: ["all-at-once"], subsets: ["Hand-Crafted"], limit: 1 });
  expect(llm.status()).toBe(400);
  expect(await llm.json()).toMatchObject({ at: "attributors", error: expect.stringMatching(/^all-at-once needs a model endpoint: no model endpoint is configured on the server/) });
  const resume = await post({ action: "resume", name, maxCalls: 10 });
  expect(resume.status()).toBe(409);
  expect(((await resume.json()) as { at: string }).at).toBe("name");
  expect((await post({ action: "resume", name: "no-such-run" })).status()).toBe(404);
});

test("attribution: Cancel stops a running run (its queued jobs shown not run), Resume hands them to the embedded worker, which finishes it", async ({ page }) => {
  const files = ["3.json", "4.json"].map((f) => path.join(HC, f));
  const cases = files.map((f) => attributionCaseFromBundle(importText(readFileSync(f, "utf8"), f).cases[0].bundle));
  const name = `e2e-cancel-${randomUUID().slice(0, 8)}`;
  // Reserved for a runner that does not exist (as a foreground CLI reserves its run): the app's
  // workers leave its jobs queued, so it is still running when the page is opened.
  await startAttributionRun(getDb(), { name, model: null, upstream: null, protocol: "chat", seed: 20260512, plan: [{ attributor: "last", groundTruth: "n/a" }], dirs: [HC], cases, budget: { maxCalls: null, maxTokens: null }, runner: "e2e-absent-runner" });
  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);
  await page.goto(`/experiments/attribution?run=${name}`);
  await expect(page.getByTestId("attribution-progress")).toHaveText("0 of 2 jobs finished");
  await expect(page.getByTestId("resume-attribution")).toHaveCount(0);
  page.once("dialog", (d) => void d.accept());
  await page.getByTestId("cancel-attribution-button").click();
  await expect(page.getByTestId("resume-attribution")).toContainText("Cancelled: 2 job(s) not run.");
  await expect(page.getByTestId("cancel-attribution-button")).toHaveCount(0);
  await expect(page.getByTestId("attribution-runs")).toContainText(`${name} (0/2, cancelled)`);
  const t = (await (await page.request.get(`/api/experiments/attribution?run=${name}`)).json()) as { run: { status: string } };
  expect(t.run.status).toBe("cancelled");
  // Resume from the page: the run is left to any worker now; the embedded one runs both jobs.
  await page.getByTestId("resume-attribution-button").click();
  await expect(page.getByTestId("attribution-progress")).toHaveText("2 of 2 jobs finished", { timeout: 60_000 });
  // finished by the job that left nothing queued: a reload shows it (the page stops following at 2 of 2)
  await expect
    .poll(async () => {
      await page.reload();
      return page.getByTestId("attribution-runs").textContent();
    })
    .toContain(`${name} (2/2, finished)`);
  const audit = await getDb().auditEvent.findMany({ where: { entityType: "attribution-run", actorId: researcher.id }, orderBy: { at: "asc" }, select: { action: true } });
  expect(audit.map((a) => a.action)).toEqual(["attribution.cancel", "attribution.resume"]);
});

test("attribution: an annotator has neither the page with its form nor the POST route (403)", async ({ page }) => {
  const annotator = await createUser(["annotator"]);
  await signIn(page, annotator);
  await page.goto("/experiments/attribution");
  await expect(page).toHaveURL(/\/forbidden$/);
  await expect(page.getByTestId("new-attribution-run")).toHaveCount(0);
  const r = await page.request.post("/api/experiments/attribution", { data: { action: "start", name: `e2e-annot-${randomUUID().slice(0, 8)}`, attributors: ["last"], subsets: ["Hand-Crafted"], limit: 1 } });
  expect(r.status()).toBe(403);
  expect((await page.request.get("/api/experiments/attribution")).status()).toBe(403);
});

test.afterAll(async () => {
  await db?.$disconnect();
});
