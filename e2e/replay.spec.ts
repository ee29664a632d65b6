import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { hashContent, hashRequest, type ReplayBundle } from "../lib/bundle";
import { finalAnswer } from "../lib/replay";
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

/** The e2e server's evaluator (scripts/e2e-server.sh) on a final answer: "passed" | "failed" | "unknown". */
function evaluate(task: string, final: string): string {
  const r = spawnSync(process.execPath, ["scripts/hilltop-evaluator.mjs"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, SYMTRACE_TASK: task, SYMTRACE_FINAL: JSON.stringify({ final }) } });
  return r.status === 0 ? "passed" : r.status === 1 ? "failed" : "unknown";
}

let researcher: TestUser;
let recorded: ReplayBundle;
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
  recorded = recordOrchestrator();
});

async function startReplay(page: Page, bundleId: string, nodeId: string) {
  await page.goto(`/cases/${encodeURIComponent(bundleId)}?node=${nodeId}`);
  await expect(page.locator(`[data-testid=node-detail][data-node-id="${nodeId}"]`)).toBeVisible({ timeout: 15_000 }); // a cold server on a loaded machine
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

  // At the top: did the repair work? The recorded run carries no verdict, so the source outcome
  // is the evaluator's on its final answer (€21.00, the per-person total: failed).
  const srcFinal = finalAnswer(b)!.text;
  expect(srcFinal).toContain("€21.00");
  const outcome = page.getByTestId("replay-header").getByTestId("replay-outcome");
  await expect(outcome.getByTestId("outcome-source")).toHaveText("failed");
  await expect(outcome).toContainText("Source: evaluator on its final answer: node");
  await expect(page.getByTestId("replay-header")).toContainText("native replay");
  // Both final answers in full, byte for byte, as text.
  const shownSrc = page.getByTestId("final-answer-source");
  await expect(shownSrc).toBeVisible();
  expect(await shownSrc.textContent()).toBe(srcFinal);
  const repFinal = (await page.getByTestId("final-answer-replay").textContent()) ?? "";
  expect(repFinal.length).toBeGreaterThan(20);
  // The replay outcome is what the evaluator says about the replay's answer.
  const expected = evaluate(b.task.prompt, repFinal);
  await expect(outcome.getByTestId("outcome-replay")).toHaveText(expected);
  await expect(outcome).toHaveAttribute("data-source", "failed");
  await expect(outcome).toHaveAttribute("data-replay", expected);
  // The live suffix aligned with the source suffix: row i = i-th node after the intervention.
  const after = b.order.slice(b.order.indexOf(middle) + 1);
  const suffix = page.getByTestId("replay-suffix");
  const rows = suffix.locator("tbody tr");
  expect(await rows.count()).toBeGreaterThanOrEqual(after.length);
  await expect(rows.first().locator("td").nth(0)).toHaveText("1");
  await expect(rows.first().locator("td").nth(1)).toContainText(after[0]);
  const lastSourceRow = rows.nth(after.length - 1);
  await expect(lastSourceRow.locator("td").nth(1)).toContainText(after.at(-1)!);
  const srcNode = b.graph.nodes.find((n) => n.id === after[0])!;
  await expect(rows.first().locator("td").nth(1)).toContainText(`${srcNode.type} ${srcNode.agent ?? "—"}`);
  // The replay ended with a final answer: its side's last cell is a final_result node.
  const replayCells = suffix.locator("tbody tr td:nth-child(3)");
  const lastReplay = (await replayCells.allTextContents()).filter((t) => t !== "—").at(-1);
  expect(lastReplay).toContain("final_result");
  for (const r of await rows.all()) {
    const marker = await r.getAttribute("data-marker");
    if (marker === "source-only") await expect(r.locator("td").nth(2)).toHaveText("—");
    if (marker === "replay-only") await expect(r.locator("td").nth(1)).toHaveText("—");
  }
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
  await expect(page.locator(`[data-testid=graph-node][data-node-id="${rec.nodeId}"] [data-mark="diverged"]`)).toBeVisible();
});
