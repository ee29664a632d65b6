/**
 * Issue 22 item 2 / issue 20 item 4: an experiment whose cases its evaluator cannot judge is refused
 * at creation, with the reason (the service used by POST /api/experiments and the CLI). Cases: the
 * demo's reference-MAS run (Hilltop task), a gold bundle (AssistantBench task) and a calibrated-world
 * task text on a copy of the gold bundle. Before this check the API accepted them all and every
 * attempt of the wrong task ended "evaluator exited with 2: not the Hilltop Gardens task".
 */
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReplayBundle } from "../../bundle";
import { importCase, type Db, type DbHandle } from "../../db";
import { freshTestDb } from "../../db/test-db";
import { ExperimentError } from "../../db/experiments";
import { byDataset, declaredScopeReason, refusalMessage } from "../../experiments/judgeable";
import { assertJudgeable, chooseEvaluation, commandEvaluatorOption, configuredEvaluators, judgeCases, loadJudgeableCases } from "./judgeable";

const root = path.resolve(import.meta.dirname, "../../..");
const shared = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(root, "../shared");
const read = (f: string) => JSON.parse(readFileSync(f, "utf8")) as ReplayBundle;
let h: DbHandle;
let db: Db;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await freshTestDb();
  db = h.db;
  const hill = read(path.join(root, "demo/reference-orchestrator.bundle.json"));
  const gold = read(path.join(shared, "fixtures/bundles/gold-c1.bundle.json"));
  const cal = { ...gold, id: "test/calibrated-like", task: { ...gold.task, prompt: "[calibrated task 007] Look up the current unit price of catalogue item K-417 (brass hinge) with the lookup tool, then compute the cost of 5 units in EUR." } } as ReplayBundle;
  for (const [k, b] of [["hill", hill], ["gold", gold], ["cal", cal]] as const) ids[k] = (await importCase(db, { bundle: b })).caseId;
}, 60_000);
afterAll(async () => h?.db.$disconnect());

const env = (over: Record<string, string> = {}) => ({ SYMTRACE_REPLAY_EVALUATOR: `node ${root}/scripts/hilltop-evaluator.mjs`, ...over });

describe("configured evaluators", () => {
  it("SYMTRACE_REPLAY_EVALUATOR first (recognised as the built-in it runs), then the other built-ins", () => {
    const list = configuredEvaluators(env(), root);
    expect(list.map((e) => [e.name, e.source])).toEqual([
      ["hilltop", "SYMTRACE_REPLAY_EVALUATOR"],
      ["calibrated", "built-in"],
    ]);
    expect(list[1].reproductionJudge).toBe(`node ${path.join(root, "scripts/calibrated-reproduction-judge.mjs")}`);
    expect(configuredEvaluators({ SYMTRACE_BUILTIN_EVALUATORS: "0" }, root)).toEqual([]);
  });
  it("a registry file adds evaluators; a malformed one is named with the JSON path", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-evals-"));
    const f = path.join(dir, "e.json");
    writeFileSync(f, JSON.stringify({ evaluators: [{ name: "mine", command: "python3 eval.py", tasks: "^Q:" }] }));
    expect(configuredEvaluators({ SYMTRACE_EVALUATORS_FILE: f, SYMTRACE_BUILTIN_EVALUATORS: "0" }, root)).toMatchObject([{ name: "mine", tasks: "^Q:", source: f }]);
    writeFileSync(f, JSON.stringify({ evaluators: [{ name: "x" }] }));
    expect(() => configuredEvaluators({ SYMTRACE_EVALUATORS_FILE: f }, root)).toThrow(`SYMTRACE_EVALUATORS_FILE ${f}: $.evaluators[0] needs a name and a command`);
  });
});

