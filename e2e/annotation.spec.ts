import { expect, test, type Page } from "@playwright/test";
import { apiAs, assign, createUser, goldCopy, seedBundle, signIn, type TestUser } from "./fixtures";

/**
 * The SymFail workflow with four real users in a real browser: three annotators label the same
 * gold case independently, the adjudicator finalizes, and the case shows as finalized.
 */

const row = (page: Page, id: string) => page.locator(`[role=option][data-node-id="${id}"]`);

async function selectTextInContent(page: Page, text: string) {
  await page.evaluate((needle) => {
    const root = document.querySelector("[data-testid=node-content]")!;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const i = n.textContent!.indexOf(needle);
      if (i >= 0) {
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + needle.length);
        const sel = window.getSelection()!;
        sel.removeAllRanges();
        sel.addRange(r);
        return;
      }
    }
    throw new Error(`text not found in node content: ${needle}`);
  }, text);
}

/**
 * Select from the text node that equals `fromExact` (e.g. a key name, which is its own text node)
 * to the end of `toText` in a later text node, like a mouse drag across key and value.
 */
async function selectAcross(page: Page, fromExact: string, toText: string) {
  await page.evaluate(
    ([from, to]) => {
      const root = document.querySelector("[data-testid=node-content]")!;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      let start: Text | null = null;
      for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
        if (!start && n.data === from) start = n;
        else if (start && n.data.includes(to)) {
          const r = document.createRange();
          r.setStart(start, 0);
          r.setEnd(n, n.data.indexOf(to) + to.length);
          const sel = window.getSelection()!;
          sel.removeAllRanges();
          sel.addRange(r);
          return;
        }
      }
      throw new Error(`no selection from "${from}" to "${to}" in node content`);
    },
    [fromExact, toText] as const,
  );
}

interface Plan {
  categories: string[];
  primary: string;
  node: string;
  confidence: "high" | "medium" | "low";
  rationale: string;
  quote?: { node: string; text: string };
}

async function annotate(page: Page, caseUrl: string, plan: Plan) {
  await page.goto(caseUrl);
  await expect(page.getByTestId("blind-notice")).toBeVisible();
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  if (plan.quote) {
    await row(page, plan.quote.node).click();
    await page.getByRole("tab", { name: "Node" }).click();
    await expect(page.locator(`[data-testid=node-detail][data-node-id="${plan.quote.node}"]`)).toBeVisible();
    await selectTextInContent(page, plan.quote.text);
    await page.getByRole("button", { name: "Quote selection as evidence" }).click();
    await expect(page.getByRole("status")).toContainText("Quoted");
    await page.getByRole("tab", { name: "Annotate" }).click();
  }
  for (const c of plan.categories) await panel.getByRole("checkbox", { name: new RegExp(`^${c} `) }).check();
  await panel.getByRole("radio", { name: plan.primary, exact: true }).check();
  await row(page, plan.node).click();
  await panel.getByRole("button", { name: `Use selected node (${plan.node})` }).click();
  await expect(panel.getByTestId("chosen-node")).toContainText(plan.node);
  await panel.getByRole("radio", { name: new RegExp(`^${plan.confidence} `) }).check();
  await panel.getByLabel("Rationale").fill(plan.rationale);
  await expect(panel.getByTestId("save-status")).toContainText("saved", { timeout: 10_000 });
  await panel.getByRole("button", { name: "Submit annotation" }).click();
  await expect(page.getByText("submitted · locked")).toBeVisible({ timeout: 10_000 });
}

test("keys 1–4 toggle C1–C4 and Shift+1–4 set the primary in the annotation form", async ({ page }) => {
  const b = await seedBundle(goldCopy("gold-c1"));
  const a = await createUser(["annotator"]);
  await assign(b.id, [a]);
  await signIn(page, a);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  const box = (c: string) => panel.getByRole("checkbox", { name: new RegExp(`^${c} `) });
  await page.keyboard.press("1");
  await expect(box("C1")).toBeChecked();
  await page.keyboard.press("3");
  await expect(box("C3")).toBeChecked();
  await page.keyboard.press("Shift+Digit3");
  await expect(panel.getByRole("radio", { name: "C3", exact: true })).toBeChecked();
  await page.keyboard.press("Shift+Digit4"); // adds C4 and makes it the primary
  await expect(box("C4")).toBeChecked();
  await expect(panel.getByRole("radio", { name: "C4", exact: true })).toBeChecked();
  await page.keyboard.press("1");
  await expect(box("C1")).not.toBeChecked();
  // typing in the rationale types digits, it does not toggle categories
  await panel.getByLabel("Rationale").fill("");
  await panel.getByLabel("Rationale").press("2");
  await expect(box("C2")).not.toBeChecked();
  await expect(panel.getByLabel("Rationale")).toHaveValue("2");
});

