import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { exportBundle, openDb } from "../lib/db";
import type { ReplayBundle } from "../lib/bundle";
import { finalAnswer } from "../lib/replay";
import { STANDIN_PREFIX } from "../lib/testing/standin";
import { E2E_DATABASE_URL } from "../playwright.config";
import { createUser, signIn, type TestUser } from "./fixtures";

/**
 * Issue 11 item 2: "Replay from here" works on the demo's own data out of the box. The app runs
 * as `npm run demo` runs it (scripts/e2e-server.sh: seeded by db:seed, started by the same
 * starter scripts/replay-stack.ts, which adds the scripted stand-in model, the tool server and the
 * evaluator). Nothing is seeded by this spec: it replays cases the seed imported — a Who&When
 * case (transcript continuation; the stand-in used to answer HTTP 500 to it) and the shipped
 * reference-MAS case demo/reference-orchestrator-hilltop (native) — from a middle node.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const WHO_AND_WHEN = "who_and_when/hand-crafted/6";
const REFERENCE = "demo/reference-orchestrator-hilltop";

let researcher: TestUser;
const seeded = new Map<string, ReplayBundle>();
test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
  const { db } = openDb(E2E_DATABASE_URL);
  try {
    for (const id of [WHO_AND_WHEN, REFERENCE]) {
      const b = await exportBundle(db, { bundleId: id });
      if (!b) throw new Error(`the seed did not import ${id} (scripts/seed.ts)`);
      seeded.set(id, b);
    }
  } finally {
    await db.$disconnect();
  }
});

/** The hilltop evaluator's verdict on a final answer ("passed" | "failed" | "unknown"), as the server runs it. */
function evaluate(task: string, final: string): string {
  const r = spawnSync(process.execPath, ["scripts/hilltop-evaluator.mjs"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, SYMTRACE_TASK: task, SYMTRACE_FINAL: JSON.stringify({ final }) } });
  return r.status === 0 ? "passed" : r.status === 1 ? "failed" : "unknown";
}

/** Open the case at `nodeId`, start one replay with the dialog's defaults, wait until it completes, open the result. */
async function replayFromHere(page: Page, bundleId: string, nodeId: string, mode: "Native replay" | "Transcript continuation") {
  await page.goto(`/cases/${encodeURIComponent(bundleId)}?node=${encodeURIComponent(nodeId)}`);
  await expect(page.locator(`[data-testid=node-detail][data-node-id="${nodeId}"]`)).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Replay from here" }).click();
  const dialog = page.getByTestId("replay-dialog");
  await expect(dialog.getByTestId("replay-boundary")).toContainText(mode);
  // The dialog says before anything runs that the live calls go to the scripted stand-in.
  await expect(dialog.getByTestId("replay-endpoint").getByTestId("scripted-standin")).toHaveText("scripted stand-in model");
  await dialog.getByRole("button", { name: "Start replay" }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole("tab", { name: "Replays" }).click();
  const run = page.getByTestId("replay-runs").locator("li").first();
  await expect(run).toHaveAttribute("data-status", "completed", { timeout: 90_000 });
  await run.getByRole("link", { name: "open" }).click();
  await expect(page.getByTestId("replay-status")).toHaveText("completed");
}

/** The outcome line is at the top: inside the first section (the header), above the final answers. */
async function expectOutcomeOnTop(page: Page) {
  const header = page.getByTestId("replay-header");
  await expect(header.getByTestId("scripted-standin")).toHaveText("scripted stand-in model");
  const outcome = header.getByTestId("replay-outcome");
  await expect(outcome).toContainText("Outcome:");
  const first = await page.locator("main section").first().getAttribute("data-testid");
  expect(first).toBe("replay-header");
  const o = (await outcome.boundingBox())!;
  const answers = (await page.getByTestId("final-answer-replay").boundingBox())!;
  expect(o.y).toBeLessThan(answers.y);
  return outcome;
}

test("a middle node of an imported Who&When case: the scripted stand-in continues the transcript; completed, outcome on top, labelled scripted", async ({ page }) => {
  test.setTimeout(150_000);
  const b = seeded.get(WHO_AND_WHEN)!;
  const middle = b.order[Math.floor(b.order.length / 2)];
  await signIn(page, researcher);
  await replayFromHere(page, WHO_AND_WHEN, middle, "Transcript continuation");
  await expect(page.getByTestId("replay-header")).toContainText("transcript continuation (not a native replay)");
  const outcome = await expectOutcomeOnTop(page);
  // Not the reference task: the evaluator knows no answer, so the replay's outcome is unknown.
  await expect(outcome).toHaveAttribute("data-replay", "unknown");
  const answer = (await page.getByTestId("final-answer-replay").textContent()) ?? "";
  expect(answer).toContain(STANDIN_PREFIX);
  expect(answer).toContain("FINAL ANSWER:");
  // Issue 22 item 4: the result graph opens on the live intervention node (the boundary msg_… is not
  // in the transcript continuation), not on a node the result case does not have.
  await expect(page.getByTestId("node-detail")).toHaveAttribute("data-node-id", /^llm_call_\d{4}$/);
  await expect(page.getByText(/no node ".*" in this case/)).toHaveCount(0);
  await page.screenshot({ path: "e2e-artifacts/demo-replay-who-and-when.png", fullPage: true });
});

test("a middle node of the shipped reference-MAS case: a native replay against the stand-in; completed, verdicts on top, labelled scripted", async ({ page }) => {
  test.setTimeout(150_000);
  const b = seeded.get(REFERENCE)!;
  const llmCalls = b.order.filter((id) => id.startsWith("llm_call"));
  const middle = llmCalls[Math.floor(llmCalls.length / 2)];
  await signIn(page, researcher);
  await replayFromHere(page, REFERENCE, middle, "Native replay");
  await expect(page.getByTestId("replay-header")).toContainText("native replay");
  const outcome = await expectOutcomeOnTop(page);
  // The shipped case misses the €16.00 family ticket: the demo evaluator says failed.
  expect(finalAnswer(b)!.text).toContain("€21.00");
  await expect(outcome.getByTestId("outcome-source")).toHaveText("failed");
  const replayAnswer = (await page.getByTestId("final-answer-replay").textContent()) ?? "";
  expect(replayAnswer).toContain("Hilltop Gardens");
  await expect(outcome.getByTestId("outcome-replay")).toHaveText(evaluate(b.task.prompt, replayAnswer));
  await page.screenshot({ path: "e2e-artifacts/demo-replay-reference.png", fullPage: true });
  // Issue 22 item 7: the case list and the case header say what the replay page says about the source.
  await page.goto(`/cases?q=${encodeURIComponent(REFERENCE)}`);
  const row = page.locator("tr", { has: page.getByRole("link", { name: REFERENCE, exact: true }) });
  await expect(row.getByTestId("outcome-verdict")).toHaveText("failed · evaluator");
  await page.goto(`/cases/${REFERENCE}`);
  await expect(page.locator('section[aria-labelledby="case-title"]').getByTestId("outcome-verdict")).toHaveText("failed · evaluator");
});