describe("which cases an evaluator can judge", () => {
  it("declared scope: by task text, with the reason per case, grouped by dataset", async () => {
    const [hilltop, calibrated] = configuredEvaluators(env(), root);
    const cases = await loadJudgeableCases(db, [ids.hill, ids.gold, ids.cal]);
    const rows = await judgeCases(db, hilltop, cases);
    expect(rows.map((r) => r.reason === null)).toEqual([true, false, false]);
    expect(rows[1].reason).toBe(
      'evaluator hilltop judges only the reference MAS\'s Hilltop Gardens task (2 adults, 3 children); this task is "Which supermarkets within 2 blocks of Lincoln Park in Chicago have ready-to-eat…"',
    );
    expect((await judgeCases(db, calibrated, cases)).map((r) => r.reason === null)).toEqual([false, false, true]);
    expect(byDataset(rows)).toEqual([{ dataset: "bundle", cases: 3, judgeable: 1, reasons: [rows[1].reason, rows[2].reason] }]);
  });
  it("undeclared scope: the evaluator is probed on the source run; exit 2 = it cannot judge, with its own reason", async () => {
    const ev = commandEvaluatorOption("node scripts/hilltop-evaluator.mjs --probe", root);
    // a command that is not a built-in's script: probed
    const probe = { ...ev, name: "probe", tasks: null };
    const rows = await judgeCases(db, probe, await loadJudgeableCases(db, [ids.hill, ids.gold]));
    expect(rows[0].reason).toBeNull(); // exit 1 (failed): a verdict
    expect(rows[1].reason).toBe("evaluator probe gives no verdict on this case's source run (evaluator exited with 2: not the Hilltop Gardens task (2 adults, 3 children): no reference answer)");
    // In a worker thread (the CLI's `experiment run`): the same verdicts and reasons.
    const threaded = await judgeCases(db, { ...probe, command: "node scripts/hilltop-evaluator.mjs --probe-thread" }, await loadJudgeableCases(db, [ids.hill, ids.gold]), { thread: true });
    expect(threaded.map((r) => r.reason)).toEqual(rows.map((r) => r.reason));
  }, 30_000);
});

describe("the creation check", () => {
  it("refuses a case set with a case the evaluator cannot judge, naming the cases and the reasons", async () => {
    const err = await assertJudgeable(db, [ids.hill, ids.gold, ids.cal], { options: configuredEvaluators(env(), root) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExperimentError);
    expect((err as ExperimentError).at).toBe("$.cases");
    expect((err as ExperimentError).message).toMatch(/^2 of 3 case\(s\) cannot be judged by evaluator hilltop, so their attempts could have no verdict/);
    expect((err as ExperimentError).message).toContain("ag2/assistantbench_dev_9fce12b25f697d6/attempt_000: evaluator hilltop judges only");
    expect((err as ExperimentError).message).toContain("test/calibrated-like: evaluator hilltop judges only");
  });
  it("accepts the cases the chosen evaluator judges, with its reproduction judge by default", async () => {
    expect(await chooseEvaluation(db, [ids.cal], { evaluator: "calibrated", env: env() })).toEqual({
      evaluator: `node ${path.join(root, "scripts/calibrated-evaluator.mjs")}`,
      reproductionJudge: { kind: "command", command: `node ${path.join(root, "scripts/calibrated-reproduction-judge.mjs")}` },
    });
    expect(await chooseEvaluation(db, [ids.hill], { env: env(), judge: "none" })).toEqual({ evaluator: `node ${root}/scripts/hilltop-evaluator.mjs`, reproductionJudge: null });
  });
  it("refuses without any evaluator, and an unknown evaluator or judge name", async () => {
    await expect(assertJudgeable(db, [ids.hill], { options: [] })).rejects.toThrow(/no evaluator is configured, so no attempt could get a verdict/);
    await expect(chooseEvaluation(db, [ids.hill], { evaluator: "nope", env: env() })).rejects.toThrow('no evaluator named "nope" is configured (configured: hilltop, calibrated)');
    await expect(chooseEvaluation(db, [ids.hill], { judge: "nope", env: env() })).rejects.toThrow('no reproduction judge named "nope" is configured (configured: none)');
  });
  it("pure helpers: an undeclared scope needs a probe; no refusal when all can be judged", () => {
    const ev = { name: "x", command: "c", source: "s", description: "d", tasks: null, reproductionJudge: null };
    expect(declaredScopeReason(ev, "anything")).toBeNull();
    expect(refusalMessage("x", [{ caseId: "1", bundleId: "b", dataset: "bundle", reason: null }])).toBeNull();
  });
});
