/**
 * Issue 10 item 2: the admin's bulk assignment keeps the chosen annotators across "Preview
 * matching cases" and gives the cases to exactly them, never to whoever has the fewest.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { buildBundle } from "../lib/bundle";
import { openDb, type Db } from "../lib/db";
import { E2E_DATABASE_URL } from "../playwright.config";
import { apiAs, assign, createUser, seedBundle, signIn, type TestUser } from "./fixtures";

/** A one-node case whose task text carries `token`, so a filter on the task text matches only it. */
const tokenCase = (token: string) => (id: string) =>
  buildBundle({
    id,
    task: { prompt: `Assignment check ${token}`, benchmark: "e2e" },
    config: { mas: "e2e-mas" },
    nodes: [
      { id: "task_0000", type: "message", agent: "User", label: "task", content: { text: "start" } },
      { id: "final_result", type: "final_result", agent: "Planner", label: "final", content: { answer: "42" } },
    ],
    edges: [{ from: "task_0000", to: "final_result", kind: "control" }],
    outcome: { passed: true, evaluator: "e2e" },
  });

let db: Db;
test.beforeAll(() => {
  db = openDb(E2E_DATABASE_URL).db;
});
test.afterAll(async () => {
  await db.$disconnect();
});

/** Annotator ids assigned to a case (by bundle id), sorted. */
async function annotatorsOf(bundleId: string): Promise<string[]> {
  const rows = await db.assignment.findMany({ where: { case: { bundleId }, role: "annotator" }, select: { userId: true } });
  return rows.map((r) => r.userId).sort();
}

/** Two annotators with load (the ones to choose) and two without (the ones "fewest first" would take). */
async function people(): Promise<{ chosen: TestUser[]; idle: TestUser[] }> {
  const chosen = [await createUser(["annotator"]), await createUser(["annotator"])];
  const idle = [await createUser(["annotator"]), await createUser(["annotator"])];
  for (let i = 0; i < 2; i++) {
    const b = await seedBundle(tokenCase(`load-${randomUUID()}`));
    await assign(b.id, chosen);
  }
  return { chosen, idle };
}

test("the chosen annotators stay selected after Preview and get exactly the matching cases", async ({ page }) => {
  const admin = await createUser(["admin"]);
  const { chosen, idle } = await people();
  const token = `tok${randomUUID().slice(0, 8)}`;
  const cases = [await seedBundle(tokenCase(token)), await seedBundle(tokenCase(token))];

  await signIn(page, admin);
  await page.goto("/admin");
  await page.locator("input[name=q]").fill(token);
  const pick = page.locator("select[name=annotatorIds]");
  const selected = async () => (await pick.evaluate((el: HTMLSelectElement) => [...el.selectedOptions].map((o) => o.value))).sort();
  await pick.selectOption(chosen.map((u) => u.id));
  await page.getByRole("button", { name: "Preview matching cases" }).click();
  await expect(page.getByRole("button", { name: "Assign 2 case(s)" })).toBeVisible();
  // Every field keeps its value, the multi-select included.
  await expect(page.locator("input[name=q]")).toHaveValue(token);
  await expect.poll(() => selected()).toEqual(chosen.map((u) => u.id).sort());
  // The preview names exactly the chosen annotators (in the select's option order).
  const preview = page.getByText(/each goes to /);
  await expect(preview).toBeVisible();
  const named = ((await preview.textContent()) ?? "").replace(/^.*each goes to /s, "").split(/,\s*/).map((x) => x.trim().replace(/[.)]+$/, ""));
  expect(named.sort()).toEqual(chosen.map((u) => u.email).sort());

  await page.getByRole("button", { name: "Assign 2 case(s)" }).click();
  await expect(page.getByText("2 case(s) assigned; 4 new annotator assignment(s) to the 2 chosen annotator(s).")).toBeVisible();
  for (const c of cases) expect(await annotatorsOf(c.id)).toEqual(chosen.map((u) => u.id).sort());
  // The unloaded annotators that "least loaded first" would have taken got nothing.
  for (const u of idle) expect(await db.assignment.count({ where: { userId: u.id } })).toBe(0);
  // The selection is still shown after assigning.
  await expect.poll(() => selected()).toEqual(chosen.map((u) => u.id).sort());
});

test("POST /api/admin/assign with annotatorIds gives each case to exactly them; a mismatched perCase is refused", async ({ baseURL }) => {
  const admin = await createUser(["admin"]);
  const { chosen, idle } = await people();
  const c = await seedBundle(tokenCase(`tok${randomUUID().slice(0, 8)}`));
  const caseId = (await db.case.findUniqueOrThrow({ where: { bundleId: c.id } })).id;
  const api = await apiAs(baseURL!, admin);
  const bad = await api.post("/api/admin/assign", { data: { caseIds: [caseId], perCase: 3, annotatorIds: chosen.map((u) => u.id) } });
  expect(bad.status()).toBe(400);
  expect(await bad.text()).toContain("2 annotators chosen but 3 per case");
  expect(await annotatorsOf(c.id)).toEqual([]);
  const ok = await api.post("/api/admin/assign", { data: { caseIds: [caseId], annotatorIds: chosen.map((u) => u.id) } });
  expect(ok.status()).toBe(200);
  expect(await annotatorsOf(c.id)).toEqual(chosen.map((u) => u.id).sort());
  for (const u of idle) expect(await db.assignment.count({ where: { userId: u.id } })).toBe(0);
});
