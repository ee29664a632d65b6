/**
 * Issue 13 "Done when" on the calibrated world (lib/testing/calibrated/README.md): 30 failed
 * source runs recorded in the world, one experiment with ALL methods (k = 3) run by the CLI's
 * `experiment run` (in-process, 4 workers, the world's evaluator and reproduction judge), then:
 * - it finishes with every attempt counted (no errors, nothing skipped);
 * - every method's measured per-attempt pass and reproduction rates agree with the truth
 *   (the truth inside the Wilson 95% interval; ./check.ts derives each attempt's probability from
 *   observables: its anchor and the text it injected), and each method's pass@k interval of the
 *   report contains the a-priori pass@k;
 * - Suspicious-Node beats Unguided Full Rerun (k = 3) with Holm-adjusted p < 0.05;
 * - the ranking comes out as designed (specific > {critic, nudge, self-reflection} > {rerun,
 *   resample, last-node}, per attempt).
 * Scripted local endpoints only (no model is called). Each attempt's MAS gets
 * SYMTRACE_ATTEMPT_SEED = the attempt's derived seed (through `env`), so the world's draws are
 * keyed on the attempt and the result does not depend on how the workers interleave.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runExperimentCommand } from "../../../cli/experiment";
import type { MethodRegistry } from "../../jobs/experiment-types";
import { METHODS } from "../../services/experiments/methods";
import { detectSymptoms } from "../../symptoms";
import { checkAttemptRates, attemptTruth, type CheckedAttempt, type CheckedCase } from "./check";
import { buildCalibratedMas, REPO_ROOT } from "./fast-mas";
import { recordCalibratedFailures, type RecordedFailure } from "./record";
import { DEFAULT_TRUTH, expectedAttemptRates, passAtK } from "./truth";
import { startCalibratedWorld, type CalibratedWorld } from "./world";

/** Failed source cases (the issue asks for ≥ 30; CALIBRATED_EXP_CASES overrides it for a quick look). */
const CASES = Number(process.env.CALIBRATED_EXP_CASES ?? 30);
/** In-process workers (CALIBRATED_EXP_WORKERS, default 4); the result does not depend on it. */
const WORKERS = Number(process.env.CALIBRATED_EXP_WORKERS ?? 4);
const K = 3;
const ALL = ["rerun", "self-reflection", "critic", "suspicious-node", "annotated-node", "random-node", "last-node", "node-resample", "nudge"];

interface CliMethod {
  attempts: number;
  pass: { rate: number | null; lo: number | null; hi: number | null; k: number };
  rep1: number | null;
  rep3: number | null;
  skipped: number;
  errors: number;
}
interface CliObject {
  experiment: string;
  cases: number;
  methods: Record<string, CliMethod>;
  comparisons: Array<{ a: string; b: string; diffPoints: number | null; n10: number; n01: number; mcnemarP: number | null; holmP: number | null }>;
}
interface AttemptJson {
  caseBundleId: string;
  method: string;
  attempt: number;
  status: string;
  passed: boolean | null;
  reproduced: boolean | null;
  anchorNodeId: string | null;
  guidance: string | null;
  error: string | null;
}

/** The methods, each attempt's MAS started as `env SYMTRACE_ATTEMPT_SEED=<seed> <command>`. */
function seededMethods(): MethodRegistry {
  const out: MethodRegistry = {};
  for (const [name, m] of Object.entries(METHODS)) {
    out[name] = {
      ...m,
      run: (ctx) => m.run({ ...ctx, settings: { ...ctx.settings, command: ctx.settings.command ? ["env", `SYMTRACE_ATTEMPT_SEED=${ctx.seed}`, ...ctx.settings.command] : null } }),
    } as MethodRegistry[string];
  }
  return out;
}

/**
 * Opt-in (CALIBRATED_ACCEPTANCE=1): 30 cases × 9 methods × k = 3 start ~2,000 MAS, evaluator and judge
 * processes — 18 min on this 2-core machine under load, too long for `npm test`. The quick variant
 * (cli/experiment-calibrated.test.ts, lib/services/experiments/methods/calibrated.test.ts) runs in CI.
 */
