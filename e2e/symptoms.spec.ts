/**
 * Issue 12 items 4 and 5 in the browser: the inspector's symptom layer on a gold case (researcher),
 * blindness of the layer for an annotator before submitting, and the earliest-node warning in the
 * annotation form. gold-c2 (rules only, `symtrace detect`): tool_call_0002 C2.repeated-action,
 * tool_result_0002 C2.no-new-evidence, llm_call_0003 C2.repeated-url (the anchor), final_result C1.
 */
import { expect, test, type Page } from "@playwright/test";
import { assign, createUser, goldCopy, seedBundle, signIn } from "./fixtures";

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
  // a coloured node in the graph: c_f of tool_call_0002 is 0.761
  await expect(page.locator("[data-testid=trace-graph] [data-cf]").first()).toBeVisible();
  await row(page, "tool_call_0002").click();
  const rules = page.getByTestId("symptom-rules");
  await expect(rules).toContainText("C2.repeated-action");
  await expect(rules).toContainText("c_f = 0.761");
  await row(page, "llm_call_0003").click();
  await expect(rules).toContainText("intervention anchor");
  await expect(rules).toContainText("C2.repeated-url");
});

test("an annotator does not see the symptom layer before submitting; the earliest-node warning names the upstream rule and jumps there", async ({ page }) => {
  const b = await seedBundle(goldCopy("gold-c2"));
  const a = await createUser(["annotator"]);
  await assign(b.id, [a]);
  await signIn(page, a);
  page.on("dialog", (d) => void d.accept());
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await expect(page.getByTestId("blind-notice")).toBeVisible();
  await expect(page.getByTestId("symptoms-toggle")).toHaveCount(0);
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  await panel.getByRole("checkbox", { name: /^C2 / }).check();
  // choose tool_result_0002: downstream of tool_call_0002, where C2.repeated-action fires
  await row(page, "tool_result_0002").click();
  await panel.getByRole("button", { name: "Use selected node (tool_result_0002)" }).click();
  const warnings = panel.getByTestId("earliest-warnings");
  await expect(warnings).toContainText("C2.repeated-action", { timeout: 10_000 });
  await expect(warnings).toContainText("tool_call_0002");
  // no warning for a category nobody chose: C3 rules do not fire upstream here, and C1 only on final_result
  await expect(warnings).not.toContainText("C1.");
  await warnings.getByRole("button", { name: "tool_call_0002" }).first().click();
  await expect(row(page, "tool_call_0002")).toHaveAttribute("aria-selected", "true");
  // still blind: no detection output beyond the warning
  await expect(page.getByTestId("symptoms-toggle")).toHaveCount(0);
  await panel.getByRole("radio", { name: /^high / }).check();
  await panel.getByLabel("Rationale").fill("the search is repeated without new parameters");
  await expect(panel.getByTestId("save-status")).toContainText("saved", { timeout: 10_000 });
  await panel.getByRole("button", { name: "Submit annotation" }).click();
  await expect(page.getByText("submitted · locked")).toBeVisible({ timeout: 10_000 });
  // after submitting, the layer is available
  await expect(page.getByTestId("symptoms-toggle")).toBeVisible({ timeout: 10_000 });
});