test("three annotators annotate the same gold case blind, the adjudicator finalizes, and the case shows as finalized", async ({ page }) => {
  test.setTimeout(180_000);
  page.on("dialog", (d) => void d.accept()); // "Submit…?" / "Finalize…?" confirmations
  const b = await seedBundle(goldCopy("gold-c2"));
  const caseUrl = `/cases/${encodeURIComponent(b.id)}`;
  const [a1, a2, a3] = await Promise.all([createUser(["annotator"], "Ann A"), createUser(["annotator"], "Ann B"), createUser(["annotator"], "Ann C")]);
  const judge: TestUser = await createUser(["adjudicator"], "Judge");
  await assign(b.id, [a1, a2, a3], judge);

  // the adjudicator cannot adjudicate before three are in
  await signIn(page, judge);
  await page.goto("/queue");
  await expect(page.getByTestId("queue")).toContainText("0/3 submitted");

  const plans: Plan[] = [
    { categories: ["C2", "C3"], primary: "C2", node: "tool_result_0002", confidence: "high", rationale: "A: repeats the same page after learning nothing new.", quote: { node: "tool_result_0002", text: "Stephen King was born in Portland" } },
    { categories: ["C2"], primary: "C2", node: "tool_result_0002", confidence: "medium", rationale: "B: stalled progress on the same page." },
    { categories: ["C3"], primary: "C3", node: "agent_action_0002", confidence: "low", rationale: "C: the coordinates query left an unresolved condition." },
  ];
  for (const [u, plan] of [
    [a1, plans[0]],
    [a2, plans[1]],
    [a3, plans[2]],
  ] as const) {
    await signIn(page, u);
    await page.goto("/queue");
    await expect(page.getByTestId("queue-progress")).toContainText("1 to do");
    await annotate(page, caseUrl, plan);
    // after submitting, the queue shows it done
    await page.goto("/queue");
    await expect(page.getByTestId("queue-progress")).toContainText("1 done");
  }

  await signIn(page, judge);
  await page.goto(caseUrl);
  await page.getByRole("tab", { name: "Adjudicate" }).click();
  const adj = page.getByTestId("adjudicate-panel");
  await expect(adj.getByTestId("annotation-summary")).toHaveCount(3);
  await expect(adj.getByTestId("disagreement")).toContainText("disputed: C2, C3");
  await expect(adj).toContainText("A: repeats the same page");
  // the graph and the timeline mark which node each annotator chose
  await adj.getByRole("button", { name: "tool_result_0002" }).first().click();
  await expect(row(page, "tool_result_0002").locator('[data-mark="A1"]')).toBeVisible();
  await expect(page.locator('[data-testid=graph-node][data-node-id="tool_result_0002"] [data-mark="A1"]')).toBeVisible();
  await expect(page.locator('[data-testid=graph-node][data-node-id="tool_result_0002"] [data-mark="A2"]')).toBeVisible();
  await adj.getByRole("button", { name: "Start the final from A1" }).click();
  await adj.getByLabel("Rationale").fill("Final: C2 at tool_result_0002; the repeated browse after the failed coordinate query is the earliest actionable node.");
  await page.screenshot({ path: "e2e-artifacts/adjudication.png" });
  await adj.getByRole("button", { name: "Finalize case" }).click();
  await expect(page.getByTestId("finalized-badge")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId("finalized-message")).toContainText("Finalized: the final annotation is saved");

  // a researcher sees the case as finalized, with the final and the three annotations
  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);
  await page.goto(caseUrl);
  await expect(page.getByTestId("finalized-badge")).toBeVisible();
  await page.getByRole("tab", { name: "Final" }).click();
  await expect(page.getByTestId("annotations-view")).toContainText("Final: C2 at tool_result_0002");
  await expect(page.getByTestId("annotations-view").getByTestId("annotation-summary")).toHaveCount(4);
  await page.screenshot({ path: "e2e-artifacts/finalized-case.png" });
});