const ACCEPTANCE = process.env.CALIBRATED_ACCEPTANCE === "1";
describe.runIf(ACCEPTANCE)("issue 13 done-when: an experiment with all methods on the calibrated world agrees with the truth", () => {
  let dir: string;
  let world: CalibratedWorld | null = null;
  let failures: RecordedFailure[];
  let code: number;
  let cli: CliObject;
  let attempts: AttemptJson[];

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
        "--cases", path.join(dir, "cases"), "--methods", ALL.join(","), "--attempts", String(K),
        "--upstream", world.upstream, "--tool-upstream", world.toolUpstream,
        "--evaluator", `node ${path.join(REPO_ROOT, "scripts", "calibrated-evaluator.mjs")}`,
        "--reproduction-judge", `node ${path.join(REPO_ROOT, "scripts", "calibrated-reproduction-judge.mjs")}`,
        "--seed", "13", "--workers", String(WORKERS), "--out", path.join(dir, "out"), "--", ...mas,
      ],
      { url: `file:${path.join(dir, "db.sqlite")}`, methods: seededMethods(), log: () => {} },
    );
    code = r.code;
    cli = r.output as CliObject;
    attempts = (JSON.parse(readFileSync(path.join(dir, "out", "experiment.json"), "utf8")) as { attempts: AttemptJson[] }).attempts;
  }, 3_600_000);

  afterAll(async () => {
    await world?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cases = (): CheckedCase[] => failures.map((f) => ({ caseKey: f.bundle.id, bundle: f.bundle, boundaryNodeId: f.reference.boundaryNodeId }));
  const checked = (): CheckedAttempt[] => attempts.map((a) => ({ caseKey: a.caseBundleId, method: a.method, attempt: a.attempt, status: a.status, passed: a.passed, reproduced: a.reproduced, anchorNodeId: a.anchorNodeId, guidance: a.guidance, taskText: null }));

  test("the detector anchors on the failing node of every recorded failure", () => {
    expect(failures).toHaveLength(CASES);
    const hits = failures.filter((f) => detectSymptoms(f.bundle).anchorNode === f.reference.nodeId).length;
    expect(hits).toBe(CASES);
  });

  test("the experiment finishes with every method on every case: no errors, nothing skipped", () => {
    expect(code).toBe(0);
    expect(cli.cases).toBe(CASES);
    expect(Object.keys(cli.methods).sort()).toEqual([...ALL].sort());
    for (const m of ALL) {
      expect(cli.methods[m], m).toMatchObject({ skipped: 0, errors: 0 });
      expect(cli.methods[m].attempts, m).toBeGreaterThanOrEqual(CASES);
    }
    expect(attempts.filter((a) => a.status === "error").map((a) => `${a.method}: ${a.error}`)).toEqual([]);
  });

  test("per attempt: every method's pass and reproduction rates contain the truth (Wilson 95%)", () => {
    const rows = checkAttemptRates(checked(), cases(), DEFAULT_TRUTH);
    expect(rows.map((r) => r.method).sort()).toEqual([...ALL].sort());
    for (const r of rows) {
      expect(r.ok, `${r.method}: measured ${r.passed}/${r.n} [${r.lo.toFixed(3)}, ${r.hi.toFixed(3)}], truth ${r.expected.toFixed(3)}`).toBe(true);
      expect(r.repOk, `${r.method}: reproduced ${r.reproduced}/${r.judged}, truth ${r.expectedRep.toFixed(3)}`).toBe(true);
    }
  });

  test("pass@k of the report: each interval contains the a-priori truth", () => {
    const e = expectedAttemptRates(DEFAULT_TRUTH);
    const byCase = new Map(cases().map((c) => [c.caseKey, c]));
    // Random-Node's truth is the mean over its first attempts' anchors (seeded, chosen before any outcome).
    const firsts = checked().filter((a) => a.method === "random-node" && a.attempt === 1);
    const randomNode = firsts.reduce((s, a) => s + attemptTruth(a, byCase.get(a.caseKey)!)!.p, 0) / firsts.length;
    const truth: Record<string, number> = {
      rerun: passAtK(e.rerun, K),
      "self-reflection": passAtK(e["self-reflection"], K),
      critic: passAtK(e.critic, K),
      "suspicious-node": e["suspicious-node"],
      "annotated-node": e["annotated-node"],
      "random-node": randomNode,
      "last-node": e["last-node"],
      "node-resample": e["node-resample"],
      nudge: e.nudge,
    };
    for (const m of ALL) {
      const p = cli.methods[m].pass;
      expect(p.k, m).toBe(["rerun", "self-reflection", "critic"].includes(m) ? K : 1);
      expect(truth[m] >= p.lo! && truth[m] <= p.hi!, `${m}: pass@${p.k} ${p.rate} [${p.lo}, ${p.hi}], truth ${truth[m].toFixed(3)}`).toBe(true);
    }
  });

  test("Suspicious-Node beats Unguided Full Rerun (k = 3) with Holm-adjusted p < 0.05", () => {
    const c = cli.comparisons.find((x) => x.a === "suspicious-node" && x.b === "rerun")!;
    expect(c).toBeDefined();
    expect(c.diffPoints!).toBeGreaterThan(0);
    expect(c.n10).toBeGreaterThan(c.n01);
    expect(c.holmP!).toBeLessThan(0.05);
  });

  test("the ranking per attempt comes out as designed: specific > {critic, nudge, self-reflection} > {rerun, node-resample, last-node}", () => {
    const rate = new Map(checkAttemptRates(checked(), cases()).map((r) => [r.method, r.measured]));
    const tiers = [["suspicious-node", "annotated-node"], ["critic", "nudge", "self-reflection"], ["rerun", "node-resample", "last-node"]];
    for (let i = 0; i + 1 < tiers.length; i++) {
      const low = Math.min(...tiers[i].map((m) => rate.get(m)!));
      const high = Math.max(...tiers[i + 1].map((m) => rate.get(m)!));
      expect(low, `${tiers[i].join("/")} vs ${tiers[i + 1].join("/")}: ${JSON.stringify(Object.fromEntries(rate))}`).toBeGreaterThan(high);
    }
  });
});
