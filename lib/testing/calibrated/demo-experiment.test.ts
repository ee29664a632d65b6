/**
 * The shipped demo experiment (demo/experiment, seeded by `npm run db:seed`) is the calibrated
 * acceptance run (./experiment.test.ts, CALIBRATED_ACCEPTANCE=1 CALIBRATED_EXP_KEEP=1, packed by
 * scripts/demo-data.ts): ≥ 30 recorded failures × all nine methods. This re-verifies the STORED
 * result against the world's truth in seconds, so `npm test` checks the first done-when on
 * the real run the demo page (and e2e/experiments.spec.ts) shows: ./check.ts verifyExperiment —
 * every method on every case, rates vs truth (Wilson, Bonferroni over 27 checks), pass@k vs
 * a-priori, Suspicious-Node beats Unguided Full Rerun with Holm p < 0.05, the designed ranking.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import type { ReplayBundle } from "../../bundle";
import { ALL_METHODS, verifyExperiment, type ExperimentDocument } from "./check";
import { REPO_ROOT } from "./fast-mas";

const dir = path.join(REPO_ROOT, "demo", "experiment");
const read = <T>(f: string): T => JSON.parse(gunzipSync(readFileSync(path.join(dir, f))).toString("utf8")) as T;

describe("demo/experiment: the shipped calibrated experiment agrees with the world's truth", () => {
  const doc = read<ExperimentDocument & { status: string; methods: string[] }>("experiment.json.gz");
  const bundles = read<ReplayBundle[]>("bundles.json.gz");

  test("a finished experiment over ≥ 30 recorded failures with all nine methods", () => {
    expect(doc.status).toBe("finished");
    expect(doc.cases.length).toBeGreaterThanOrEqual(30);
    expect([...doc.methods].sort()).toEqual([...ALL_METHODS].sort());
  });

  test("verifyExperiment: every check holds", () => {
    const checks = verifyExperiment(doc, bundles);
    expect(checks.length).toBeGreaterThanOrEqual(40);
    expect(checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
  });
});
