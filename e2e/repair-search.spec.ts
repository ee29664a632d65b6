/**
 * The repair-tree view (issue 15 item 4) over a search seeded through lib/db: a hand-built
 * SearchState (lib/testing/repair-tree.ts, every value chosen there) whose nodes' bundles are
 * imported as cases, stored as a running search. The page shows N, Q/N, scores, failure modes,
 * actions and guidance (as text), the best path, a node's bundle diffed against the source, and
 * follows the stored state live while the search runs (the test stores the next iteration).
 */
import { expect, test } from "@playwright/test";
import { hashContent, type ReplayBundle } from "../lib/bundle";
import { importCase, openDb, type Db } from "../lib/db";
import { grow, SAMPLE_GUIDANCE, sampleSearchState } from "../lib/testing/repair-tree";
import { E2E_DATABASE_URL } from "../playwright.config";
import { createUser, goldCopy, seedBundle, signIn } from "./fixtures";
import { seedRunningSearch, storeNextIteration } from "./repair-search-seed";

test.describe.configure({ timeout: 120_000 });

let db: Db | null = null;
const getDb = () => (db ??= openDb(E2E_DATABASE_URL).db);

const ANSWER = (nodeId: string) => `Potash Markets - Clark Street (tree node ${nodeId})`;

/** A tree node's recording: the source with the node's own final answer, its parent named. */
function nodeBundle(src: ReplayBundle, nodeId: string, parentBundleId: string, passed: boolean): ReplayBundle {
  const last = src.order[src.order.length - 1];
  const content = { answer: ANSWER(nodeId) };
  const nodes = src.graph.nodes.map((n) => (n.id === last ? { ...n, content, contentHash: hashContent(content) } : n));
  return {
    ...src,
    id: `${src.id}~${nodeId}`,
    parent: { bundleId: parentBundleId, targetNodeId: "llm_call_0002", guidance: nodeId === "n3" ? SAMPLE_GUIDANCE : "", mode: nodeId === "n2" ? "rollback" : "continue" },
    graph: { ...src.graph, nodes },
    outcome: { passed, evaluator: "assistantbench" },
  } as ReplayBundle;
}

