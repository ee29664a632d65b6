/**
 * Issue 11 item 7a: on an imported Langfuse case the timeline rows show the start (offset from the
 * trace start), the duration and the tokens of the LLM calls; a Who&When-like case shows none.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { importText } from "../lib/importers";
import { createUser, goldCopy, seedBundle, signIn } from "./fixtures";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../shared");
const FILE = path.join(SHARED, "datasets/langfuse_framework_traces/openai-agents-2025-09-30.trace.json");

function langfuseCase(id: string) {
  const r = importText(readFileSync(FILE, "utf8"), FILE, "otel");
  if (r.failures.length || r.cases.length !== 1) throw new Error(`sample did not import: ${JSON.stringify(r.failures)}`);
  return { ...r.cases[0].bundle, id };
}

test("timeline rows of an imported Langfuse trace show start, duration and tokens", async ({ page }) => {
  const b = await seedBundle(langfuseCase);
  // The generation with usage {input: 85, output: 29, total: 114}, started 1.039 s after the trace.
  const llm = b.graph.nodes.find((n) => (n.content as { usage?: { total?: number } }).usage?.total === 114)!;
  expect(llm).toBeDefined();
  const durationNs = (llm.content as { durationNs: string }).durationNs;
  expect(durationNs).toMatch(/^\d+$/);

  await signIn(page, await createUser(["researcher"]));
  await page.goto(`/cases/${encodeURIComponent(b.id)}`);
  const row = page.locator(`[role=option][data-node-id="${llm.id}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("timeline-tokens")).toHaveText("114 tok");
  await expect(row.getByTestId("timeline-tokens")).toHaveAttribute("title", "85 in · 29 out · 114 total");
  await expect(row.getByTestId("timeline-start")).toHaveText("+1.039 s");
  await expect(row.getByTestId("timeline-duration")).toHaveText(/^\d+(\.\d+)? (s|ms)$/);

  // A case without timing (gold bundle) shows no timing cells.
  const plain = await seedBundle(goldCopy("gold-c2"));
  await page.goto(`/cases/${encodeURIComponent(plain.id)}`);
  await expect(page.getByTestId("timeline").locator("[role=option]").first()).toBeVisible();
  await expect(page.getByTestId("timeline-duration")).toHaveCount(0);
});
