/**
 * The matched control of a proposed correction (issue 14 item 4) end to end on the calibrated
 * world (lib/testing/calibrated: a LOCAL seeded scripted OpenAI-compatible endpoint and tool
 * server, no real model): two recorded failures get a final annotation with a proposed correction
 * (one right, one wrong; a third case's final annotation gives none); an experiment runs `correction` and `correction-control` with k = 2
 * through the real method registry and the attempt worker; then `release export --format aed`
 * grades each case from the pair. The live world's truth is overridden so that an unguided call
 * never recovers (recover.none = late.none = 0): every control must fail, so the grades are
 * determined by the corrections: the right one → E2, the wrong one → no_recovery, none → both arms
 * skipped with the reason, E0.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ReplayBundle } from "../../bundle";
import { exportBundle, importCase } from "../../db/cases";
import type { DbHandle } from "../../db/client";
import { freshTestDb } from "../../db/test-db";
import { createWorker } from "../../jobs/kinds";
import { loadDefaultMethods } from "../../jobs/kinds/experiment-attempt";
import type { ExperimentSettings } from "./methods/types";
import { unitPriceFor } from "../../testing/calibrated/catalogue.mjs";
import { buildCalibratedMas, REPO_ROOT } from "../../testing/calibrated/fast-mas";
import { recordCalibratedFailures, type RecordedFailure } from "../../testing/calibrated/record";
import { DEFAULT_TRUTH } from "../../testing/calibrated/truth";
import { startCalibratedWorld, type CalibratedWorld } from "../../testing/calibrated/world";
import { getExperimentReport, startExperiment } from "./run";

let h: DbHandle;
let recordWorld: CalibratedWorld;
let live: CalibratedWorld;
let dir: string;
let failures: RecordedFailure[];
let experimentId: string;
const corrections = new Map<string, string>();

/** The Clerk's report line the Solver trusts (mas/calibrated.ts; policy GOOD_FACT_RE). */
const fact = (sku: string, price: number) => `FACT: unit price of ${sku} = ${price.toFixed(2)} EUR.`;

