/**
 * Issue 12 items 4 and 5 in the browser: the inspector's symptom layer on a gold case (researcher),
 * blindness of the layer for an annotator before submitting, and the earliest-node warning in the
 * annotation form — for an unassisted annotator before submitting only checks of their own inputs,
 * rule-based warnings for an assisted one (recorded as assisted) or after submitting (issue 20
 * item 2). gold-c2 (rules only, `symtrace detect`): tool_call_0002 C2.repeated-action,
 * tool_result_0002 C2.no-new-evidence, llm_call_0003 C2.repeated-url (the anchor), final_result C1.
 */
import { expect, test, type Page } from "@playwright/test";
import { assign, createUser, goldCopy, seedBundle, signIn, storedAnnotation } from "./fixtures";

const row = (page: Page, id: string) => page.locator(`[role=option][data-node-id="${id}"]`);

test("a researcher toggles the symptom layer: anchor marked, nodes coloured by c_f, rules listed with evidence", async ({ page }) => {
  const b = await seedBundle(goldCopy("gold-c2"));
  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  const toggle = page.getByTestId("symptoms-toggle");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await expect(page.locator("[data-mark=anchor]")).toHaveCount(0);
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  // the anchor badge (timeline row of llm_call_0003 at least)
  await expect(row(page, "llm_call_0003").locator("[data-mark=anchor]")).toBeVisible();
  // a coloured node in the graph: c_f of tool_call_0002 is 0.761 (selected, so it is on screen: the graph draws only what is)
  await row(page, "tool_call_0002").click();
  await expect(page.locator('[data-testid=trace-graph] [data-node-id="tool_call_0002"][data-cf]')).toHaveAttribute("data-cf", "0.761");
  const rules = page.getByTestId("symptom-rules");
  await expect(rules).toContainText("C2.repeated-action");
  await expect(rules).toContainText("c_f = 0.761");
  await row(page, "llm_call_0003").click();
  await expect(rules).toContainText("intervention anchor");
  await expect(rules).toContainText("C2.repeated-url");
});

const enc = encodeURIComponent;
/** gold-c2: C2 at tool_result_0002 (C2.repeated-action fires upstream, on tool_call_0002) with a quote from llm_call_0003 (downstream). */
const TUPLE = { categories: ["C2"], primary: "C2", nodeId: "tool_result_0002", nodeType: "tool_result", confidence: null, rationale: "", evidence: [{ nodeId: "llm_call_0003", quote: "wiki/Stephen_King" }] };

test("an unassisted annotator before submitting: no symptom layer, and the earliest-node check uses only their own inputs (a downstream quote warns, an upstream rule never does); rule warnings after submitting", async ({ page }) => {
  const b = await seedBundle(goldCopy("gold-c2"));
  const a = await createUser(["annotator"]);
  await assign(b.id, [a]);
  await signIn(page, a);
  page.on("dialog", (d) => void d.accept());
  const api = `/api/cases/${enc(b.id)}`;
  // the server's answers: the most revealing question (last node, all four categories) gets nothing
  const last = await page.request.post(`${api}/earliest-check`, { data: { node: "final_result", categories: ["C1", "C2", "C3", "C4"], evidence: [] } });
  expect(await last.json()).toEqual({ warnings: [], detector: false });
  const own = await page.request.post(`${api}/earliest-check`, { data: { node: TUPLE.nodeId, categories: TUPLE.categories, evidence: TUPLE.evidence } });
  expect(await own.json()).toEqual({ warnings: [{ kind: "downstream-evidence", nodeId: "llm_call_0003", quote: "wiki/Stephen_King" }], detector: false });
  // the form, with that draft saved
  const s = await page.request.put(`${api}/annotations/mine`, { data: { kind: "initial", version: 0, fields: TUPLE } });
  expect(s.status(), await s.text()).toBe(200);
  await page.goto(`/cases/${enc(b.id)}`);
  await expect(page.getByTestId("blind-notice")).toBeVisible();
  await expect(page.getByTestId("symptoms-toggle")).toHaveCount(0);
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  const warnings = panel.getByTestId("earliest-warnings");
  await expect(warnings).toContainText("downstream of the chosen node", { timeout: 10_000 });
  await expect(warnings.getByTestId("earliest-warning")).toHaveCount(1);
  await expect(warnings).not.toContainText("C2.repeated-action");
  await expect(warnings).not.toContainText("fires upstream");
  await panel.getByRole("radio", { name: /^high / }).check();
  await panel.getByLabel("Rationale").fill("the search is repeated without new parameters");
  await expect(panel.getByTestId("save-status")).toContainText("saved", { timeout: 10_000 });
  await panel.getByRole("button", { name: "Submit annotation" }).click();
  await expect(page.getByText("submitted · locked")).toBeVisible({ timeout: 10_000 });
  // recorded as unassisted, with the warnings the form showed: no rule among them
  expect(await storedAnnotation(b.id, a.id)).toEqual({ status: "submitted", assisted: false, warningsShown: [{ kind: "downstream-evidence", nodeId: "llm_call_0003", quote: "wiki/Stephen_King" }] });
  // after submitting: the layer, and the detector-based warning
  await expect(page.getByTestId("symptoms-toggle")).toBeVisible({ timeout: 10_000 });
  const after = await page.request.post(`${api}/earliest-check`, { data: { node: TUPLE.nodeId, categories: TUPLE.categories, evidence: [] } });
  expect(await after.json()).toMatchObject({ detector: true, warnings: [{ kind: "upstream-rule", nodeId: "tool_call_0002", ruleId: "C2.repeated-action" }] });
});

test("an assisted annotator sees the symptom layer before submitting; the earliest-node warning names the upstream rule and jumps there; the annotation is recorded as assisted", async ({ page }) => {
  const b = await seedBundle(goldCopy("gold-c2"));
  const a = await createUser(["annotator"]);
  await assign(b.id, [a], undefined, { assisted: true });
  await signIn(page, a);
  page.on("dialog", (d) => void d.accept());
  await page.goto(`/cases/${enc(b.id)}`);
  await expect(page.getByTestId("blind-notice")).toBeVisible();
  await expect(page.getByTestId("symptoms-toggle")).toBeVisible();
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  await panel.getByRole("checkbox", { name: /^C2 / }).check();
  await row(page, "tool_result_0002").click();
  await panel.getByRole("button", { name: "Use selected node (tool_result_0002)" }).click();
  const warnings = panel.getByTestId("earliest-warnings");
  await expect(warnings).toContainText("C2.repeated-action", { timeout: 10_000 });
  await expect(warnings).toContainText("tool_call_0002");
  // no warning for a category nobody chose: C3 rules do not fire upstream here, and C1 only on final_result
  await expect(warnings).not.toContainText("C1.");
  await warnings.getByRole("button", { name: "tool_call_0002" }).first().click();
  await expect(row(page, "tool_call_0002")).toHaveAttribute("aria-selected", "true");
  await panel.getByRole("radio", { name: /^high / }).check();
  await panel.getByLabel("Rationale").fill("the search is repeated without new parameters");
  await expect(panel.getByTestId("save-status")).toContainText("saved", { timeout: 10_000 });
  await panel.getByRole("button", { name: "Submit annotation" }).click();
  await expect(page.getByText("submitted · locked")).toBeVisible({ timeout: 10_000 });
  const stored = await storedAnnotation(b.id, a.id);
  expect(stored).toMatchObject({ status: "submitted", assisted: true });
  expect(stored!.warningsShown!.map((w) => w.ruleId)).toContain("C2.repeated-action");
});
