/**
 * Issue 22 "Done when": on the demo data (the e2e server seeds what `npm run demo` seeds and runs
 * the app beside the same scripted stand-in model and tool server — test support: scripted answers,
 * no real model), a researcher starts from the app
 * - a repair search (MARS) of the reference-MAS case, which expands, rolls out and finishes
 *   `completed` with a best trajectory (selector and judge are the stand-in, answering with a tool
 *   call and a JSON verdict);
 * - a repair search of a Who&When case, which has no MAS to restart: it ends `failed` with the reason;
 * - a small experiment on two calibrated cases from the New experiment form, after the check says
 *   which evaluator can judge them (and why the others cannot), which finishes with its tables;
 * and the case list page is under 200 KB of HTML.
 */
import { expect, test } from "@playwright/test";
import { openDb, type Db } from "../lib/db";
import { E2E_DATABASE_URL } from "../playwright.config";
import { createUser, signIn, type TestUser } from "./fixtures";

test.describe.configure({ timeout: 420_000 });

let researcher: TestUser;
let db: Db | null = null;
const getDb = () => (db ??= openDb(E2E_DATABASE_URL).db);
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
});
test.beforeEach(async ({ page }) => {
  await signIn(page, researcher);
});

test("a repair search started from the app on the demo case finishes with a best trajectory", async ({ page }) => {
  await page.goto(`/cases/${encodeURIComponent("demo/reference-orchestrator-hilltop")}`);
  await page.getByTestId("case-repair-searches").click();
  const form = page.getByTestId("start-search-form");
  await expect(form).toContainText("The selector must be a model that calls tools");
  await expect(form).toContainText("scripted stand-in model");
  await form.getByLabel("Iterations (N_iter)").fill("3");
  await form.getByLabel("Live steps per rollout (L)").fill("2");
  await form.getByTestId("start-search").click();
  await page.waitForURL(/\/repair-searches\/[^?]+$/);
  await expect(page.getByTestId("search-status")).toHaveText("completed", { timeout: 360_000 });
  await expect(page.getByTestId("search-iterations")).toContainText("iteration 3 / 3");
  // the best trajectory goes below the root, and its nodes were judged by the stand-in
  await expect(page.getByTestId("best-path")).toHaveText(/^n0 → n\d+/);
  await expect(page.locator('[data-tree-node="n1"] [data-field="action"]')).toContainText("rollback");
  await expect(page.locator('[data-tree-node="n1"]')).not.toContainText("error");
  await page.screenshot({ path: "e2e-artifacts/demo-repair-search-completed.png", fullPage: true });
});

test("a repair search that cannot run is shown as failed, with the reason", async ({ page }) => {
  const c = await getDb().case.findFirstOrThrow({ where: { bundleId: "who_and_when/hand-crafted/6" }, select: { id: true } });
  await page.goto(`/repair-searches?caseId=${encodeURIComponent(c.id)}`);
  await page.getByTestId("start-search-form").getByLabel("Iterations (N_iter)").fill("2");
  await page.getByTestId("start-search").click();
  await page.waitForURL(/\/repair-searches\/[^?]+$/);
  await expect(page.getByTestId("search-status")).toHaveText("failed", { timeout: 120_000 });
  await expect(page.getByRole("alert").filter({ hasText: "no MAS to run the search with" })).toBeVisible();
  await page.goto(`/repair-searches?caseId=${encodeURIComponent(c.id)}`);
  const row = page.locator("[data-repair-search]").first();
  await expect(row).toContainText("failed");
  await expect(row.locator('[data-field="error"]')).toContainText("no MAS to run the search with");
});

test("a small experiment on two calibrated cases, started from the New experiment form, finishes", async ({ page }) => {
  const cal = await getDb().case.findMany({ where: { bundleId: { startsWith: "calibrated/" }, sourceDataset: { notIn: ["replay", "experiment"] } }, select: { bundleId: true }, orderBy: { bundleId: "asc" }, take: 2 });
  expect(cal).toHaveLength(2);
  await page.goto("/experiments");
  await page.getByTestId("new-experiment-link").click();
  await page.waitForURL("**/experiments/new");
  await page.getByLabel("by bundle ids").check();
  await page.locator('textarea[name="bundleIds"]').fill([...cal.map((c) => c.bundleId), "who_and_when/hand-crafted/6"].join("\n"));
  await page.getByTestId("check-cases").click();
  const check = page.getByTestId("judgeability");
  await expect(check).toContainText("3 case(s) selected");
  // per evaluator and dataset: who can judge what, and why not
  await expect(check.locator('[data-evaluator="calibrated"] [data-field="judgeable"]')).toHaveText("can judge 2 of 3");
  await expect(check.locator('[data-evaluator="calibrated"] [data-dataset="who_and_when"]')).toContainText("cannot judge: evaluator calibrated judges only the calibrated world's tasks");
  await expect(check.locator('[data-evaluator="hilltop"] [data-field="judgeable"]')).toHaveText("can judge 0 of 3");
  // the API refuses the unjudgeable case outright, naming it
  const refused = await page.request.post("/api/experiments", { data: { methods: ["suspicious-node"], attempts: 1, evaluator: "calibrated", cases: { bundleIds: [cal[0].bundleId, "who_and_when/hand-crafted/6"] } } });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error).toMatch(/^1 of 2 case\(s\) cannot be judged by evaluator calibrated.*who_and_when\/hand-crafted\/6/);
  // start with the judgeable ones: one method, k = 1
  await expect(check.locator('[data-evaluator="calibrated"] input[type="radio"]')).toBeChecked();
  for (const m of ["node-resample"]) await page.locator(`input[name="method"][value="${m}"]`).uncheck();
  await expect(page.getByTestId("start-experiment")).toHaveText("Start with the 2 judgeable case(s)");
  await page.getByTestId("start-experiment").click();
  await page.waitForURL(/\/experiments\/(?!new)[^/?]+$/);
  await expect(page.getByTestId("experiment-status")).toHaveText("finished", { timeout: 360_000 });
  await expect(page.getByText("Repair by method (Table 4 layout)")).toBeVisible();
  await page.screenshot({ path: "e2e-artifacts/demo-experiment-from-form.png", fullPage: true });
});

test("the demo case list page is under 200 KB of HTML, and generated cases sit under their parent", async ({ page }) => {
  const res = await page.request.get("/cases");
  const html = await res.text();
  const bytes = Buffer.byteLength(html, "utf8");
  console.log(`case list HTML: ${bytes} bytes`);
  expect(bytes).toBeLessThan(200 * 1024);
  await page.goto("/cases");
  await expect(page.getByTestId("case-row")).toHaveCount(40);
  await expect(page.getByTestId("case-range")).toContainText("1–40 of");
  await page.getByTestId("next-page").click();
  await expect(page.getByTestId("case-range")).toContainText("41–");
  // no generated case in the main list; a calibrated source links to its experiment attempts
  await page.goto("/cases?q=calibrated%2F13");
  await expect(page.getByTestId("case-row").first()).toBeVisible();
  await expect(page.getByRole("link", { name: /~/ })).toHaveCount(0);
  await page.getByTestId("generated-children").first().click();
  await expect(page.getByTestId("parent-filter")).toContainText("Generated from");
  await expect(page.getByTestId("case-row").first()).toBeVisible();
});
