/**
 * Issue 22 item 6 and issue 20 item 11 on the import page and the inspector: a file of unknown
 * format is offered the format choice in the page (never "pass --format") and imports as the
 * format chosen; a clean file shows no warnings; an OTLP trace with a clock-skewed and an unended
 * span lists its warnings, and its case shows them where a user looks: counts in the header, a
 * badge on each node in the graph and in the timeline. Hand-written inputs.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { createUser, goldCopy, signIn } from "./fixtures";

test("unknown format: choose it in the page; import warnings: listed, then on the case's nodes and header", async ({ page }) => {
  await signIn(page, await createUser(["researcher"]));
  await page.goto("/import");

  // A Who&When record without the keys auto-detection looks for.
  const tag = randomUUID().slice(0, 8);
  const wwName = `ww-${tag}.json`;
  const ww = { history: [{ role: "assistant", name: "Expert", content: "hi" }, { role: "assistant", name: "Expert", content: "done" }] };
  await page.getByLabel("Trace files").setInputFiles([{ name: wwName, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(ww)) }]);
  const wwRow = page.locator(`[data-testid=import-file][data-name="${wwName}"]`);
  await expect(wwRow).toHaveAttribute("data-phase", "done");
  await expect(wwRow.getByTestId("import-failure")).toContainText("unrecognized format");
  await expect(wwRow).not.toContainText("--format");
  await expect(wwRow.getByTestId("import-warnings")).toHaveCount(0);
  await wwRow.getByLabel(`Format of ${wwName}`).selectOption("whowhen");
  await wwRow.getByRole("button", { name: "Import again" }).click();
  await expect(wwRow.getByTestId("import-counts")).toHaveText("1 imported · 0 skipped · 0 replaced · 0 failed");
  await expect(wwRow.getByRole("link", { name: `who_and_when/algorithm-generated/ww-${tag}` })).toBeVisible();

  // A clean bundle: no warnings text at all (not {"counts":{},"items":[]}).
  const clean = goldCopy("gold-c2")(`e2e/${randomUUID()}`);
  const cleanName = `clean-${tag}.json`;
  await page.getByLabel("Trace files").setInputFiles([{ name: cleanName, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(clean)) }]);
  const cleanRow = page.locator(`[data-testid=import-file][data-name="${cleanName}"]`);
  await expect(cleanRow.getByTestId("import-counts")).toHaveText("1 imported · 0 skipped · 0 replaced · 0 failed");
  await expect(cleanRow.getByTestId("import-warnings")).toHaveCount(0);
  await expect(cleanRow).not.toContainText("counts");

  // OTLP: root, a child whose end is before its start (clock skew), a child never ended.
  const traceId = randomBytes(16).toString("hex");
  const T0 = 1_767_000_000_000_000_000n;
  const sp = (id: string, parent: string, start: bigint, end: bigint | null) => ({ traceId, spanId: id, parentSpanId: parent, name: `step ${id.slice(-1)}`, startTimeUnixNano: String(start), ...(end === null ? {} : { endTimeUnixNano: String(end) }) });
  const otlp = { resourceSpans: [{ scopeSpans: [{ scope: { name: "e2e" }, spans: [sp("a000000000000001", "", T0, T0 + 9_000_000n), sp("a000000000000002", "a000000000000001", T0 + 5_000_000n, T0 + 1_000_000n), sp("a000000000000003", "a000000000000001", T0 + 6_000_000n, null)] }] }] };
  const otlpName = `otlp-${tag}.json`;
  await page.getByLabel("Trace files").setInputFiles([{ name: otlpName, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(otlp)) }]);
  const otlpRow = page.locator(`[data-testid=import-file][data-name="${otlpName}"]`);
  await expect(otlpRow.getByTestId("import-counts")).toHaveText("1 imported · 0 skipped · 0 replaced · 0 failed");
  await expect(otlpRow.getByTestId("import-warning-counts")).toHaveText("2 import warnings: clock-skew × 1, not-ended × 1");
  await expect(otlpRow.getByTestId("import-warnings").locator("li")).toHaveCount(2);

  await otlpRow.getByRole("link", { name: `otlp/${traceId}` }).click();
  await expect(page.getByRole("heading", { name: `otlp/${traceId}` })).toBeVisible();
  await expect(page.getByTestId("import-warning-counts")).toHaveText("Import warnings (2): clock-skew × 1 · not-ended × 1");
  // the timeline: one badge on each of the two marked nodes
  const timelineBadges = page.getByTestId("timeline").getByTestId("node-import-warning");
  await expect(timelineBadges).toHaveCount(2);
  await expect(timelineBadges.first()).toHaveText("⚠ 1");
  await expect(page.getByTestId("timeline").locator('[role=option]:has([data-testid=node-import-warning][title*="clock skew"])')).toHaveCount(1);
  await expect(page.getByTestId("timeline").locator('[role=option]:has([data-testid=node-import-warning][title="import warning: not ended"])')).toHaveCount(1);
  // the graph: the same two nodes carry the badge
  const graphBadges = page.locator("[data-testid=graph-node] [data-testid=node-import-warning]");
  await expect(graphBadges).toHaveCount(2);
  await expect(page.locator('[data-testid=graph-node]:has([data-testid=node-import-warning][title="import warning: not ended"])')).toHaveCount(1);
});
