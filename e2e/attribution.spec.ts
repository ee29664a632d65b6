/**
 * The failure-attribution page over a run in the database (issue 24 item 2): a run of two
 * Hand-Crafted Who&When cases × Last and Random is stored for any worker (what `symtrace detect
 * --eval --attribution --background` does), and the app's own embedded worker (started at boot,
 * SQLite polling) runs its four jobs; the page shows the run in its list, the progress and the
 * table; the route gives the runs, the run's rows and its CSV. Baselines only: no model.
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
  expect(started.run.progress).toMatchObject({ total: 4, queued: 4 });

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

test.afterAll(async () => {
  await db?.$disconnect();
});
