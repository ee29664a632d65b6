import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parquetReadObjects } from "hyparquet";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hashContent, parseJsonText, validateBundle, type ReplayBundle } from "../bundle";
import { importCase } from "../db/cases";
import type { DbHandle } from "../db/client";
import { importAnnotationsFile } from "../db/annotations-io";
import { importGoldBundles } from "../testing/gold";
import { freshTestDb } from "../db/test-db";
import { splitOf, validateAedRecord, type AedRecord } from "../release/aed";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const read = (p: string) => parseJsonText(readFileSync(path.join(SHARED, p), "utf8"));
const C1 = "ag2/assistantbench_dev_9fce12b25f697d6/attempt_000";
const C3 = "ag2/webarena_verified_hard_320/attempt_000";
const lines = (f: string) =>
  readFileSync(f, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A transcript replay of gold-c1 from final_result whose new final answer is `answer`. */
function replayOfC1(n: number, answer: string, passed: boolean): ReplayBundle {
  const b = structuredClone(read("fixtures/bundles/gold-c1.bundle.json")) as ReplayBundle;
  const ren = (id: string) => (id === "final_result" ? "final_result_0001" : id);
  b.id = `${C1}/replay-${n}`;
  b.parent = { bundleId: C1, targetNodeId: "final_result", guidance: "Answer with the store names.", mode: "transcript" };
  b.graph.nodes = b.graph.nodes.map((x) => (x.id === "final_result" ? { ...x, id: "final_result_0001", content: { final: answer }, contentHash: hashContent({ final: answer }) } : x));
  b.graph.edges = b.graph.edges.map((e) => ({ ...e, from: ren(e.from), to: ren(e.to) }));
  b.order = b.order.map(ren);
  b.records = b.records.filter((r) => r.nodeId !== "final_result");
  b.outcome = { passed, evaluator: "assistantbench" };
  const v = validateBundle(b);
  if (!v.ok) throw new Error(JSON.stringify(v.issues.slice(0, 3)));
  return v.bundle;
}

/** A variant of gold-c4 (an experiment attempt's recording) whose agent_action_0000 is replaced by `text`. */
function attemptOfC4(n: number, text: string, passed: boolean): ReplayBundle {
  const b = structuredClone(read("fixtures/bundles/gold-c4.bundle.json")) as ReplayBundle;
  const ren = (id: string) => (id === "agent_action_0000" ? "agent_action_0001" : id);
  b.id = `${C4}/attempt-${n}`;
  b.parent = { bundleId: C4, targetNodeId: "agent_action_0000", guidance: "", mode: "transcript" };
  b.graph.nodes = b.graph.nodes.map((x) => (x.id === "agent_action_0000" ? { ...x, id: "agent_action_0001", content: { text }, contentHash: hashContent({ text }) } : x));
  b.graph.edges = b.graph.edges.map((e) => ({ ...e, from: ren(e.from), to: ren(e.to) }));
  b.order = b.order.map(ren);
  b.outcome = { passed, evaluator: "webarena_verified_hard" };
  const v = validateBundle(b);
  if (!v.ok) throw new Error(JSON.stringify(v.issues.slice(0, 3)));
  return v.bundle;
}
const C4 = "crewai/webarena_verified_hard_204/attempt_000";

let h: DbHandle;
const out = mkdtempSync(path.join(os.tmpdir(), "symtrace-aed-"));
beforeAll(async () => {
  h = await freshTestDb();
  await importGoldBundles(h.db);
  const gold = read("fixtures/bundles/gold-annotations.json") as { cases: Array<{ caseId: string; final: Record<string, unknown> }> };
  const c1 = gold.cases.find((c) => c.caseId === C1)!;
  c1.final.correction = "Answer: Potash Markets - Clark Street";
  const r = await importAnnotationsFile(h.db, gold);
  if (r.failed.length) throw new Error(JSON.stringify(r.failed));
  // two completed replay runs of gold-c1 from final_result: one passes, one fails
  const src = await h.db.case.findUniqueOrThrow({ where: { bundleId: C1 } });
  for (const [i, [answer, passed]] of ([["Potash Markets - Clark Street", true], ["I will browse the Potash Markets page again.", false]] as const).entries()) {
    const { caseId } = await importCase(h.db, { bundle: replayOfC1(i + 1, answer, passed) });
    await h.db.replayRun.create({ data: { id: `run-${i + 1}`, sourceCaseId: src.id, targetNodeId: "final_result", boundaryNodeId: "final_result", status: "completed", resultCaseId: caseId, guidance: "Answer with the store names." } });
  }
  // an experiment on gold-c4: annotated-node (treatment) 2/2 passed, node-resample (control) 0/2, all at agent_action_0000
  const c4 = await h.db.case.findUniqueOrThrow({ where: { bundleId: C4 } });
  const exp = await h.db.experiment.create({ data: { settingsJson: "{}", caseSetJson: "{}", methodsJson: '["annotated-node","node-resample"]', attempts: 2, seed: 1, status: "finished" } });
  const ec = await h.db.experimentCase.create({ data: { experimentId: exp.id, idx: 0, caseId: c4.id, bundleId: C4, mas: "crewai", task: "t" } });
  const arms = [
    ["annotated-node", 1, "Ida Workout Parachute Pant 38.40; Proteus Fitness Jackshirt 45.00 (from the admin report)", true],
    ["annotated-node", 2, "Browsing the admin report first, then: Ida Workout Parachute Pant, Proteus Fitness Jackshirt", true],
    ["node-resample", 1, "I would browse to the admin page to find it.", false],
    ["node-resample", 2, "I cannot access the admin page.", false],
  ] as const;
  for (const [i, [method, attempt, text, passed]] of arms.entries()) {
    const rec = attemptOfC4(i + 1, text, passed);
    await importCase(h.db, { bundle: rec });
    await h.db.experimentAttempt.create({
      data: { id: `att-${i + 1}`, experimentId: exp.id, experimentCaseId: ec.id, method, attempt, status: passed ? "passed" : "failed", passed, anchorNodeId: "agent_action_0000", bundleId: rec.id },
    });
  }
  process.env.DATABASE_URL = h.url;
}, 120_000);
afterAll(async () => {
  await h?.db.$disconnect();
});

describe(`release export --format aed and the training views (${process.env.TEST_DATABASE_URL ? "PostgreSQL" : "SQLite"})`, () => {
  test("aed: the gold finals; gold-c3 rejected (evidence after its node) and listed; grades from the replay runs; schema-valid rows; privileged data apart", async () => {
    const { releaseCommand } = await import("../../cli/release");
    const dir = path.join(out, "aed");
    const r = await releaseCommand(["export", "--out", dir, "--format", "aed", "--parquet"]);
    expect(r.code).toBe(1);
    expect(r.output).toMatchObject({
      ok: false,
      format: "aed",
      rows: 3,
      rejected: [{ id: `${C3}#final`, nodeId: "tool_result_0000", reasons: [expect.stringMatching(/evidence\[1\]: node "tool_result_0001" \(step 8\) comes after the blamed node/)] }],
      grades: { partial_recovery: 1, E0: 1, E2: 1 },
    });
    const rows = lines(path.join(dir, "aed.jsonl")) as unknown as AedRecord[];
    expect(rows.map((x) => x.id)).toEqual([`${C1}#final`, "ag2/webarena_verified_hard_267/attempt_000#final", "crewai/webarena_verified_hard_204/attempt_000#final"]);
    for (const row of rows) expect(validateAedRecord(row)).toEqual([]);
    const c1 = rows[0]!;
    expect(c1.diagnosis.correction).toBe("Answer: Potash Markets - Clark Street");
    expect(c1.replay).toMatchObject({ status: "executed", source: "replay-runs", protocol: "guidance", treatment: { n: 2, s: 1, pHat: 0.5, runs: [{ id: "run-1", passed: true }, { id: "run-2", passed: false }] }, control: { trials: 0 } });
    expect(c1.evidenceGrade).toBe("partial_recovery");
    expect(c1.split).toBe(splitOf("assistantbench_dev_9fce12b25f697d6"));
    const rejects = lines(path.join(dir, "aed.rejects.jsonl"));
    expect(rejects.map((x) => x.id)).toEqual([`${C3}#final`]);
    const priv = lines(path.join(dir, "aed.privileged.jsonl"));
    expect(priv.map((p) => p.bundleId)).toEqual(rows.map((x) => x.source.bundleId));
    expect(priv[0]).toMatchObject({ reference: { expected: ["Potash Markets - Clark Street"] }, outcome: { passed: false, evaluator: "assistantbench" } });
    const aedText = readFileSync(path.join(dir, "aed.jsonl"), "utf8");
    expect(aedText).not.toContain('"expected"');
    expect(aedText).not.toContain('"evaluator"');
    const pq = await parquetReadObjects({ file: new Uint8Array(readFileSync(path.join(dir, "aed.parquet"))).buffer });
    expect(pq.map((x) => x.id)).toEqual(rows.map((x) => x.id));
    expect(JSON.parse(pq[0]!.diagnosis as string)).toEqual(c1.diagnosis);
    expect(existsSync(path.join(dir, "aed-record.schema.json"))).toBe(true);
    // gold-c4: the experiment's matched control at agent_action_0000
    expect(rows[2]!.replay).toMatchObject({
      status: "executed",
      source: "experiment",
      protocol: "guidance",
      treatment: { trials: 2, n: 2, s: 2, pHat: 1, runs: [{ id: "att-1", passed: true }, { id: "att-2", passed: true }] },
      control: { trials: 2, n: 2, s: 0, pHat: 0, runs: [{ id: "att-3", passed: false }, { id: "att-4", passed: false }] },
      delta: 1,
    });
    expect(rows[2]!.evidenceGrade).toBe("E2");
  });

  test("--status all adds the cases without a verdict or diagnosis to `skipped` (the passing replay result is not a failed case)", async () => {
    const { releaseCommand } = await import("../../cli/release");
    const r = await releaseCommand(["export", "--out", path.join(out, "all"), "--format", "aed", "--status", "all"]);
    expect(r.output).toMatchObject({
      rows: 3,
      skipped: { passed: [`${C1}/replay-1`, `${C4}/attempt-1`, `${C4}/attempt-2`], noVerdict: [], noDiagnosis: [`${C1}/replay-2`, `${C4}/attempt-3`, `${C4}/attempt-4`] },
    });
  });

  test("views: sft-diagnosis, sft-recovery and preference per split, chat format, Parquet equal to JSONL; no task in two splits; no privileged text in inputs", async () => {
    const { releaseCommand } = await import("../../cli/release");
    const seen = new Map<string, string>();
    for (const view of ["sft-diagnosis", "sft-recovery", "preference"]) {
      const dir = path.join(out, "views");
      const r = await releaseCommand(["export", "--out", dir, "--format", view, "--parquet", "--seed", "3"]);
      expect(r.code).toBe(0);
      const expected = 3; // diagnosis: c1, c2, c4; recovery: c1's passing run + c4's two passing attempts; preference: the same three, each against a failing branch
      expect(r.output).toMatchObject({ ok: true, format: view, rows: expected, aedRejected: [{ id: `${C3}#final` }] });
      const index = lines(path.join(dir, view, "index.jsonl"));
      expect(index).toHaveLength(expected);
      let total = 0;
      for (const s of ["train", "validation", "test"]) {
        const rows = lines(path.join(dir, view, `${s}.jsonl`));
        total += rows.length;
        for (const row of rows) {
          expect(Object.keys(row)).toEqual(view === "preference" ? ["prompt", "chosen", "rejected"] : ["messages"]);
          const inputs = JSON.stringify(view === "preference" ? row.prompt : (row.messages as unknown[]).slice(0, -1));
          for (const forbidden of ["406.53", "01:33:00", "Ida Workout Parachute Pant", "assistantbench\"", "webarena_verified_hard\"", "Answer with the store names."]) expect(inputs).not.toContain(forbidden);
        }
        const pq = await parquetReadObjects({ file: new Uint8Array(readFileSync(path.join(dir, view, `${s}.parquet`))).buffer });
        expect(pq).toEqual(rows);
      }
      expect(total).toBe(expected);
      for (const m of index) {
        const task = m.taskId as string;
        expect(m.split).toBe(splitOf(task, { seed: "3" }));
        if (seen.has(task)) expect(seen.get(task)).toBe(m.split);
        seen.set(task, m.split as string);
      }
      if (view !== "sft-diagnosis") {
        // gold-c2 is diagnosed but has no replay branch: left out, and skipped.jsonl says why (issue 22 item 7)
        const skipped = lines(path.join(dir, view, "skipped.jsonl"));
        expect(skipped.find((x) => String(x.aedId).startsWith("ag2/webarena_verified_hard_267/attempt_000"))).toMatchObject({ view, reason: expect.stringMatching(/^no replay branch from the diagnosed node /) });
        expect((r.output as { skipped: Array<{ id: string; reason: string }> }).skipped.map((x) => x.id)).toEqual(skipped.map((x) => x.aedId));
      }
      if (view === "sft-recovery") {
        const m = index[0]!;
        const row = lines(path.join(dir, view, `${m.split}.jsonl`))[0]!;
        expect((row.messages as Array<{ content: string }>)[2]!.content).toBe("Potash Markets - Clark Street");
      }
      if (view === "preference") {
        expect(index.map((m) => m.branches)).toEqual([
          { chosen: "run-1", rejected: "run-2", rejectedFrom: "replay" },
          { chosen: "att-1", rejected: "att-3", rejectedFrom: "replay" },
          { chosen: "att-2", rejected: "att-4", rejectedFrom: "replay" },
        ]);
        const m = index[0]!;
        expect(m.branches).toEqual({ chosen: "run-1", rejected: "run-2", rejectedFrom: "replay" });
        const row = lines(path.join(dir, view, `${m.split}.jsonl`))[0]! as { chosen: Array<{ content: string }>; rejected: Array<{ content: string }> };
        expect([row.chosen[0]!.content, row.rejected[0]!.content]).toEqual(["Potash Markets - Clark Street", "I will browse the Potash Markets page again."]);
      }
    }
  });

  test("initial rows: `#initial-<k>` names the same annotation whatever the submission times (a release import does not carry them)", async () => {
    // Found by cli/release-e2e.test.ts: after `release import` every initial has the import's time, so
    // the ordinal followed random ids and #initial-1 of the reloaded database was another annotation.
    const { releaseCommand } = await import("../../cli/release");
    const gold = read("fixtures/bundles/gold-annotations.json") as { cases: Array<{ caseId: string; final: Record<string, unknown> }> };
    const f = gold.cases.find((c) => c.caseId === C1)!.final;
    const initial = ["a", "b", "c"].map((who, i) => ({ ...f, adjudicator: undefined, annotator: `annotator-${who}`, rationale: `reading ${3 - i}`, categories: i === 1 ? ["C1", "C2"] : f.categories }));
    const imp = await importAnnotationsFile(h.db, { format: "symtrace.annotations/v1", cases: [{ caseId: C1, initial }] });
    expect(imp.failed).toEqual([]);
    const c1 = await h.db.case.findUniqueOrThrow({ where: { bundleId: C1 } });
    const initials = await h.db.annotation.findMany({ where: { caseId: c1.id, kind: "initial" }, orderBy: { id: "asc" } });
    expect(initials.length).toBe(3);
    const byId = async (dir: string) => {
      await releaseCommand(["export", "--out", dir, "--format", "aed", "--status", "all", "--cases", C1]);
      return Object.fromEntries(lines(path.join(dir, "aed.jsonl")).map((x) => [x.id, JSON.stringify(x.diagnosis)]));
    };
    const at = async (order: number[]) => {
      for (const [k, i] of order.entries()) await h.db.annotation.update({ where: { id: initials[i]!.id }, data: { submittedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, k)) } });
    };
    await at([0, 1, 2]);
    const a = await byId(path.join(out, "order-a"));
    await at([2, 0, 1]);
    const b = await byId(path.join(out, "order-b"));
    expect(Object.keys(a).sort()).toEqual([`${C1}#final`, `${C1}#initial-1`, `${C1}#initial-2`, `${C1}#initial-3`]);
    expect(b).toEqual(a);
  });

  test("bad options: unknown option, fraction out of range (exit 2, nothing written)", async () => {
    const { releaseCommand } = await import("../../cli/release");
    const dir = path.join(out, "bad");
    expect(await releaseCommand(["export", "--out", dir, "--format", "aed", "--bogus"])).toMatchObject({ code: 2, output: { ok: false, errors: [{ path: "--bogus" }] } });
    expect(await releaseCommand(["export", "--out", dir, "--format", "sft-diagnosis", "--train", "1.5"])).toMatchObject({ code: 2, output: { errors: [{ path: "--train" }] } });
    expect(existsSync(dir)).toBe(false);
  });
});
