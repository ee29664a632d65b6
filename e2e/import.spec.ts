import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { createUser, goldCopy, signIn, type TestUser } from "./fixtures";

let researcher: TestUser;
let annotator: TestUser;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
  annotator = await createUser(["annotator"]);
});

test("a researcher uploads two files at once, sees each result, and opens the imported case", async ({ page }) => {
  const goodId = `e2e/${randomUUID()}`;
  const good = goldCopy("gold-c1")(goodId);
  const bad = goldCopy("gold-c1")(`e2e/${randomUUID()}`);
  bad.graph.nodes[3] = { ...bad.graph.nodes[3], type: "teleport" as never };
  const goodName = `good-${goodId.slice(4, 12)}.bundle.json`;
  const badName = `bad-${goodId.slice(4, 12)}.json`;

  await signIn(page, researcher);
  await page.goto("/cases");
  await page.getByRole("link", { name: "Import traces" }).click();
  await expect(page).toHaveURL(/\/import$/);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Import" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Import traces" })).toBeVisible();

  await page.getByLabel("Trace files").setInputFiles([
    { name: goodName, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(good)) },
    { name: badName, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bad)) },
  ]);

  const goodRow = page.locator(`[data-testid=import-file][data-name="${goodName}"]`);
  const badRow = page.locator(`[data-testid=import-file][data-name="${badName}"]`);
  await expect(goodRow).toHaveAttribute("data-phase", "done");
  await expect(badRow).toHaveAttribute("data-phase", "done");
  await expect(goodRow.getByTestId("import-counts")).toHaveText("1 imported · 0 skipped · 0 replaced · 0 failed");
  await expect(badRow.getByTestId("import-counts")).toHaveText("0 imported · 0 skipped · 0 replaced · 1 failed");
  const failure = badRow.getByTestId("import-failure");
  await expect(failure).toContainText(badName);
  await expect(failure).toContainText("$.graph.nodes[3].type");
  await expect(badRow.getByTestId("import-case")).toHaveCount(0);
  await expect(page.getByTestId("import-summary")).toHaveText("2 of 2 files done: 1 imported, 0 skipped, 0 replaced, 1 failed");

  // the same file again: skipped, still linked
  await page.getByLabel("Trace files").setInputFiles([{ name: goodName, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(good)) }]);
  await expect(page.locator(`[data-testid=import-file][data-name="${goodName}"][data-phase=done]`)).toHaveCount(2);
  await expect(page.locator(`[data-testid=import-file][data-name="${goodName}"]`).first().getByTestId("import-counts")).toHaveText("0 imported · 1 skipped · 0 replaced · 0 failed");

  await goodRow.last().getByRole("link", { name: goodId }).click();
  await expect(page).toHaveURL(new RegExp(`/cases/${encodeURIComponent(goodId)}$`));
  await expect(page.getByRole("heading", { name: goodId })).toBeVisible();
  await expect(page.getByTestId("task-prompt")).toContainText(good.task.prompt.slice(0, 30));
});

test("annotators have no import page, no nav link, and the route refuses them", async ({ page }) => {
  await signIn(page, annotator);
  await page.goto("/cases");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Import" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Import traces" })).toHaveCount(0);
  await page.goto("/import");
  await expect(page).toHaveURL(/\/forbidden/);
  const r = await page.request.post(`/api/import?name=x.json`, { headers: { "content-type": "application/octet-stream" }, data: Buffer.from("{}") });
  expect(r.status()).toBe(403);
});
