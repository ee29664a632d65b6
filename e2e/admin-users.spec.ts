/**
 * Issue 11 item 7c: saving an existing email in the admin's user form says it updates that user;
 * before submit, typing an email listed on the page shows that saving updates that user.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { createUser, signIn } from "./fixtures";

test("typing an existing email warns; saving it says 'Updated existing user', a new one says 'Created'", async ({ page }) => {
  const admin = await createUser(["admin"]);
  const existing = await createUser(["annotator"]);
  await signIn(page, admin);
  await page.goto("/admin");

  const form = page.locator("form", { has: page.locator("input[name=email]") });
  const email = form.locator("input[name=email]");
  const hint = page.getByTestId("user-email-hint");
  await email.fill(existing.email.toUpperCase());
  await expect(hint).toHaveText(`This email exists: saving updates that user (${existing.email}).`);
  await form.locator("input[name=roles][value=annotator]").check();
  await form.locator("input[name=roles][value=adjudicator]").check();
  await form.getByRole("button", { name: "Save account" }).click();
  await expect(form.getByRole("status")).toHaveText(`Updated existing user ${existing.email} (roles annotator, adjudicator).`);

  const fresh = `new-${randomUUID().slice(0, 8)}@e2e.local`;
  await email.fill(fresh);
  await expect(hint).toHaveText("");
  await form.locator("input[name=roles][value=annotator]").check();
  await form.getByRole("button", { name: "Save account" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created user ${fresh} (roles annotator).`);
});
