/**
 * The experiment page (issue 13 item 6) over a finished experiment seeded through lib/db (the
 * runner's own functions: createExperiment → claimNextAttempt → finishAttempt → completeIfDone,
 * with outcomes chosen by the test instead of a MAS, so every table value below is computed by
 * hand): tables, chart, forest plot, drill-down to the attempts and to an attempt's bundle diff.
 */
import { expect, test } from "@playwright/test";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { ciPct, pct, points, pValue } from "../components/experiments/format";
import { methodLabel, reportOfDocument, type ExperimentDocumentInput } from "../lib/experiments";
import { hashContent, type ReplayBundle } from "../lib/bundle";
import { claimNextAttempt, completeIfDone, createExperiment, importCase, listExperimentCases, openDb, finishAttempt, type Db } from "../lib/db";
import { E2E_DATABASE_URL } from "../playwright.config";
import { createUser, goldCopy, seedBundle, signIn } from "./fixtures";

// Seeding 23 attempts through lib/db and rendering a 10,000-resample report on a loaded 2-core machine.
test.describe.configure({ timeout: 180_000 });

/** The runner name the seeded experiments are reserved for (lib/db claimNextAttempt `runner`). */
const RUNNER = "e2e-planned-outcomes";
let db: Db | null = null;
const getDb = () => (db ??= openDb(E2E_DATABASE_URL).db);

type Plan = { status: "passed" | "failed" | "error"; reproduced: boolean | null; bundle?: boolean };
const P = (reproduced: boolean | null = false, bundle = false): Plan => ({ status: "passed", reproduced, bundle });
const F = (reproduced: boolean | null): Plan => ({ status: "failed", reproduced });
const E: Plan = { status: "error", reproduced: null };
/** Outcomes by case index (0–2 AG2, 3 CrewAI), method and attempt. */
const PLAN: Record<string, Plan[][]> = {
  "suspicious-node": [
    [P(false, true), F(true), F(true)],
    [P(), F(true), F(true)],
    [F(true), F(true), F(true)],
    [P(), P(), F(false)],
  ],
  rerun: [[F(true), P()], [F(true), F(true), F(true)], [F(true), F(false), F(true)], [E, F(true), F(true)]],
};

/** The attempt's recording: the source with a different final answer (content hash recomputed). */
function attemptBundle(src: ReplayBundle): ReplayBundle {
  const last = src.order[src.order.length - 1];
  const nodes = src.graph.nodes.map((n) => (n.id === last ? { ...n, content: { answer: "Potash Markets - Clark Street (repaired)" }, contentHash: hashContent({ answer: "Potash Markets - Clark Street (repaired)" }) } : n));
  return { ...src, id: `${src.id}~attempt-${randomUUID().slice(0, 6)}`, graph: { ...src.graph, nodes }, outcome: { passed: true } } as ReplayBundle;
}

async function seedExperiment(): Promise<{ id: string; sources: ReplayBundle[] }> {
  const sources = [await seedBundle(goldCopy("gold-c1")), await seedBundle(goldCopy("gold-c2")), await seedBundle(goldCopy("gold-c3")), await seedBundle(goldCopy("gold-c4"))];
  const d = getDb();
  const caseIds = await Promise.all(sources.map(async (b) => (await d.case.findUniqueOrThrow({ where: { bundleId: b.id }, select: { id: true } })).id));
  const e = await createExperiment(d, {
    name: `e2e ${randomUUID().slice(0, 8)}`,
    settings: { upstream: "http://127.0.0.1:9/v1", toolUpstream: null, model: "scripted", evaluator: "node scripts/calibrated-evaluator.mjs", reproductionJudge: null, command: ["node", "mas/x.js"], seed: 7, attempts: 3, budget: { maxCalls: null, maxTokens: null }, timeoutMs: 60_000 },
    methods: ["rerun", "suspicious-node"],
    caseIds,
    caseSet: { kind: "list" },
    // Reserved for this test's own runner: the app's embedded worker (started by another spec's
    // POST /api/experiments) must not claim these attempts and run them for real.
    runner: RUNNER,
  });
  return { id: e.id, sources };
}