beforeAll(async () => {
  process.env.SYMTRACE_QUIET = "1";
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-correction-"));
  const command = buildCalibratedMas(dir);
  recordWorld = await startCalibratedWorld({ seed: 13, session: "record" });
  live = await startCalibratedWorld({ seed: 13, session: "live", truth: { ...DEFAULT_TRUTH, recover: { ...DEFAULT_TRUTH.recover, none: 0 }, late: { ...DEFAULT_TRUTH.late, none: 0 } } });
  failures = (await recordCalibratedFailures(recordWorld, { count: 3, command })).failures;
  h = await freshTestDb();
  const user = await h.db.user.create({ data: { name: "Adjudicator", email: "adj@example.test", roles: "adjudicator" } });
  for (const [i, f] of failures.entries()) {
    const { caseId } = await importCase(h.db, { bundle: f.bundle });
    // The first case's correction is right (the unit price for the ordered quantity); the second's is wrong.
    // The third case's final annotation proposes no correction.
    const price = i === 0 ? unitPriceFor(f.task.item, f.task.qty) : 1.11;
    if (i < 2) corrections.set(f.bundle.id, fact(f.task.item.sku, price));
    const a = await h.db.annotation.create({
      data: {
        caseId,
        userId: user.id,
        kind: "final",
        status: "submitted",
        categories: f.reference.primaryCategory,
        primary: f.reference.primaryCategory,
        nodeId: f.reference.nodeId,
        nodeType: f.bundle.graph.nodes.find((n) => n.id === f.reference.nodeId)!.type,
        confidence: "high",
        rationale: `The trap of ${f.task.item.sku} springs here.`,
        correction: corrections.get(f.bundle.id) ?? null,
        submittedAt: new Date(),
        evidence: { create: [{ idx: 0, nodeId: "task_0000", quote: f.task.item.sku }] },
      },
    });
    await h.db.case.update({ where: { id: caseId }, data: { finalAnnotationId: a.id } });
  }
  const settings: ExperimentSettings = {
    upstream: live.upstream,
    toolUpstream: live.toolUpstream,
    model: live.model,
    evaluator: `node ${path.join(REPO_ROOT, "scripts/calibrated-evaluator.mjs")}`,
    reproductionJudge: null,
    command,
    seed: 7,
    attempts: 2,
    budget: { maxCalls: null, maxTokens: null },
    timeoutMs: 60_000,
  };
  const e = await startExperiment(h.db, { name: "matched control", settings, methods: ["correction", "correction-control"], cases: { kind: "list", bundleIds: failures.map((f) => f.bundle.id) } });
  experimentId = e.id;
  const w = createWorker("experiment-attempt", { db: h.db, workerId: "correction-w", methods: await loadDefaultMethods(), experimentId: e.id, log: () => {}, runners: [] });
  while (await w.runNext());
  process.env.DATABASE_URL = h.url;
}, 300_000);
afterAll(async () => {
  await recordWorld?.stop();
  await live?.stop();
  await h?.db.$disconnect();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function attemptsOf(bundleId: string) {
  const rows = await h.db.experimentAttempt.findMany({ where: { experimentId, experimentCase: { bundleId } }, orderBy: [{ method: "asc" }, { attempt: "asc" }] });
  const out: Array<(typeof rows)[number] & { bundle: ReplayBundle }> = [];
  for (const r of rows) out.push({ ...r, bundle: (await exportBundle(h.db, { bundleId: r.bundleId! }))! });
  return out;
}

describe("correction vs correction-control on the calibrated world (local scripted endpoint)", () => {
  test("treatment substitutes the correction (recorded, marked, no model call); control re-executes the original request live; both from the same verified prefix", async () => {
    expect(failures.map((f) => f.task.category)).toEqual(["C1", "C2", "C3"]);
    for (const f of failures.slice(0, 2)) {
      const rows = await attemptsOf(f.bundle.id);
      expect(rows.map((r) => `${r.method}#${r.attempt}`)).toEqual(["correction#1", "correction#2", "correction-control#1", "correction-control#2"]);
      // The boundary: the LLM call whose response is the reference node (C1: the Clerk's placeholder report; C2: the call that repeated the lookup).
      const producer = f.bundle.graph.edges.find((e) => e.to === f.reference.nodeId && e.kind === "data" && f.bundle.records.some((r) => r.nodeId === e.from && r.boundary === "llm"))!.from;
      const seq = f.bundle.records.find((r) => r.nodeId === producer)!.seq;
      for (const r of rows) {
        expect(r.anchorNodeId).toBe(f.reference.nodeId);
        expect(r.error).toBeNull();
        const b = r.bundle;
        // the same verified prefix: every source record before the boundary, unchanged
        expect(b.records.slice(0, seq)).toEqual(f.bundle.records.slice(0, seq));
        expect(b.parent).toMatchObject({ bundleId: f.bundle.id, targetNodeId: f.reference.nodeId, boundaryNodeId: producer, boundarySeq: seq, guidance: "" });
        const at = b.records[seq];
        if (r.method === "correction") {
          expect(at.meta?.substituted).toBe(true);
          expect((at.response as { id: string; choices: { message: { content: string } }[] }).id).toBe("symtrace-substituted");
          expect((at.response as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(corrections.get(f.bundle.id));
          expect(b.parent).toMatchObject({ substitution: { correction: corrections.get(f.bundle.id), boundaryNodeId: producer, boundarySeq: seq } });
          expect(r.guidance).toBe(corrections.get(f.bundle.id));
          // calls = the live records after the substituted one (the Solver's calls and tools), not the substitution
          expect(r.calls).toBe(b.records.length - seq - 1);
          expect(r.calls).toBeGreaterThan(0);
        } else {
          expect(at.meta?.substituted).toBeUndefined();
          expect(b.parent).toMatchObject({ targetRule: "output" });
          expect(b.parent).not.toHaveProperty("substitution");
          // the original request, re-executed live: same request hash as the source's record at the boundary
          expect(at.requestHash).toBe(f.bundle.records[seq].requestHash);
          expect((at.response as { id?: unknown }).id).not.toBe("symtrace-substituted");
          expect(r.guidance).toBeNull();
          expect(r.calls).toBe(b.records.length - seq);
        }
      }
    }
  });

  test("outcomes: the right correction passes 2/2, the wrong one 0/2, every control fails (unguided recovery is 0 in this world)", async () => {
    const [right, wrong] = failures;
    const st = async (f: RecordedFailure) => (await attemptsOf(f.bundle.id)).map((r) => `${r.method}#${r.attempt}:${r.status}`);
    expect(await st(right)).toEqual(["correction#1:passed", "correction#2:passed", "correction-control#1:failed", "correction-control#2:failed"]);
    expect(await st(wrong)).toEqual(["correction#1:failed", "correction#2:failed", "correction-control#1:failed", "correction-control#2:failed"]);
    const none = failures[2];
    const skipped = await h.db.experimentAttempt.findMany({ where: { experimentId, experimentCase: { bundleId: none.bundle.id } } });
    expect(skipped.length).toBeGreaterThan(0);
    for (const r of skipped) expect([r.method, r.status, r.skipReason, r.bundleId]).toEqual([r.method, "skipped", `case ${none.bundle.id} has no proposed correction (the final annotation at ${none.reference.nodeId} gives none)`, null]);
    expect(new Set(skipped.map((r) => r.method))).toEqual(new Set(["correction", "correction-control"]));
    // The skipped case's two attempt rows per arm are counted as skipped. The experiment's statistics compare the treatment with its matched control (paired per case).
    const rep = (await getExperimentReport(h.db, experimentId))!.cli;
    // node level: the counted attempts are the pass@1 ones (attempt 1 of the two cases), issue 20 item 8
    expect(rep.methods.correction).toMatchObject({ attempts: 2, skipped: 2, pass: { rate: 0.5, k: 1 } });
    expect(rep.methods["correction-control"]).toMatchObject({ attempts: 2, skipped: 2, pass: { rate: 0, k: 1 } });
    expect(rep.comparisons).toMatchObject([{ a: "correction", b: "correction-control", diffPoints: 50, n10: 1, n01: 0 }]);
  });

  test("release export --format aed grades each case from its pair: E2, no_recovery, and E0 without a correction", async () => {
    const { releaseCommand } = await import("../../../cli/release");
    const out = path.join(dir, "aed");
    const r = await releaseCommand(["export", "--out", out, "--format", "aed"]);
    expect(r.output).toMatchObject({ ok: true, rows: 3, grades: { E2: 1, no_recovery: 1, E0: 1 } });
    const rows = readFileSync(path.join(out, "aed.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { source: { bundleId: string }; diagnosis: { correction: string | null }; replay: Record<string, unknown>; evidenceGrade: string });
    const byBundle = new Map(rows.map((x) => [x.source.bundleId, x]));
    const [right, wrong] = failures;
    expect(byBundle.get(right.bundle.id)).toMatchObject({ evidenceGrade: "E2", diagnosis: { correction: corrections.get(right.bundle.id) } });
    expect(byBundle.get(wrong.bundle.id)?.evidenceGrade).toBe("no_recovery");
    expect(byBundle.get(failures[2].bundle.id)).toMatchObject({ evidenceGrade: "E0", diagnosis: { correction: null } });
    expect(byBundle.get(right.bundle.id)?.replay).toMatchObject({ source: "experiment", protocol: "substitution" });
  });
});
