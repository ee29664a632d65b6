import { expect, test } from "@playwright/test";
import { createUser, HOSTILE_TEXT, hostileBundle, seedBundle, signIn, type TestUser } from "./fixtures";

let researcher: TestUser;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
});
test.beforeEach(async ({ page }) => {
  await signIn(page, researcher);
});

test("case list shows the imported samples and filters by source dataset and task text", async ({ page }) => {
  await page.goto("/cases");
  await expect(page.getByRole("heading", { name: "Cases" })).toBeVisible();
  await expect(page.getByTestId("case-row").first()).toBeVisible();
  await page.getByLabel("Source dataset").selectOption("mad");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/dataset=mad/);
  await expect(page.getByTestId("case-count")).toHaveText("9 cases");
  await page.goto("/cases?q=Stephen+King");
  await expect(page.getByRole("link", { name: "ag2/webarena_verified_hard_267/attempt_000" })).toBeVisible();
});

test("a Who&When case shows its task and reference label, which links to the labelled node", async ({ page }) => {
  await page.goto("/cases?dataset=who_and_when");
  await page.getByRole("link", { name: "who_and_when/hand-crafted/6" }).click();
  await expect(page.getByRole("heading", { name: "who_and_when/hand-crafted/6" })).toBeVisible();
  await expect(page.getByTestId("task-prompt")).not.toBeEmpty();
  const label = page.getByTestId("reference-label");
  await expect(label).toContainText("consensus");
  await expect(label).toContainText("Orchestrator");
  const nodeLink = label.getByRole("link");
  const nodeId = (await nodeLink.textContent())!.trim();
  await nodeLink.click();
  await expect(page).toHaveURL(new RegExp(`node=${nodeId}`));
  await expect(page.locator(`[data-testid=node-detail][data-node-id="${nodeId}"]`)).toBeVisible();
  await expect(page.locator(`[role=option][data-node-id="${nodeId}"]`)).toHaveAttribute("aria-selected", "true");
});

test("a MAD case shows the three annotators' failure modes", async ({ page }) => {
  await page.goto("/cases?dataset=mad&q=");
  await page.getByTestId("case-row").first().getByRole("link").click();
  const labels = page.getByTestId("reference-labels");
  for (const a of ["annotator_1", "annotator_2", "annotator_3"]) await expect(labels.getByRole("columnheader", { name: a })).toBeVisible();
});

test("trace content with <script> and onerror= markup is shown as text and runs nothing", async ({ page }) => {
  const b = await seedBundle(hostileBundle);
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs++;
    void d.dismiss();
  });
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=tool_result_0000`);
  await expect(page.getByTestId("task-prompt")).toContainText("<script>window.__xss = 1</script>");
  await expect(page.getByTestId("node-content")).toContainText(HOSTILE_TEXT);
  await expect(page.getByTestId("node-detail")).toContainText("onerror=alert(1)");
  await expect(page.getByTestId("timeline")).toContainText(`label ${HOSTILE_TEXT}`);
  await expect(page.locator('[data-testid=graph-node][data-node-id="tool_result_0000"]')).toContainText("<script>");
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.locator("main b").count()).toBe(0);
  expect(await page.locator("main script").count()).toBe(0);
  expect(dialogs).toBe(0);
});

test("an unknown case id is a 404 page, not an error", async ({ page }) => {
  const res = await page.goto(`/cases/${encodeURIComponent("no/such/case")}`);
  expect(res?.status()).toBe(404);
  await expect(page.getByText("No case has that id in this database.")).toBeVisible();
});
