import { expect, test, type Page } from "@playwright/test";
import { syntheticBundle, type ReplayBundle } from "../lib/bundle";
import { detectSymptoms } from "../lib/symptoms";
import { assign, createUser, seedBundle, signIn, type TestUser } from "./fixtures";

/**
 * Issue 16 item 4: a case over SYMTRACE_WINDOWED_NODES (5,000) opens in the windowed inspector.
 * The page carries one window around the selected node; deep links, keyboard walk across window
 * boundaries, parent/child jumps, search and the zoomed-out overview work on a 6,402-node case;
 * the timeline runs over the same windows; the symptom layer (rules only, whole case) rings
 * flagged nodes, marks and reaches the anchor, lists a node's rules, and stays hidden from a
 * blind annotator.
 */
let researcher: TestUser;
let b: ReplayBundle;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
  b = await seedBundle((id) => syntheticBundle({ id, turns: 1600, seed: 11 }));
});
test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await signIn(page, researcher);
});

const graphNode = (page: Page, id: string) => page.getByTestId("trace-graph").locator(`[data-testid=graph-node][data-node-id="${id}"]`);
const panelShows = (page: Page, id: string) => expect(page.locator(`[data-testid=node-detail][data-node-id="${id}"]`)).toBeVisible();

test("deep link far down the trace: only a window is loaded, the node is shown and detailed", async ({ page }) => {
  expect(b.graph.nodes).toHaveLength(6402);
  const target = "tool_result_1500";
  const row = b.order.indexOf(target);
  const html = await (await page.request.get(`/cases/${encodeURIComponent(b.id)}?node=${target}`)).text();
  // the page carries a window, not the whole graph: the first and the last node are not in it
  expect(html).toContain(target);
  expect(html).not.toContain('"llm_call_0000"');
  expect(html).not.toContain('"final_result"');
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${target}`);
  await expect(page.getByTestId("inspector")).toHaveAttribute("data-windowed", "true");
  await expect(graphNode(page, target)).toBeVisible();
  await expect(graphNode(page, target)).toHaveAttribute("data-selected", "true");
  await expect(graphNode(page, target)).toHaveAttribute("data-order-index", String(row));
  await panelShows(page, target);
});

test("keyboard walk across a window boundary, parent/child jumps, clicks", async ({ page }) => {
  // row 599 is the last of block 2; the page loads blocks 1..3 around row 500
  const start = b.order[599];
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${start}`);
  await expect(graphNode(page, start)).toHaveAttribute("data-selected", "true");
  for (let i = 1; i <= 3; i++) {
    await page.keyboard.press("j");
    await expect(graphNode(page, b.order[599 + i])).toHaveAttribute("data-selected", "true");
  }
  await page.keyboard.press("k");
  await expect(graphNode(page, b.order[601])).toHaveAttribute("data-selected", "true");
  await expect(page).toHaveURL(new RegExp(`node=${b.order[601]}`));
  // parent of llm_call_t is tool_result_{t-1} or agent_action_{t-1}: the first incoming edge in bundle order
  const llm = "llm_call_1000";
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${llm}`);
  await expect(graphNode(page, llm)).toHaveAttribute("data-selected", "true");
  const parent = b.graph.edges.find((e) => e.to === llm)!.from;
  await page.keyboard.press("p");
  await expect(graphNode(page, parent)).toHaveAttribute("data-selected", "true");
  await panelShows(page, parent);
  const child = b.graph.edges.find((e) => e.from === parent)!.to;
  await page.keyboard.press("c");
  await expect(graphNode(page, child)).toHaveAttribute("data-selected", "true");
  // a click selects and opens the panel
  const other = b.order[b.order.indexOf(llm) + 2];
  await graphNode(page, other).click();
  await expect(graphNode(page, other)).toHaveAttribute("data-selected", "true");
  await panelShows(page, other);
});

test("search jumps to a match outside the loaded windows; Fit shows the overview; a click on it zooms in there", async ({ page }) => {
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await expect(graphNode(page, b.order[0])).toBeVisible();
  const search = page.getByLabel("Search in this trace");
  await search.fill("tool_call_1444");
  await expect(page.getByTestId("match-count")).toHaveText(/^\d+ match/);
  await search.press("Enter");
  await expect(graphNode(page, "tool_call_1444")).toHaveAttribute("data-selected", "true");
  await panelShows(page, "tool_call_1444");

  await page.keyboard.press("Escape");
  await page.keyboard.press("f");
  const graph = page.getByTestId("trace-graph");
  await expect(graph).toHaveAttribute("data-mode", "overview");
  await expect(page.getByTestId("graph-overview")).toBeVisible();
  await expect(page.getByTestId("graph-position")).toContainText(`of ${(6402).toLocaleString("en")}`);
  // the overview's canvas has marks (the index arrived and was drawn)
  await expect
    .poll(async () =>
      page.getByTestId("graph-overview").evaluate((c) => {
        const cv = c as HTMLCanvasElement;
        const d = cv.getContext("2d")!.getImageData(0, 0, cv.width, cv.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
        return n;
      }),
    )
    .toBeGreaterThan(1000);
  // click three quarters down: the detail view opens around row ~4,800
  await page.getByTestId("inspector").evaluate((el) => el.scrollIntoView({ block: "end" }));
  const box = (await page.getByTestId("graph-overview").boundingBox())!;
  await page.mouse.click(box.x + 40, box.y + box.height * 0.75);
  await expect(graph).toHaveAttribute("data-mode", "detail");
  await expect(graph.locator("[data-testid=graph-node]").first()).toBeVisible();
  const rows = await graph.locator("[data-testid=graph-node]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-order-index"))));
  const mid = rows.reduce((a, r) => a + r, 0) / rows.length;
  expect(Math.abs(mid - 0.75 * 6402)).toBeLessThan(200);
});

const timelineRow = (page: Page, id: string) => page.getByTestId("timeline").locator(`[role=option][data-node-id="${id}"]`);

test("the timeline follows the windows: selection, clicks, j/k, scrolling far loads the rows there", async ({ page }) => {
  const target = "tool_result_1200";
  const row = b.order.indexOf(target);
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${target}`);
  await expect(page.getByTestId("timeline")).toHaveAttribute("data-windowed", "true");
  await expect(timelineRow(page, target)).toBeVisible();
  await expect(timelineRow(page, target)).toHaveAttribute("aria-selected", "true");
  await expect(timelineRow(page, target)).toHaveAttribute("data-order-index", String(row));
  // a click on a timeline row selects it in the graph and opens its panel
  const other = b.order[row + 2];
  await timelineRow(page, other).click();
  await expect(graphNode(page, other)).toHaveAttribute("data-selected", "true");
  await panelShows(page, other);
  await page.keyboard.press("j");
  await expect(timelineRow(page, b.order[row + 3])).toHaveAttribute("aria-selected", "true");
  // scroll the timeline to row 4,000 (far outside the loaded windows): its rows arrive
  await page.getByTestId("timeline").evaluate((el) => (el.scrollTop = 4000 * 40));
  await expect(timelineRow(page, b.order[4003])).toBeVisible();
  await expect(timelineRow(page, b.order[4003])).toHaveAttribute("data-order-index", "4003");
  await expect(page.getByTestId("timeline-placeholder")).toHaveCount(0);
  await timelineRow(page, b.order[4003]).click();
  await expect(graphNode(page, b.order[4003])).toHaveAttribute("data-selected", "true");
  await panelShows(page, b.order[4003]);
});

