import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { syntheticBundle } from "../../bundle";
import { importCase } from "../../db/cases";
import type { DbHandle } from "../../db/client";
import { ExperimentError } from "../../db/experiments";
import { freshTestDb } from "../../db/test-db";
import { fakeMethods } from "../../jobs/experiment-fake-methods";
import { createWorker } from "../../jobs/kinds";
import type { ExperimentSettings } from "./methods/types";
import { cancelExperimentRun, experimentCsv, getExperimentReport, startExperiment } from "./run";

let h: DbHandle;
const settings: ExperimentSettings = {
  upstream: "http://127.0.0.1:9/v1",
  toolUpstream: null,
  model: "m",
  evaluator: "node eval.mjs",
  reproductionJudge: { kind: "command", command: "node judge.mjs" },
  command: ["node", "mas.js"],
  seed: 5,
  attempts: 3,
  budget: { maxCalls: null, maxTokens: null },
  timeoutMs: 60_000,
};

beforeAll(async () => {
  h = await freshTestDb();
  for (let i = 0; i < 5; i++) await importCase(h.db, { bundle: syntheticBundle({ id: `svc-${i}`, turns: 2, seed: 3 * i + 1 }) });
}, 60_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

describe("lib/services/experiments/run", () => {
  test("start → workers → report: the item-7 object counts every attempt once; the final report is stored and never changes", async () => {
    const e = await startExperiment(h.db, { name: "svc", settings, methods: ["rerun", "suspicious-node", "nudge"], cases: { kind: "filter", filter: {} } });
    expect(e.caseCount).toBe(5);
    const w = createWorker("experiment-attempt", { db: h.db, workerId: "svc-w", methods: fakeMethods({ stepMs: 1, passRate: { rerun: 0.3, "suspicious-node": 0.9, nudge: 0.5 } }), experimentId: e.id, log: () => {}, runners: [] });
    while (await w.runNext());
    const r = await getExperimentReport(h.db, e.id);
    expect(r?.experiment.status).toBe("finished");
    expect(r?.final).toBe(true);
    const cli = r!.cli;
    expect(cli.experiment).toBe(e.id);
    expect(cli.cases).toBe(5);
    for (const m of ["rerun", "suspicious-node", "nudge"]) {
      const rows = r!.attempts.filter((a) => a.method === m);
      // counted = the pass@k window (task level: the chain; node level: attempt 1), the rest apart (beyondK)
      const eff = r!.report.efficiency.find((x) => x.mas === "all" && x.method === m)!;
      expect(cli.methods[m].attempts + eff.beyondK.attempts).toBe(rows.length);
      expect(cli.methods[m].calls + eff.beyondK.calls).toBe(3 * rows.length);
      expect(cli.methods[m].attempts).toBe(m === "rerun" ? rows.length : rows.filter((a) => a.attempt === 1).length);
      expect(cli.methods[m].skipped).toBe(0);
    }
    expect(cli.methods.nudge.attempts).toBe(5);
    // node level: pass@1 over the first attempts; task level: pass@3 over the chain
    const firstNudge = r!.attempts.filter((a) => a.method === "nudge" && a.attempt === 1);
    expect(cli.methods.nudge.pass.rate).toBeCloseTo(firstNudge.filter((a) => a.passed).length / 5, 10);
    const rerunCases = new Set(r!.attempts.filter((a) => a.method === "rerun" && a.passed).map((a) => a.caseBundleId));
    expect(cli.methods.rerun.pass).toMatchObject({ k: 3 });
    expect(cli.methods.rerun.pass.rate).toBeCloseTo(rerunCases.size / 5, 10);
    expect(cli.comparisons.map((c) => [c.a, c.b, c.family])).toEqual([
      ["suspicious-node", "rerun", "all"],
      ["nudge", "rerun", "all"],
    ]);
    const stored = await h.db.experiment.findUnique({ where: { id: e.id }, select: { reportJson: true } });
    expect(JSON.parse(stored!.reportJson!)).toEqual(JSON.parse(JSON.stringify(r!.report)));
    // the stored report is what later calls return, even if rows were tampered with afterwards
    await h.db.experimentAttempt.updateMany({ where: { experimentId: e.id }, data: { calls: 999 } });
    expect((await getExperimentReport(h.db, e.id))!.cli.methods.nudge.calls).toBe(15);
    const csv = (await experimentCsv(h.db, e.id, "attempts"))!;
    expect(csv.split("\n")[0]).toMatch(/^attempt_id,case_bundle_id,mas,primary_category,method,attempt,status/);
    expect(csv.trim().split("\n").length).toBe(1 + r!.attempts.length);
    const settingsCsv = (await experimentCsv(h.db, e.id, "settings"))!;
    expect(settingsCsv).toContain("reproduction_judge,command: node judge.mjs");
    expect(settingsCsv).toMatch(/^case_set,"?filter {}"?$/m);
    await expect(experimentCsv(h.db, e.id, "nope")).rejects.toThrow(ExperimentError);
    // cancelling a finished experiment changes nothing
    expect((await cancelExperimentRun(h.db, e.id, null))?.status).toBe("finished");
  });

  test("a list of bundle ids; an unknown one is named with its path", async () => {
    await expect(startExperiment(h.db, { settings, methods: ["nudge"], cases: { kind: "list", bundleIds: ["svc-0", "svc-x"] } })).rejects.toMatchObject({ code: "not-found", at: "$.cases.bundleIds[1]" });
    const e = await startExperiment(h.db, { settings, methods: ["last-node"], cases: { kind: "list", bundleIds: ["svc-2", "svc-0"] } });
    expect(e.caseSet).toEqual({ kind: "list", bundleIds: ["svc-2", "svc-0"] });
    const c = await cancelExperimentRun(h.db, e.id, null);
    expect(c?.status).toBe("cancelled");
    expect(c?.progress.total.cancelled).toBe(6);
  });
});
