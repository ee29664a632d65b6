import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { hashContent, hashRequest, type ReplayBundle } from "../lib/bundle";
import { createUser, seedBundle, signIn, type TestUser } from "./fixtures";

/**
 * "Replay from here" in the app, against a scripted local OpenAI-compatible server and the
 * reference tool server (scripts/replay-stack.ts, started by scripts/e2e-server.sh): record a
 * reference MAS run, replay it from a middle node, watch progress, open the result.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const LLM = `http://127.0.0.1:${process.env.E2E_LLM_PORT ?? 3291}/v1`;
const TOOLS = `http://127.0.0.1:${process.env.E2E_TOOL_PORT ?? 3292}`;

/** Record the orchestrator reference MAS through the real CLI (scripted local server). */
function recordOrchestrator(): ReplayBundle {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), "e2e-rec-")), "rec.bundle.json");
  const r = spawnSync(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", "--experimental-wasm-modules", "--import", "tsx", "cli/symtrace.ts", "record", "--out", out, "--upstream", LLM, "--tool-upstream", TOOLS, "--id", `e2e/rec-${randomUUID()}`, "--task", "What does entry to Hilltop Gardens cost for 2 adults and 3 children, and what are its Saturday opening hours?", "--", "node", "--import", "tsx", "mas/orchestrator.ts"],
    { cwd: ROOT, encoding: "utf8", timeout: 120_000, env: { ...process.env, SYMTRACE_TASK: "What does entry to Hilltop Gardens cost for 2 adults and 3 children, and what are its Saturday opening hours?" } },
  );
  if (r.status !== 0) throw new Error(`record failed (${r.status}): ${r.stdout} ${r.stderr}`);
  return JSON.parse(readFileSync(out, "utf8")) as ReplayBundle;
}

let researcher: TestUser;
let recorded: ReplayBundle;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
  recorded = recordOrchestrator();
});

async function startReplay(page: Page, bundleId: string, nodeId: string) {
  await page.goto(`/cases/${encodeURIComponent(bundleId)}?node=${nodeId}`);
  await expect(page.locator(`[data-testid=node-detail][data-node-id="${nodeId}"]`)).toBeVisible();
  await page.getByRole("button", { name: "Replay from here" }).click();
  const dialog = page.getByTestId("replay-dialog");
  await expect(dialog.getByTestId("replay-boundary")).toContainText("Native replay");
  // What will run is shown before anything runs: the built-in runner the bundle names (config.mas), its command.
  await expect(dialog.getByTestId("replay-runner")).toContainText("registered runner orchestrator");
  await expect(dialog.getByTestId("replay-runner-command")).toContainText("mas/orchestrator.ts");
  await expect(dialog.getByTestId("replay-endpoint")).toContainText(LLM);
  await dialog.getByLabel("Guidance").fill("Check the family ticket before computing the total.");
  await dialog.getByRole("button", { name: "Start replay" }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole("tab", { name: "Replays" }).click();
  const runs = page.getByTestId("replay-runs");
  await expect(runs.locator("li").first()).toBeVisible();
  return runs.locator("li").first();
}

test("replay from a middle node of a recorded reference-MAS run: progress, then the verified prefix and the new live suffix", async ({ page }) => {
  test.setTimeout(180_000);
  const b = await seedBundle((id) => ({ ...recorded, id }));
  const llmCalls = b.order.filter((id) => id.startsWith("llm_call"));
  const middle = llmCalls[Math.floor(llmCalls.length / 2)];
  await signIn(page, researcher);
  const run = await startReplay(page, b.id, middle);
  await expect(run.getByTestId("replay-progress")).toContainText("verified");
  await expect(run).toHaveAttribute("data-status", "completed", { timeout: 90_000 });
  await expect(run.getByTestId("replay-progress")).toContainText(/prefix (\d+)\/\1 verified/);
  await run.getByRole("link", { name: "open" }).click();
  await expect(page.getByTestId("replay-status")).toHaveText("completed");
  const table = page.getByTestId("replay-compare");
  await expect(table.locator('tr[data-kind="prefix"]').first()).toBeVisible();
  await expect(table.locator('tr[data-kind="intervention"]')).toHaveCount(1);
  expect(await table.locator('tr[data-kind="new"]').count()).toBeGreaterThan(0);
  await expect(page.locator('[data-mark="Δ"]').first()).toBeVisible();
  await page.screenshot({ path: "e2e-artifacts/replay-result.png", fullPage: true });
});

test("a replay whose prefix diverges shows the first divergence at the right node", async ({ page }) => {
  test.setTimeout(180_000);
  // Tamper with one recorded request (as if the MAS had sent something else back then): the
  // live MAS will not match it, so the replay must stop there.
  const src = structuredClone(recorded) as ReplayBundle;
  const k = 1;
  const rec = src.records[k];
  const req = rec.request as { messages: Array<{ content: unknown }> };
  req.messages[0].content = String(req.messages[0].content) + " (edited)";
  rec.requestHash = hashRequest(rec.request);
  const node = src.graph.nodes.find((n) => n.id === rec.nodeId)!;
  if (node.content && typeof node.content === "object" && "requestHash" in (node.content as object)) {
    (node.content as { requestHash: string }).requestHash = rec.requestHash;
    node.contentHash = hashContent(node.content);
  }
  const b = await seedBundle((id) => ({ ...src, id }));
  const later = b.order.filter((id) => id.startsWith("llm_call")).at(-1)!;
  await signIn(page, researcher);
  const run = await startReplay(page, b.id, later);
  await expect(run).toHaveAttribute("data-status", "diverged", { timeout: 90_000 });
  await run.getByRole("link", { name: "open" }).click();
  const report = page.getByTestId("divergence-report");
  await expect(report).toContainText(`First divergence at record ${k}`);
  await expect(report).toContainText(rec.nodeId);
  await expect(page.locator(`.react-flow__node[data-id="${rec.nodeId}"] [data-mark="diverged"]`)).toBeVisible();
});