test("evidence quotes: only value text is quoted, checked at once with the submit rule, marked in the content, duplicates refused, then submit succeeds", async ({ page }) => {
  test.setTimeout(120_000);
  page.on("dialog", (d) => void d.accept());
  const b = await seedBundle(goldCopy("gold-c2"));
  const [a1, a2, a3] = await Promise.all([createUser(["annotator"]), createUser(["annotator"]), createUser(["annotator"])]);
  await assign(b.id, [a1, a2, a3]);
  await signIn(page, a1);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await row(page, "tool_result_0002").click();
  await page.getByRole("tab", { name: "Node" }).click();
  const detail = page.locator('[data-testid=node-detail][data-node-id="tool_result_0002"]');
  await expect(detail).toBeVisible();
  await expect(page.getByTestId("quote-rule-help")).toContainText("CRLF counts as LF");
  await expect(page.getByTestId("quote-rule-help")).toContainText("NFC");
  const quoteBtn = page.getByRole("button", { name: "Quote selection as evidence" });
  const msg = page.getByTestId("quote-message");
  const content = page.getByTestId("node-content");

  // 1. a drag from the key "text" into its value: only the value text is quoted (no key, colon or quote mark)
  await selectAcross(page, "text", "Stephen King");
  await quoteBtn.click();
  await expect(msg).toHaveText("Quoted 12 characters of $.text as evidence.");
  await expect(content.locator("[data-evidence-quote]")).toHaveText(["Stephen King"]);

  // 2. a selection over several values (keys and punctuation between them) is refused, not stored
  await selectAcross(page, "status", "Stephen");
  await quoteBtn.click();
  await expect(msg).toContainText("Not quoted: the selection covers 4 values ($.status, $.http_status, $.content_length, …)");
  await expect(msg).toHaveAttribute("data-ok", "false");

  // 3. a selection inside a value: quoted exactly and marked in the content
  await selectTextInContent(page, "born in Portland");
  await quoteBtn.click();
  await expect(msg).toHaveText("Quoted 16 characters of $.text as evidence.");
  await expect(content.locator("[data-evidence-quote]")).toHaveText(["Stephen King", "born in Portland"]);
  await expect(content.locator("[data-evidence-quote]").first()).toBeVisible();

  // 4. the same quote again on the same node is refused with a message
  await selectTextInContent(page, "Stephen King");
  await quoteBtn.click();
  await expect(msg).toContainText('Not quoted: evidence 1 already quotes "Stephen King" from node "tool_result_0002"');

  // 5. the form holds exactly the two value quotes, and the annotation submits
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  await expect(panel.getByTestId("evidence-list").locator("q")).toHaveText(["Stephen King", "born in Portland"]);
  await panel.getByRole("checkbox", { name: /^C2 / }).check();
  await panel.getByRole("radio", { name: "C2", exact: true }).check();
  await row(page, "tool_result_0002").click();
  await panel.getByRole("button", { name: "Use selected node (tool_result_0002)" }).click();
  await panel.getByRole("radio", { name: /^high / }).check();
  await panel.getByLabel("Rationale").fill("Repeats the same page; the quotes show the fact was already found.");
  await expect(panel.getByTestId("save-status")).toContainText("saved", { timeout: 10_000 });
  await panel.getByRole("button", { name: "Submit annotation" }).click();
  await expect(page.getByText("submitted · locked")).toBeVisible({ timeout: 10_000 });
  // the submitted evidence is still marked in the node content (the locked view reloads: select the
  // node again; a click that lands while the workbench remounts is lost, so select until it shows)
  await expect(async () => {
    await row(page, "tool_result_0002").click();
    await page.getByRole("tab", { name: "Node" }).click();
    await expect(detail).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(page.getByTestId("node-content").locator("[data-evidence-quote]")).toHaveText(["Stephen King", "born in Portland"]);
});

test("a submit with problems is refused with field-level messages in the form", async ({ page }) => {
  page.on("dialog", (d) => void d.accept());
  const b = await seedBundle(goldCopy("gold-c2"));
  const [a1, a2, a3] = await Promise.all([createUser(["annotator"]), createUser(["annotator"]), createUser(["annotator"])]);
  await assign(b.id, [a1, a2, a3]);
  await signIn(page, a1);
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  await page.getByRole("tab", { name: "Annotate" }).click();
  const panel = page.getByTestId("annotate-panel");
  await panel.getByLabel("Rationale").fill("only a rationale");
  await expect(panel.getByTestId("save-status")).toContainText("saved", { timeout: 10_000 });
  await panel.getByRole("button", { name: "Submit annotation" }).click();
  await expect(panel.getByText("Choose at least one category (C1–C4).")).toBeVisible();
  await expect(panel.getByText("Pick the failure node in the graph or timeline.")).toBeVisible();
  await expect(panel.getByText("Choose a confidence (high, medium or low).")).toBeVisible();
  await expect(page.getByText("submitted · locked")).toHaveCount(0);
});

test("the agreement dashboard shows the library's figures for the app's data, and the MAD failure-mode agreement", async ({ page }) => {
  test.setTimeout(120_000);
  // make sure at least one case has three submitted annotations and a final
  const b = await seedBundle(goldCopy("gold-c4"));
  const [a1, a2, a3] = await Promise.all([createUser(["annotator"]), createUser(["annotator"]), createUser(["annotator"])]);
  const judge = await createUser(["adjudicator"]);
  await assign(b.id, [a1, a2, a3], judge);
  const base = test.info().project.use.baseURL!;
  const fields = (cats: string[], primary: string, node: string, type: string) => ({ categories: cats, primary, nodeId: node, nodeType: type, confidence: "high", rationale: "r", evidence: [] });
  const tuples = [fields(["C1"], "C1", "final_result", "final_result"), fields(["C1", "C4"], "C4", "final_result", "final_result"), fields(["C4"], "C4", "agent_action_0000", "agent_action")];
  for (const [u, f] of [[a1, tuples[0]], [a2, tuples[1]], [a3, tuples[2]]] as const) {
    const api = await apiAs(base, u);
    const enc = encodeURIComponent(b.id);
    const saved = await api.put(`/api/cases/${enc}/annotations/mine`, { data: { kind: "initial", version: 0, fields: f } });
    expect(saved.status()).toBe(200);
    const { annotation } = (await saved.json()) as { annotation: { version: number } };
    expect((await api.post(`/api/cases/${enc}/annotations/mine/submit`, { data: { version: annotation.version } })).status()).toBe(200);
  }
  const j = await apiAs(base, judge);
  expect((await j.post(`/api/cases/${encodeURIComponent(b.id)}/finalize`, { data: { fields: tuples[0] } })).status()).toBe(200);

  const expected = await libraryReport();
  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);
  await page.goto("/agreement");
  await expect(page.getByTestId("agreement-cases")).toContainText(`${expected.cases} case(s) with three submitted initial annotations`);
  const table = page.getByTestId("reliability-table");
  for (const [name, v] of [
    ["Primary category", expected.primaryCategory],
    ["Exact category set", expected.categorySet],
    ["C1 present", expected.presence.C1],
    ["Failure-node type", expected.nodeType],
  ] as const) {
    await expect(table.locator(`tr[data-variable="${name}"] [data-testid=kappa]`)).toHaveText(v.kappa === null ? "—" : v.kappa.toFixed(3));
  }
  await expect(page.getByTestId("kappa-chart")).toBeVisible();
  await expect(page.getByTestId("mad-kappa")).toHaveText("0.9717");
  await expect(page.getByTestId("mad-items")).toHaveText("149");
  await expect(page.getByTestId("mad-excluded")).toContainText("2 item(s) excluded");
  await page.screenshot({ path: "e2e-artifacts/agreement-dashboard.png", fullPage: true });
  const csv = await page.request.get("/api/agreement?format=csv");
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toContain("Primary category,");
  // a sample this small is flagged, and every table shown has its own CSV
  if (expected.cases < 30) {
    await expect(page.getByTestId("sample-size-warning").first()).toContainText(expected.cases < 10 ? "too few for a bootstrap interval" : "unstable");
  }
  const headers: Record<string, string> = {
    reliability: "variable,fleiss_kappa,ci95_low",
    exact: "variable,agreement,count,cases,share,wilson95_low",
    patterns: "initial_pattern,cases,kept_unanimous",
    composition: "category,added_by_adjudicator",
    cohen: "variable,annotator_a,annotator_b,cases,cohen_kappa",
    "vs-final": "annotator,finalized_cases,primary_eq_final",
    disagreement: "case_id,distinct_tuples",
    "mad-modes": "failure_mode,traces",
  };
  for (const [table, head] of Object.entries(headers)) {
    const href = await page.getByTestId(`csv-${table}`).getAttribute("href");
    const r = await page.request.get(href!);
    expect(r.status(), table).toBe(200);
    const body = await r.text();
    expect(body.startsWith(head), `${table}: ${body.slice(0, 80)}`).toBe(true);
    expect(body.trim().split("\n").length, table).toBeGreaterThan(1);
  }
});

async function libraryReport() {
  const { openDb } = await import("../lib/db");
  const { agreementFromDb } = await import("../lib/services/agreement");
  const { E2E_DATABASE_URL } = await import("../playwright.config");
  const { db } = openDb(E2E_DATABASE_URL);
  try {
    const r = await agreementFromDb(db, {});
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return r;
  } finally {
    await db.$disconnect();
  }
}