test("the symptom layer: flagged nodes ringed by c_f, the anchor marked and reachable, a node's rules in the panel", async ({ page }) => {
  const want = detectSymptoms(b);
  const anchor = want.anchor ?? want.anchorNode;
  expect(anchor).not.toBeNull();
  expect(want.nodes.length).toBeGreaterThan(0);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await expect(graphNode(page, b.order[0])).toBeVisible();
  await page.getByTestId("symptoms-toggle").click();
  await expect(page.getByTestId("symptoms-state")).toContainText(`${want.nodes.length.toLocaleString("en")} flagged`);
  await page.getByTestId("symptoms-anchor").click();
  await expect(graphNode(page, anchor!)).toHaveAttribute("data-selected", "true");
  await expect(graphNode(page, anchor!).locator("[data-mark=anchor]")).toBeVisible();
  await expect(timelineRow(page, anchor!).locator("[data-mark=anchor]")).toBeVisible();
  // a flagged node outside the first windows: found by search, ringed with its c_f, rules listed
  const flagged = [...want.nodes].reverse().find((x) => /_\d{4}$/.test(x.id))!;
  const search = page.getByLabel("Search in this trace");
  await search.fill(flagged.id);
  await expect(page.getByTestId("match-count")).toHaveText(/^\d+ match/);
  await search.press("Enter");
  await expect(graphNode(page, flagged.id)).toHaveAttribute("data-selected", "true");
  await expect(graphNode(page, flagged.id)).toHaveAttribute("data-cf", flagged.cf.toFixed(3));
  const rules = page.getByTestId("symptom-rules");
  await expect(rules).toContainText(`c_f = ${flagged.cf.toFixed(3)}`);
  for (const r of flagged.rules) await expect(rules.locator(`[data-rule="${r.id}"]`)).toBeVisible();
  // off again: no rings
  await page.getByTestId("symptoms-toggle").click();
  await expect(graphNode(page, flagged.id)).not.toHaveAttribute("data-cf", /./);
});

