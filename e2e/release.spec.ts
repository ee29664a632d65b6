/**
 * The Releases page (issue 14 item 1): a researcher creates a release of the adjudicated cases from
 * the app, sees it listed, downloads its manifest and annotations (pseudonymised: no email); an
 * annotator cannot open the page.
 */
import { gunzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { finalizeCase, openDb, saveDraft, submitInitial } from "../lib/db";
import type { AnnotationFields } from "../lib/annotation";
import { E2E_DATABASE_URL } from "../playwright.config";
import { assign, createUser, goldCopy, seedBundle, signIn, type TestUser } from "./fixtures";

let researcher: TestUser;
let annotators: TestUser[];
let bundleId: string;

const fields = (primary: "C2" | "C3"): AnnotationFields => ({
  categories: [primary],
  primary,
  nodeId: "tool_result_0002",
  nodeType: "tool_result",
  confidence: "high",
  rationale: "The same page is requested again after the query came back empty.",
  evidence: [],
});

test.beforeAll(async () => {
  researcher = await createUser(["researcher"]);
  annotators = [await createUser(["annotator"]), await createUser(["annotator"]), await createUser(["annotator"])];
  const adjudicator = await createUser(["adjudicator"]);
  bundleId = (await seedBundle(goldCopy("gold-c2"))).id;
  await assign(bundleId, annotators, adjudicator);
  const { db } = openDb(E2E_DATABASE_URL);
  try {
    const caseId = (await db.case.findUniqueOrThrow({ where: { bundleId } })).id;
    for (const [i, a] of annotators.entries()) {
      const d = await saveDraft(db, { id: a.id, roles: ["annotator"] }, { caseId, kind: "initial", version: 0, fields: fields(i === 2 ? "C3" : "C2") });
      await submitInitial(db, { id: a.id, roles: ["annotator"] }, { caseId, version: d.version });
    }
    await finalizeCase(db, { id: adjudicator.id, roles: ["adjudicator"] }, { caseId, fields: fields("C2") });
  } finally {
    await db.$disconnect();
  }
});

test("a researcher creates a release of the adjudicated cases and downloads its files", async ({ page }) => {
  await signIn(page, researcher);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Releases" }).click();
  await expect(page.getByRole("heading", { name: "Releases" })).toBeVisible();
  await page.getByLabel("Cases").selectOption("adjudicated");
  await page.getByRole("button", { name: "Create release" }).click();
  const status = page.getByRole("status");
  await expect(status).toContainText(/Release \d{4}\.\d{2}\.\d{2}-[0-9a-f]{8} written\./);
  const name = /Release (\S+) written/.exec((await status.textContent()) ?? "")![1];

  const item = page.getByTestId("releases").locator("li", { hasText: name }).first();
  await expect(item).toContainText("adjudicated");
  await item.getByText(/bundle file\(s\)$/).click();
  await expect(item.getByRole("link", { name: bundleId })).toBeVisible();

  const manifest = await (await page.request.get(await item.getByRole("link", { name: "manifest.json" }).getAttribute("href") as string)).json();
  expect(manifest.format).toBe("symtrace.release/v1");
  expect(manifest.release.version).toBe(name);
  expect(manifest.cases.map((c: { bundleId: string }) => c.bundleId)).toContain(bundleId);
  const mine = manifest.cases.find((c: { bundleId: string }) => c.bundleId === bundleId);
  expect(mine).toMatchObject({ adjudicated: true, finalPrimary: "C2", initialAnnotations: 3 });

  const annotationsRes = await page.request.get(await item.getByRole("link", { name: "annotations/annotations.json" }).getAttribute("href") as string);
  expect(annotationsRes.headers()["content-disposition"]).toContain('filename="annotations.json"');
  const text = await annotationsRes.text();
  for (const a of annotators) expect(text).not.toContain(a.email);
  const c = JSON.parse(text).cases.find((x: { caseId: string }) => x.caseId === bundleId);
  expect(c.initial.map((a: { annotator: string; primary: string }) => a.primary).sort()).toEqual(["C2", "C2", "C3"]);
  for (const a of c.initial) expect(a.annotator).toMatch(/^person-[0-9a-f]{8}$/);

  // the whole release as one .tar.gz: gzip magic, and the manifest's path inside the tar
  const archive = await page.request.get((await item.getByTestId("release-archive").getAttribute("href")) as string);
  expect(archive.status()).toBe(200);
  expect(archive.headers()["content-disposition"]).toContain(`filename="${name}.tar.gz"`);
  const tgz = await archive.body();
  expect([tgz[0], tgz[1]]).toEqual([0x1f, 0x8b]);
  expect(gunzipSync(tgz).subarray(0, 100).toString("latin1").replace(/\0+$/, "")).toBe(`${name}/manifest.json`);

  // only the release's own files are served
  expect((await page.request.get(`/api/releases/${name}/..%2F..%2Fpackage.json`)).status()).toBe(404);
});

test("an annotator cannot open the Releases page", async ({ page }) => {
  await signIn(page, annotators[0]);
  await page.goto("/releases");
  await expect(page).toHaveURL(/\/forbidden/);
  expect((await page.request.get("/api/releases/x/manifest.json")).status()).toBe(403);
  expect((await page.request.get("/api/releases/x.tar.gz")).status()).toBe(403);
});
