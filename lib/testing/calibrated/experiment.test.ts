/**
 * Issue 13 "Done when" on the calibrated world (lib/testing/calibrated/README.md "Acceptance run"):
 * 30 failed source runs recorded in the world, one experiment with ALL nine methods run by the
 * CLI's `experiment run` (in-process, 2 workers, the world's evaluator and reproduction judge), then:
 * - the detector anchors on the world's failing node of every case;
 * - it finishes with every attempt counted (no errors, nothing skipped);
 * - every attempt's a-priori truth (./check.ts `attemptTruth`, from observables: anchor, injected
 *   text, task text) is EXACTLY the probability the world drew that attempt's decision with, and
 *   the evaluator's verdict matches the draws (`checkAgainstWorld`, via SYMTRACE_ATTEMPT_SEED, which
 *   the methods set and the MAS sends as `user`): the truth is the world's model, not a fitted number;
 * - ./check.ts `verifyExperiment`: rates vs truth (Wilson, Bonferroni over the 27 interval checks),
 *   pass@k vs a-priori, Suspicious-Node beats Unguided Full Rerun with Holm p < 0.05, the ranking.
 * The shipped demo experiment (demo/experiment) is made the same way by scripts/calibrated-demo.ts;
 * ./demo-experiment.test.ts re-verifies it (recomputed from its attempts) in `npm test`.
 * Scripted local endpoints only (no model is called). Draws are keyed on the attempt seed, so the
 * result does not depend on how the workers interleave.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runExperimentCommand } from "../../../cli/experiment";
import { reportOfDocument, toCliObject } from "../../experiments";
import { attemptSeed } from "../../jobs/kinds/experiment-attempt";
import { detectSymptoms } from "../../symptoms";
import { ALL_METHODS, attemptsOf, checkAgainstWorld, checkAttemptRates, FAMILY_CHECKS, verifyExperiment, type CheckedAttempt, type CheckedCase, type ExperimentDocument } from "./check";
import { buildCalibratedMas, REPO_ROOT } from "./fast-mas";
import { recordCalibratedFailures, type RecordedFailure } from "./record";
import { startCalibratedWorld, type CalibratedWorld } from "./world";

/** Failed source cases (the issue asks for ≥ 30; CALIBRATED_EXP_CASES overrides it for a quick look). */
const CASES = Number(process.env.CALIBRATED_EXP_CASES ?? 30);
/** In-process workers (CALIBRATED_EXP_WORKERS, default 2); the result does not depend on it. */
const WORKERS = Number(process.env.CALIBRATED_EXP_WORKERS ?? 2);
/** Attempts per (case, method) (CALIBRATED_EXP_K, default 1). */
const K = Number(process.env.CALIBRATED_EXP_K ?? 1);
/** CALIBRATED_EXP_KEEP=1: keep the work directory (cases/, out/) and print it, to pack it as the demo experiment. */
const KEEP = process.env.CALIBRATED_EXP_KEEP === "1";

/**
 * Opt-in (CALIBRATED_ACCEPTANCE=1): 30 cases × 9 methods × k = 1 are 270 attempts, each a MAS,
 * an evaluator and a judge process — measured 27 min at load average 20–26 on this 2-core machine
 * (README "Acceptance run"), too long for `npm test`. `npm test` re-verifies the shipped result
 * of this run (./demo-experiment.test.ts) and runs the quick variants
 * (cli/experiment-calibrated.test.ts, lib/services/experiments/methods/calibrated.test.ts).
 */
