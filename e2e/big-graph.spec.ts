import { expect, test, type Page } from "@playwright/test";
import { syntheticBundle } from "../lib/bundle";
import { FIT_MIN_ZOOM } from "../lib/layout";
import { createUser, seedBundle, signIn, type TestUser } from "./fixtures";

/**
 * Issue 11 item 6: "Fit" on a 121-node case gave an unreadable strip (zoom ≈ 0.28, lane names cut
 * to one letter), about 480 px of a 900 px window was graph, and the minimap covered nodes.
 */
let researcher: TestUser;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
});
test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, researcher);
});

const AGENTS = ["Orchestrator", "WebSurfer", "Coder", "FileSurfer", "ComputerTerminal", "DocumentRetrievalSpecialistWithAVeryLongName"];

/** The graph's viewport (screen = flow · zoom + (x, y)), as its root element reports it. */
async function flowViewport(page: Page) {
  const g = page.getByTestId("trace-graph");
  const [x, y, zoom] = await Promise.all(["data-x", "data-y", "data-zoom"].map(async (a) => Number(await g.getAttribute(a))));
  return { x, y, zoom };
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test("Fit on a 121-node, 6-lane case: readable zoom, full lane names, a tall graph pane, the minimap off the nodes", async ({ page }) => {
  const b = await seedBundle((id) => syntheticBundle({ id, turns: 30, taskNode: false, agents: AGENTS }));
  expect(b.graph.nodes).toHaveLength(121);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  const graph = page.getByTestId("trace-graph");
  await expect(graph.locator("[data-testid=graph-node]").first()).toBeVisible();
  await page.getByRole("button", { name: "Fit (f)" }).click();
  await page.waitForTimeout(600); // the 200 ms fit animation and the next frame

  // 1. zoom never below the readable floor
  const v = await flowViewport(page);
  console.log(`121-node Fit at 1280x900: zoom ${v.zoom.toFixed(3)} (floor ${FIT_MIN_ZOOM})`);
  expect(v.zoom).toBeGreaterThanOrEqual(FIT_MIN_ZOOM - 1e-6);
  // the first node of the observed order is in view at the top (vertical scrolling through the order)
  const first = await graph.locator(`[data-testid=graph-node][data-node-id="${b.order[0]}"]`).boundingBox();
  const canvas = (await page.getByTestId("graph-canvas").boundingBox())!;
  expect(first).toBeTruthy();
  expect(first!.y).toBeGreaterThanOrEqual(canvas.y);
  expect(first!.y + first!.height).toBeLessThanOrEqual(canvas.y + canvas.height);

  // 2. every lane header shows its whole name, or (ellipsis) carries it in its title; never one letter
  const headers = page.getByTestId("lane-headers").locator("[data-lane]");
  await expect(headers).toHaveCount(6);
  for (const h of await headers.all()) {
    const r = await h.evaluate((el) => ({ text: el.textContent, title: el.getAttribute("title"), sw: el.scrollWidth, cw: el.clientWidth }));
    expect(AGENTS).toContain(r.text);
    console.log(`lane header ${r.text}: ${r.cw} px wide, text ${r.sw} px, title ${r.title ? "set" : "none"}`);
    expect(r.cw).toBeGreaterThanOrEqual(96);
    expect(r.sw <= r.cw || r.title === r.text).toBe(true);
  }
  // the usual agent names fit outright at the floor (only the 44-character one gets an ellipsis)
  for (const name of AGENTS.slice(0, 5)) {
    const fits = await page.locator(`[data-lane="${name}"]`).evaluate((el) => el.scrollWidth <= el.clientWidth);
    expect(fits, `${name} fits its header`).toBe(true);
  }

  // 3. the graph pane takes the height available: ≥ 70% of the window below the site header, on screen
  const header = (await page.locator("body > header").boundingBox())!;
  const pane = (await graph.boundingBox())!;
  const onScreen = Math.min(pane.y + pane.height, 900) - Math.max(pane.y, 0);
  console.log(`graph pane on screen: ${Math.round(onScreen)} px of ${Math.round(900 - header.height)} px below the site header (${Math.round((100 * onScreen) / (900 - header.height))}%)`);
  expect(onScreen).toBeGreaterThanOrEqual(0.7 * (900 - header.height));

  // 4. the minimap covers no visible node
  const map = (await page.getByTestId("overview-map").boundingBox())!;
  const nodes = await graph.locator("[data-testid=graph-node]").evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
  const visible = nodes.filter((n) => overlaps(n, canvas));
  expect(visible.length).toBeGreaterThan(5);
  for (const n of visible) expect(overlaps(map, n)).toBe(false);
  await page.screenshot({ path: "e2e-artifacts/big-graph-121-fit.png" });

  // the key f does the same, and the view can be panned down through the observed order
  await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  await page.mouse.wheel(0, 1500);
  await page.waitForTimeout(300);
  expect((await flowViewport(page)).y).toBeLessThan(v.y);
  await page.keyboard.press("f");
  await page.waitForTimeout(600);
  expect((await flowViewport(page)).zoom).toBeGreaterThanOrEqual(FIT_MIN_ZOOM - 1e-6);

  // selecting the last node and fitting shows it (zoom still ≥ floor)
  const last = b.order[b.order.length - 1];
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${last}`);
  await expect(page.locator(`[role=option][data-node-id="${last}"]`)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("f");
  await page.waitForTimeout(600);
  expect((await flowViewport(page)).zoom).toBeGreaterThanOrEqual(FIT_MIN_ZOOM - 1e-6);
  const lb = (await graph.locator(`[data-testid=graph-node][data-node-id="${last}"]`).boundingBox())!;
  expect(lb.y).toBeGreaterThanOrEqual(canvas.y);
  expect(lb.y + lb.height).toBeLessThanOrEqual(canvas.y + canvas.height + 1);
  await page.screenshot({ path: "e2e-artifacts/big-graph-121-fit-last.png" });
});

test("zoomed far out, lane headers stack in rows at their minimum width instead of being cut; the minimap folds away", async ({ page }) => {
  const b = await seedBundle((id) => syntheticBundle({ id, turns: 30, taskNode: false, agents: AGENTS }));
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  const graph = page.getByTestId("trace-graph");
  await expect(graph.locator("[data-testid=graph-node]").first()).toBeVisible();
  const canvas = (await page.getByTestId("graph-canvas").boundingBox())!;
  await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
  for (let i = 0; i < 9; i++) await page.getByRole("button", { name: "zoom out" }).click();
  await page.waitForTimeout(400);
  expect((await flowViewport(page)).zoom).toBeLessThan(0.2);
  const widths = await page.getByTestId("lane-headers").locator("[data-lane]").evaluateAll((els) => els.map((e) => e.clientWidth));
  expect(widths).toHaveLength(6);
  for (const w of widths) expect(w).toBeGreaterThanOrEqual(96);
  await page.screenshot({ path: "e2e-artifacts/big-graph-121-zoomed-out.png" });
  await page.getByRole("button", { name: "Hide minimap" }).click();
  await expect(page.getByTestId("overview-map")).toHaveCount(0);
  await page.getByRole("button", { name: "Show minimap" }).click();
  await expect(page.getByTestId("overview-map")).toBeVisible();
});