/** Run every attempt with the outcome PLAN gives it (the runner's claim/finish path, no MAS). */
async function runPlanned(id: string, sources: ReplayBundle[]): Promise<void> {
  const d = getDb();
  const idx = new Map((await listExperimentCases(d, id)).map((c) => [c.id, c.idx]));
  for (;;) {
    const a = await claimNextAttempt(d, "e2e", 60_000, { experimentId: id, runner: RUNNER });
    if (!a) break;
    const i = idx.get(a.experimentCaseId)!;
    const plan = PLAN[a.method][i][a.attempt - 1];
    let bundleId: string | null = null;
    if (plan.bundle) {
      const b = attemptBundle(sources[i]);
      await importCase(d, { bundle: b });
      bundleId = b.id;
    }
    const anchor = a.method === "suspicious-node" ? sources[i].order[sources[i].order.length - 1] : null;
    await finishAttempt(
      d,
      a.id,
      "e2e",
      { status: plan.status, passed: plan.status === "passed", reproduced: plan.reproduced, anchorNodeId: anchor, guidance: anchor ? "Resolve the missing item before answering." : null, bundle: null, final: null, calls: 3, auxCalls: 0, tokens: { prompt: 200, completion: 100, total: 300 }, error: plan.status === "error" ? "framework crashed: <script>x</script>" : null, skipReason: null, masMs: 10, judgeReason: null },
      { bundleId },
    );
  }
  await completeIfDone(d, id);
}

async function seedFinishedExperiment(): Promise<{ id: string; sources: ReplayBundle[] }> {
  const x = await seedExperiment();
  await runPlanned(x.id, x.sources);
  return x;
}

