import { expect, test, type Page } from "@playwright/test";
import { syntheticBundle } from "../lib/bundle";
import { createUser, seedBundle, signIn, type TestUser } from "./fixtures";

let researcher: TestUser;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
});
test.beforeEach(async ({ page }) => {
  await signIn(page, researcher);
});

const GOLD = "ag2/webarena_verified_hard_267/attempt_000";
const goldUrl = (node?: string) => `/cases/${encodeURIComponent(GOLD)}${node ? `?node=${node}` : ""}`;

const graphNode = (page: Page, id: string) => page.locator(`[data-testid=graph-node][data-node-id="${id}"]`);
const row = (page: Page, id: string) => page.locator(`[role=option][data-node-id="${id}"]`);
const detail = (page: Page, id: string) => page.locator(`[data-testid=node-detail][data-node-id="${id}"]`);

async function expectSelected(page: Page, id: string) {
  await expect(row(page, id)).toHaveAttribute("aria-selected", "true");
  await expect(graphNode(page, id)).toHaveAttribute("data-selected", "true");
  await expect(detail(page, id)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`node=${id}$`));
}

test("selecting a timeline row selects the node in the graph and the detail panel, and a parent can be walked to", async ({ page }) => {
  await page.goto(goldUrl());
  await expect(page.getByTestId("trace-graph").locator("[data-testid=graph-node]").first()).toBeVisible();
  await row(page, "tool_result_0002").click();
  await expectSelected(page, "tool_result_0002");
  await expect(detail(page, "tool_result_0002")).toContainText("verifies");
  await expect(page.getByTestId("node-content")).toContainText("Stephen King");
  // walk to the parent from the detail panel
  await detail(page, "tool_result_0002").getByRole("button", { name: /tool_call_0002/ }).click();
  await expectSelected(page, "tool_call_0002");
  // and back down with the keyboard (c = first child)
  await page.keyboard.press("c");
  await expectSelected(page, "tool_result_0002");
  await page.screenshot({ path: "e2e-artifacts/inspector-gold-c2.png", fullPage: true });
});

test("clicking a node in the graph selects it in the timeline", async ({ page }) => {
  await page.goto(goldUrl("task_0000"));
  await graphNode(page, "llm_call_0000").click();
  await expectSelected(page, "llm_call_0000");
});

test("a deep link opens with the node selected and in view", async ({ page }) => {
  await page.goto(goldUrl("final_result"));
  await expectSelected(page, "final_result");
  const box = await graphNode(page, "final_result").boundingBox();
  const graph = await page.getByTestId("trace-graph").boundingBox();
  expect(box && graph).toBeTruthy();
  expect(box!.y).toBeGreaterThanOrEqual(graph!.y - 1);
  expect(box!.y + box!.height).toBeLessThanOrEqual(graph!.y + graph!.height + 1);
});

test("keyboard: j/k walk the observed order, ? lists the keys, / focuses search", async ({ page }) => {
  await page.goto(goldUrl("task_0000"));
  await expectSelected(page, "task_0000");
  await page.keyboard.press("j");
  await expectSelected(page, "llm_call_0000");
  await page.keyboard.press("ArrowDown");
  await expectSelected(page, "agent_action_0000");
  await page.keyboard.press("k");
  await expectSelected(page, "llm_call_0000");
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.keyboard.press("/");
  await expect(page.getByLabel("Search in this trace")).toBeFocused();
});

test("search highlights matching nodes in the timeline and the graph; Enter jumps to a match", async ({ page }) => {
  await page.goto(goldUrl("task_0000"));
  await page.getByLabel("Search in this trace").fill("coordinates");
  await expect(page.getByTestId("match-count")).toHaveText(/^[1-9]\d* match(es)?$/);
  const n = Number((await page.getByTestId("match-count").textContent())!.split(" ")[0]);
  await expect(page.locator("[role=option][data-match]")).toHaveCount(n);
  await expect(page.locator('[data-testid=graph-node][data-match="true"]').first()).toBeVisible();
  await page.getByLabel("Search in this trace").press("Enter");
  const selected = await page.locator("[role=option][aria-selected=true]").getAttribute("data-node-id");
  await expect(row(page, selected!)).toHaveAttribute("data-match", "true");
  // the hit is marked inside the node's content (as text)
  await page.getByRole("tab", { name: "Node" }).click();
  await expect(page.getByTestId("node-content").locator("[data-search-hit]").first()).toHaveText(/coordinates/i);
});

test("Enter pressed right after typing a search jumps to the first match; further Enters cycle through the matches", async ({ page }) => {
  await page.goto(goldUrl("task_0000"));
  const box = page.getByLabel("Search in this trace");
  await box.fill("coordinates");
  await box.press("Enter"); // before the (debounced) results are in
  await expect(page.getByTestId("match-count")).toHaveText(/^[1-9]\d* match(es)?$/);
  const ids = await page.locator("[role=option][data-match]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node-id")!));
  expect(ids.length).toBeGreaterThan(0);
  const selected = page.locator("[role=option][aria-selected=true]");
  await expect(selected).toHaveAttribute("data-node-id", ids[0]);
  for (let i = 1; i <= ids.length; i++) {
    await box.press("Enter");
    await expect(selected).toHaveAttribute("data-node-id", ids[i % ids.length]);
  }
  await box.press("Shift+Enter");
  await expect(selected).toHaveAttribute("data-node-id", ids[ids.length - 1]);
});

test("a 4,001-node trace opens, renders only what is in view, and stays usable", async ({ page }) => {
  const b = await seedBundle((id) => syntheticBundle({ id, turns: 1000, taskNode: false }));
  expect(b.graph.nodes).toHaveLength(4001);
  const mid = b.order[2000];
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${mid}`);
  await expectSelected(page, mid);
  const rendered = await page.locator("[data-testid=graph-node]").count();
  expect(rendered).toBeGreaterThan(5);
  expect(rendered).toBeLessThan(400);
  expect(await page.locator("[role=option]").count()).toBeLessThan(200);
  await page.keyboard.press("j");
  await expectSelected(page, b.order[2001]);
  await page.getByLabel("Search in this trace").fill("error");
  await expect(page.getByTestId("match-count")).toHaveText(/^[1-9]\d* match(es)?$/);
  await page.screenshot({ path: "e2e-artifacts/inspector-4001.png" });
});

test("the layered (ELK) layout is computed in its Web Worker and moves the agents' lanes together", async ({ page }) => {
  await page.goto(goldUrl("task_0000"));
  // task_0000 (User) and llm_call_0000 (WebSurfer): separate lanes side by side; one chain in ELK's layers
  const dx = async () => {
    const [a, b] = await Promise.all([graphNode(page, "task_0000").boundingBox(), graphNode(page, "llm_call_0000").boundingBox()]);
    return Math.round(Math.abs(a!.x - b!.x));
  };
  await expect(graphNode(page, "llm_call_0000")).toBeVisible();
  expect(await dx()).toBeGreaterThan(50);
  await page.getByLabel("Graph layout").selectOption("layered");
  await expect.poll(dx, { timeout: 15_000 }).toBe(0);
  await expect(page.getByText(/^ELK:/)).toHaveCount(0);
  await expect(page.getByText("laying out…")).toHaveCount(0);
});