test("repair tree: N, Q/N, scores, actions and guidance per node, best path, node bundle beside the source, live updates", async ({ page }) => {
  const d = getDb();
  const source = await seedBundle(goldCopy("gold-c1"));
  const parentOf: Record<string, string> = { n1: "n0", n2: "n0", n3: "n2", n4: "n2", n5: "n3" };
  const bundleOf = (id: string) => (id === "n0" ? source.id : `${source.id}~${id}`);
  const nodeCases: Record<string, string> = {};
  for (const id of ["n1", "n2", "n3", "n4", "n5"]) {
    const b = nodeBundle(source, id, bundleOf(parentOf[id]), id === "n5");
    const c = await importCase(d, { bundle: b });
    nodeCases[id] = c.caseId;
  }
  const sourceCase = await d.case.findUniqueOrThrow({ where: { bundleId: source.id }, select: { id: true } });
  const state = sampleSearchState();
  const { n5, ...firstCases } = nodeCases;
  const searchId = await seedRunningSearch(d, { sourceCaseId: sourceCase.id, state, nodeCases: firstCases });

  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);

  // from the case page to the case's searches to the search
  await page.goto(`/cases/${encodeURIComponent(source.id)}`);
  await page.getByTestId("case-repair-searches").click();
  const row = page.locator(`[data-repair-search="${searchId}"]`);
  await expect(row).toContainText("running");
  await expect(row).toContainText("4 / 10");
  await expect(row).toContainText("0.90");
  await row.getByRole("link", { name: searchId }).click();
  await page.waitForURL(`**/repair-searches/${searchId}`);

  await expect(page.getByTestId("search-status")).toHaveText("running");
  await expect(page.getByTestId("search-iterations")).toContainText("iteration 4 / 10 · 5 node(s)");
  await expect(page.getByTestId("search-usage")).toHaveText("selector 4 call(s) / 1200 token(s) · judge 4 call(s) / 2000 token(s) · MAS 9 call(s) / 900 token(s)");
  await expect(page.getByTestId("best-path")).toHaveText("n0 → n2 → n3");
  await expect(page.getByTestId("repair-tree")).toHaveAttribute("data-layout", "elk");

  // per node: N, Q/N (root 1.8/4, n2 1.6/3), r, failure mode, action, guidance as text
  const card = (id: string) => page.locator(`[data-tree-node="${id}"]`);
  const field = (id: string, f: string) => card(id).locator(`[data-field="${f}"]`);
  const expected: Record<string, [string, string, string, string, string]> = {
    n0: ["4", "0.45", "—", "source (τ_fail)", "not judged"],
    n1: ["1", "0.20", "0.20", "continuation", "FM 3.3"],
    n2: ["3", "0.53", "0.40", "rollback", "FM 2.6 · @n-call-2"],
    n3: ["1", "0.90", "0.90", "guided repair", "None"],
    n4: ["1", "0.30", "0.30", "continuation", "FM 3.2"],
  };
  for (const [id, [n, mean, r, action, fm]] of Object.entries(expected)) {
    await expect(field(id, "visits")).toHaveText(n);
    await expect(field(id, "mean-q")).toHaveText(mean);
    await expect(field(id, "score")).toHaveText(r);
    await expect(field(id, "action")).toHaveText(action);
    await expect(field(id, "failure-mode")).toHaveText(fm);
  }
  await expect(field("n2", "guidance")).toHaveText(`Δ ${SAMPLE_GUIDANCE}`);
  await expect(field("n3", "guidance")).toHaveText(`Δ ${SAMPLE_GUIDANCE}`);
  await expect(card("n2").locator("b")).toHaveCount(0);
  await expect(field("n1", "guidance")).toHaveCount(0);

  // the best trajectory: cards and edges
  for (const id of ["n0", "n2", "n3"]) await expect(card(id)).toHaveAttribute("data-best-path", "true");
  for (const id of ["n1", "n4"]) await expect(card(id)).toHaveAttribute("data-best-path", "false");
  await expect(page.locator('[data-best="true"][data-tree-node]')).toHaveCount(1);
  await expect(card("n3")).toHaveAttribute("data-best", "true");
  await expect(page.locator('path[data-best="true"]')).toHaveCount(2);
  await expect(page.locator('path[data-edge="n2->n3"]')).toHaveAttribute("data-best", "true");
  await expect(page.locator('path[data-edge="n0->n1"]')).toHaveAttribute("data-best", "false");
  // laid out as a tree: children below their parent, siblings side by side
  const box = async (id: string) => (await card(id).boundingBox())!;
  const [b0, b1, b2, b3, b4] = await Promise.all(["n0", "n1", "n2", "n3", "n4"].map(box));
  expect(b1.y).toBeGreaterThan(b0.y + b0.height);
  expect(b3.y).toBeGreaterThan(b2.y + b2.height);
  expect(b1.y).toBe(b2.y);
  expect(Math.abs(b3.x - b4.x)).toBeGreaterThanOrEqual(b3.width);

  // open a node: its numbers, verdict, guidance, and its bundle beside the source with the diff
  await card("n3").click();
  await page.waitForURL(`**/repair-searches/${searchId}?node=n3`);
  const details = page.getByTestId("node-details");
  await expect(details).toHaveAttribute("data-node", "n3");
  await expect(details.locator('[data-field="nq"]')).toHaveText("1 / 0.90 / 0.90");
  await expect(details.locator('[data-field="verdict"]')).toHaveText("r = 0.90 · None");
  await expect(details.locator('[data-field="feedback"]')).toHaveText("Price looked up; answer not yet final.");
  await expect(details.locator('[data-field="guidance"]')).toHaveText(SAMPLE_GUIDANCE);
  const nb = page.getByTestId("node-bundle");
  await expect(nb).toHaveAttribute("data-node", "n3");
  await expect(nb.getByTestId("node-bundle-link")).toHaveText(`${source.id}~n3`);
  await expect(nb.getByTestId("replay-compare")).toBeVisible();
  const changed = nb.getByTestId("replay-compare").locator('tr[data-kind="changed"]');
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText("final_result");
  await expect(changed).toContainText(ANSWER("n3"));
  await expect(nb.getByTestId("replay-compare").locator('tr[data-kind="prefix"]')).toHaveCount(source.order.length - 1);
  await expect(nb.getByTestId("outcome-source")).toHaveText("failed");
  await expect(nb.getByTestId("outcome-replay")).toHaveText("failed");
  await page.screenshot({ path: "e2e-artifacts/repair-search-tree.png", fullPage: true });

  // live: the worker stores the next iteration (n5 solves it) and finishes; the open page follows
  await storeNextIteration(d, searchId, { state: grow(state), nodeCases: { ...firstCases, n5 }, status: "completed" });
  await expect(card("n5")).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId("search-status")).toHaveText("completed");
  await expect(page.getByTestId("search-iterations")).toContainText("iteration 5 / 10 · 6 node(s) · stopped: solved");
  await expect(page.getByTestId("best-path")).toHaveText("n0 → n2 → n3 → n5");
  await expect(card("n5")).toHaveAttribute("data-best", "true");
  await expect(card("n3")).toHaveAttribute("data-best", "false");
  await expect(card("n3")).toHaveAttribute("data-best-path", "true");
  await expect(field("n0", "visits")).toHaveText("5");
  await expect(field("n0", "mean-q")).toHaveText("0.56");
  await expect(field("n5", "score")).toHaveText("1.00");
  await expect(page.locator('path[data-best="true"]')).toHaveCount(3);
  // n5's bundle passed
  await card("n5").click();
  await expect(page.getByTestId("node-bundle")).toHaveAttribute("data-node", "n5");
  await expect(page.getByTestId("node-bundle").getByTestId("outcome-replay")).toHaveText("passed");
  await page.screenshot({ path: "e2e-artifacts/repair-search-tree-live.png", fullPage: true });
});