test("experiment page: tables with hand-computed values, chart, forest plot, drill-down to an attempt's diff", async ({ page }) => {
  const { id } = await seedFinishedExperiment();
  const researcher = await createUser(["researcher"]);
  await signIn(page, researcher);

  await page.goto("/experiments");
  await expect(page.getByRole("link", { name: "Experiments" })).toBeVisible();
  await expect(page.locator(`[data-experiment="${id}"]`)).toContainText("finished");
  await expect(page.locator(`[data-experiment="${id}"]`)).toContainText("23/23");
  await page.locator(`[data-experiment="${id}"] a`).click();
  await page.waitForURL(`**/experiments/${id}`);

  await expect(page.getByTestId("experiment-status")).toHaveText("finished");
  await expect(page.getByTestId("denominator-note")).toContainText("Rates are over the 4 failed source case(s) of this experiment, not over all tasks");
  await expect(page.getByTestId("frozen-settings")).toContainText("http://127.0.0.1:9/v1");

  // Table 4 layout: suspicious-node pass@1 = 3/4, AG2 2/3, CrewAI 1/1; rerun pass@3 = 1/4, AG2 1/3, CrewAI 0/1
  const rate = (t: string) => page.getByTestId(t).getByTestId("rate");
  await expect(rate("cell-mas-suspicious-node-all")).toHaveText("75.00");
  await expect(rate("cell-mas-suspicious-node-ag2")).toHaveText("66.67");
  await expect(rate("cell-mas-suspicious-node-crewai")).toHaveText("100.00");
  await expect(rate("cell-mas-rerun-all")).toHaveText("25.00");
  await expect(rate("cell-mas-rerun-ag2")).toHaveText("33.33");
  await expect(page.getByTestId("cell-mas-rerun-all")).toContainText("1/4 [4.56, 69.94]");
  // Table 2 layout: rep1 suspicious 7/12, rerun 8/10 (the error is not judged); rep3 1/4 and 1/3
  await expect(rate("cell-rep1-suspicious-node-all")).toHaveText("58.33");
  // rep_1 per case (eq. 2): rerun c0 [T,F] ½, c1 1, c2 ⅔, c3 [T,T] 1 → 79.17 (pooled executions would say 8/10)
  await expect(rate("cell-rep1-rerun-all")).toHaveText("79.17");
  await expect(rate("cell-rep3-suspicious-node-all")).toHaveText("25.00");
  await expect(rate("cell-rep3-rerun-all")).toHaveText("33.33");
  // Tables 7–8: AG2 Δ = +33.33 (n10/n01 = 1/0), CrewAI +100.00; McNemar p = 1
  const ag2 = page.locator('[data-comparison="ag2:suspicious-node:rerun"]');
  await expect(ag2.getByTestId("diff")).toContainText("+33.33");
  await expect(ag2).toContainText("1/0");
  await expect(ag2.getByTestId("mcnemar-p")).toHaveText("1.000");
  await expect(page.locator('[data-comparison="crewai:suspicious-node:rerun"]').getByTestId("diff")).toContainText("+100.00");
  // Table 9: suspicious 36 calls, 4 repairs → 111.1 per 1K; rerun 33 calls, 1 repair → 30.3
  // node level: the attempts pass@1 counts (attempt 1 of each case: 12 calls, 3 repairs), later ones apart
  await expect(page.locator('[data-efficiency="all:suspicious-node"]').getByTestId("per1k")).toHaveText("250.0");
  await expect(page.locator('[data-efficiency="all:suspicious-node"]').getByTestId("eff-attempts")).toContainText("4+8 for rep_k (24 calls)");
  await expect(page.locator('[data-efficiency="all:rerun"]').getByTestId("per1k")).toHaveText("30.3");
  await expect(page.getByTestId("error-list")).toContainText("framework crashed: <script>x</script>");

  // chart with whiskers and the forest plot are drawn
  await expect(page.getByTestId("pass-rate-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(page.getByTestId("pass-rate-chart").locator(".recharts-errorBar").first()).toBeAttached();
  await expect(page.getByTestId("forest-plot").locator(".recharts-scatter-symbol")).toHaveCount(2);
  await expect(page.getByTestId("forest-plot").locator(".recharts-errorBar").first()).toBeAttached();
  await page.screenshot({ path: "e2e-artifacts/experiment-page.png", fullPage: true });

  // downloads
  const csv = await page.request.get(`/api/experiments/${id}/report?format=csv&table=comparisons`);
  expect(csv.ok()).toBe(true);
  expect(await csv.text()).toContain("ag2,suspicious-node,rerun,3,2,1,33.3333333333,");
  const json = await (await page.request.get(`/api/experiments/${id}/report?format=json`)).json();
  expect(json.settings.upstream).toBe("http://127.0.0.1:9/v1");
  expect(json.cli.methods["suspicious-node"].pass).toMatchObject({ rate: 0.75, k: 1 });
  expect(json.report.methods["suspicious-node"].pass).toMatchObject({ rate: 0.75, k: 1 });

  // drill-down: the AG2 suspicious-node cell → its 9 attempts → the first attempt's bundle diff
  await page.getByTestId("cell-mas-suspicious-node-ag2").click();
  await expect(page.getByTestId("attempt-list").locator("tbody tr")).toHaveCount(9);
  await page.getByTestId("attempt-list").getByTestId("attempt-diff-link").first().click();
  await expect(page.getByTestId("attempt-status")).toHaveText("passed");
  await expect(page.getByTestId("replay-compare")).toBeVisible();
  await expect(page.getByTestId("replay-compare").locator('tr[data-kind="prefix"]').first()).toBeVisible();
  await expect(page.getByTestId("replay-compare")).toContainText("final_result");
  await page.screenshot({ path: "e2e-artifacts/experiment-attempt-diff.png", fullPage: true });
});

test("a running experiment shows live progress and turns into the tables when it finishes (polling, no reload)", async ({ page }) => {
  const { id, sources } = await seedExperiment();
  await signIn(page, await createUser(["researcher"]));
  await page.goto(`/experiments/${id}`);
  await expect(page.getByTestId("experiment-status")).toHaveText("queued");
  // 4 cases × 3 node-level rows + 4 first task-level rows exist before anything ran
  await expect(page.getByTestId("live-progress").getByTestId("progress")).toContainText("0/16");
  await expect(page.getByTestId("cell-mas-suspicious-node-all").getByTestId("rate")).toHaveText("—");
  await runPlanned(id, sources);
  await expect(page.getByTestId("experiment-status")).toHaveText("finished", { timeout: 15_000 });
  await expect(page.getByTestId("live-progress").getByTestId("progress")).toContainText("23/23");
  await expect(page.getByTestId("cell-mas-suspicious-node-all").getByTestId("rate")).toHaveText("75.00", { timeout: 15_000 });
});

/** demo/experiment/experiment.json.gz: the document scripts/calibrated-demo.ts wrote (its attempts are what the figures are recomputed from). */
type DemoDoc = ExperimentDocumentInput & { status: string };

test("the shipped demo experiment (calibrated world, 30 failures × all nine methods): the tables, chart and forest plot show the figures recomputed from its attempts", async ({ page }) => {
  // Seeded by scripts/e2e-server.sh (npm run db:seed → scripts/demo-data.ts seedDemoExperiment). The
  // expected values are RECOMPUTED here from the document's attempts (lib/experiments reportOfDocument
  // → summarizeExperiment), not read from its stored report, not written here.
  const doc = JSON.parse(gunzipSync(readFileSync(path.join(process.cwd(), "demo/experiment/experiment.json.gz"))).toString("utf8")) as DemoDoc;
  const r = reportOfDocument(doc);
  expect(doc.status).toBe("finished");
  expect(r.cases).toBeGreaterThanOrEqual(30);
  expect(doc.methods).toHaveLength(9);
  await signIn(page, await createUser(["researcher"]));
  await page.goto(`/experiments/${doc.experiment}`);
  await expect(page.getByTestId("experiment-status")).toHaveText("finished");
  await expect(page.getByTestId("denominator-note")).toContainText(`Rates are over the ${r.cases} failed source case(s)`);

  const rate = (t: string) => page.getByTestId(t).getByTestId("rate");
  for (const m of doc.methods) {
    for (const g of r.byMas) {
      const c = g.cells[m];
      // Table 4 layout: pass@k per MAS and total, with x/n and the Wilson interval
      await expect(rate(`cell-mas-${m}-${g.key}`), `${m} ${g.key}`).toHaveText(pct(c.pass.rate));
      if (c.pass.n) await expect(page.getByTestId(`cell-mas-${m}-${g.key}`)).toContainText(`${c.pass.x}/${c.pass.n} ${ciPct(c.pass)}`);
      // Table 2 layout: rep1, rep3
      await expect(rate(`cell-rep1-${m}-${g.key}`), `rep1 ${m} ${g.key}`).toHaveText(pct(c.rep1.rate));
      await expect(rate(`cell-rep3-${m}-${g.key}`), `rep3 ${m} ${g.key}`).toHaveText(pct(c.rep3?.rate));
    }
  }
  // Tables 7–8: every comparison's Δ, McNemar and Holm p; Suspicious-Node beats Unguided Full Rerun (Holm p < 0.05)
  for (const c of r.comparisons) {
    const row = page.locator(`[data-comparison="${c.family}:${c.a}:${c.b}"]`);
    await expect(row.getByTestId("diff")).toContainText(points(c.diffPoints));
    await expect(row.getByTestId("mcnemar-p")).toHaveText(pValue(c.mcnemarP));
    await expect(row.getByTestId("holm-p")).toHaveText(pValue(c.holmP));
  }
  const sn = r.comparisons.find((c) => c.a === "suspicious-node" && c.b === "rerun" && c.family === "all") ?? r.comparisons.find((c) => c.a === "suspicious-node" && c.b === "rerun");
  expect(sn?.holmP).toBeLessThan(0.05);
  await expect(page.locator(`[data-comparison="${sn!.family}:suspicious-node:rerun"]`).getByTestId("holm-p")).toHaveClass(/font-semibold/);
  // Table 9: repairs per 1,000 calls
  for (const e of r.efficiency) {
    const row = page.locator(`[data-efficiency="${e.mas}:${e.method}"]`);
    await expect(row.getByTestId("per1k")).toHaveText(e.repairsPer1k === null ? "—" : e.repairsPer1k.toFixed(1));
    // tokens per repair is shown (the stored report of the earlier demo predated it: "—")
    await expect(row.getByTestId("tokens-per-repair")).toHaveText(e.tokensPerRepair === null ? "—" : e.tokensPerRepair.toFixed(0));
    await expect(row.getByTestId("eff-attempts")).toContainText(String(e.attempts));
  }
  expect(r.efficiency.filter((e) => e.tokensPerRepair !== null).length).toBeGreaterThan(0);
  await expect(page.getByTestId("fake-note")).toHaveCount(0);

  // The chart: one x-axis tick per method, bars with Wilson whiskers; the forest plot: one point per comparison.
  const chart = page.getByTestId("pass-rate-chart");
  for (const m of doc.methods) await expect(chart).toContainText(methodLabel(m));
  await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(chart.locator(".recharts-errorBar").first()).toBeAttached();
  await expect(page.getByTestId("forest-plot").locator(".recharts-scatter-symbol")).toHaveCount(r.comparisons.filter((c) => c.diffPoints !== null && c.lo !== null && c.hi !== null).length);
  await expect(page.getByTestId("forest-plot").locator(".recharts-errorBar").first()).toBeAttached();
  await page.screenshot({ path: "e2e-artifacts/demo-experiment-page.png", fullPage: true });
});