const ACCEPTANCE = process.env.CALIBRATED_ACCEPTANCE === "1";
describe.runIf(ACCEPTANCE)("issue 13 done-when: an experiment with all methods on the calibrated world agrees with the truth", () => {
  let dir: string;
  let world: CalibratedWorld | null = null;
  let failures: RecordedFailure[];
  let code: number;
  let doc: ExperimentDocument;

  beforeAll(async () => {
    process.env.SYMTRACE_QUIET = "1";
    dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-calibrated-exp-"));
    const mas = buildCalibratedMas(path.join(dir, "mas"));
    const rec = await startCalibratedWorld({ seed: 13, session: "record" });
    try {
      failures = (await recordCalibratedFailures(rec, { count: CASES, command: mas, outDir: path.join(dir, "cases") })).failures;
    } finally {
      await rec.stop();
    }
    world = await startCalibratedWorld({ seed: 13 });
    const r = await runExperimentCommand(
      [
        "--cases", path.join(dir, "cases"), "--methods", ALL_METHODS.join(","), "--attempts", String(K),
        "--upstream", world.upstream, "--tool-upstream", world.toolUpstream,
        "--evaluator", `node ${path.join(REPO_ROOT, "scripts", "calibrated-evaluator.mjs")}`,
        "--reproduction-judge", `node ${path.join(REPO_ROOT, "scripts", "calibrated-reproduction-judge.mjs")}`,
        "--seed", "13", "--workers", String(WORKERS), "--out", path.join(dir, "out"), "--", ...mas,
      ],
      { url: `file:${path.join(dir, "db.sqlite")}`, log: () => {} },
    );
    code = r.code;
    doc = JSON.parse(readFileSync(path.join(dir, "out", "experiment.json"), "utf8")) as ExperimentDocument;
  }, 3_600_000);

  afterAll(async () => {
    await world?.stop();
    if (dir && KEEP) console.log(`calibrated acceptance: kept ${dir} (cases/, out/)`);
    else if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cases = (): CheckedCase[] => failures.map((f) => ({ caseKey: f.bundle.id, bundle: f.bundle, boundaryNodeId: f.reference.boundaryNodeId }));

  test("the detector anchors on the failing node of every recorded failure", () => {
    expect(failures).toHaveLength(CASES);
    const hits = failures.filter((f) => detectSymptoms(f.bundle).anchorNode === f.reference.nodeId).length;
    expect(hits).toBe(CASES);
  });

  test("the experiment finishes with every method on every case: no errors, nothing skipped", () => {
    expect(code).toBe(0);
    const cli = toCliObject(reportOfDocument(doc));
    expect(cli.cases).toBe(CASES);
    expect(Object.keys(cli.methods).sort()).toEqual([...ALL_METHODS].sort());
    for (const m of ALL_METHODS) {
      expect(cli.methods[m], m).toMatchObject({ skipped: 0, errors: 0 });
      expect(cli.methods[m].attempts, m).toBeGreaterThanOrEqual(CASES);
    }
    expect(doc.attempts.filter((a) => a.status === "error").map((a) => `${a.method}: ${a.error}`)).toEqual([]);
  });

  test("every attempt's a-priori truth is the probability the world itself drew it with, and its verdict matches the draws", () => {
    // The MAS sends SYMTRACE_ATTEMPT_SEED (set by the methods: the runner's attempt seed) as `user`.
    const userOf = (a: CheckedAttempt) => `symtrace-attempt-${attemptSeed(13, a.caseKey, a.method, a.attempt)}`;
    const ran = attemptsOf(doc).filter((a) => a.status === "passed" || a.status === "failed");
    expect(ran.length).toBeGreaterThanOrEqual(CASES * ALL_METHODS.length);
    expect(checkAgainstWorld(ran, cases(), world!.decisions, userOf)).toEqual([]);
  });

  test(`the done-when checks (./check.ts verifyExperiment): rates vs truth (Wilson, Bonferroni over ${FAMILY_CHECKS}), pass@k, Holm p < 0.05 for Suspicious-Node vs rerun, the ranking`, () => {
    const checks = verifyExperiment(doc, failures.map((f) => f.bundle));
    console.log(checks.map((c) => `${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}`).join("\n"));
    // At 95% per interval (for the record; the family-wise level is what the test asserts).
    console.log(checkAttemptRates(attemptsOf(doc), cases()).map((r) => `${r.method}: ${r.passed}/${r.n} [${r.lo.toFixed(3)}, ${r.hi.toFixed(3)}] (95%) truth ${r.expected.toFixed(3)}${r.ok ? "" : " (outside the 95% interval)"}`).join("\n"));
    expect(checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
  });
});