test("an annotator on a blind assignment gets the timeline but no symptom toggle, and the API refuses the layer", async ({ page }) => {
  const annotator = await createUser(["annotator"]);
  await assign(b.id, [annotator]);
  await signIn(page, annotator);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await expect(page.getByTestId("inspector")).toHaveAttribute("data-windowed", "true");
  await expect(timelineRow(page, b.order[0])).toBeVisible();
  await expect(page.getByTestId("symptoms-toggle")).toHaveCount(0);
  expect((await page.request.get(`/api/cases/${encodeURIComponent(b.id)}/symptoms`)).status()).toBe(403);
});

test("the layered (ELK) layout and the minimap on a window of 600 rows of the large trace, moving with the selection", async ({ page }) => {
  const target = "tool_result_1000";
  const row = b.order.indexOf(target);
  const windowText = (r: number) => {
    const from = Math.max(0, Math.min(6402 - 600, Math.round(r - 300)));
    return { from, text: `rows ${from.toLocaleString("en")}–${(from + 599).toLocaleString("en")}` };
  };
  await page.goto(`/cases/${encodeURIComponent(b.id)}?node=${target}`);
  await expect(graphNode(page, target)).toHaveAttribute("data-selected", "true");
  const graph = page.getByTestId("trace-graph");
  // agent lanes over windows: no minimap (zoomed out, the overview stands for it)
  await expect(graph).toHaveAttribute("data-layout", "lanes");
  await expect(page.getByTestId("overview-map")).toHaveCount(0);
  await page.getByLabel("Graph layout").selectOption("layered");
  await expect(graph).toHaveAttribute("data-layout", "layered", { timeout: 30_000 });
  await expect(page.getByText(/^ELK:/)).toHaveCount(0);
  const w = windowText(row);
  await expect(page.getByTestId("layered-window")).toHaveText(w.text);
  await expect(page.getByTestId("overview-map")).toBeVisible();
  await expect(graphNode(page, target)).toHaveAttribute("data-selected", "true");
  // every node drawn is a row of the window
  const rows = await graph.locator("[data-testid=graph-node]").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-order-index"))));
  expect(rows.length).toBeGreaterThan(3);
  for (const r of rows) expect(r >= w.from && r < w.from + 600, `row ${r} in the window`).toBe(true);
  // a click selects and opens the panel
  const other = b.order[row + 1];
  await graphNode(page, other).click();
  await expect(graphNode(page, other)).toHaveAttribute("data-selected", "true");
  await panelShows(page, other);
  // a selection outside the window (search) moves the window there and lays it out
  const far = "tool_call_1444";
  const search = page.getByLabel("Search in this trace");
  await search.fill(far);
  await expect(page.getByTestId("match-count")).toHaveText(/^\d+ match/);
  await search.press("Enter");
  await expect(page.getByTestId("layered-window")).toHaveText(windowText(b.order.indexOf(far)).text, { timeout: 30_000 });
  await expect(graph).toHaveAttribute("data-layout", "layered", { timeout: 30_000 });
  await expect(graphNode(page, far)).toHaveAttribute("data-selected", "true");
  await page.screenshot({ path: "e2e-artifacts/windowed-layered.png" });
});
