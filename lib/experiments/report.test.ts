import { describe, expect, test } from "vitest";
import paper from "../../../shared/fixtures/experiments/paper-tables-7-8-9.json";
import { NO_JUDGE_NOTE, summarizeExperiment, toCliObject } from "./report";
import { cases, input, records } from "./test-fixture";
import type { AttemptRecord, ExperimentCaseRef, ExperimentReportInput } from "./types";

const NAME: Record<string, string> = {
  "Unguided Full Rerun": "rerun",
  "Self-Reflection": "self-reflection",
  "Critic-Agent": "critic",
  "Suspicious-Node": "suspicious-node",
  "Random-Node": "random-node",
  "Last-Node": "last-node",
};

describe("summarizeExperiment: hand-computed small experiment", () => {
  const r = summarizeExperiment(input);

  test("per-method summary (the CLI object)", () => {
    expect(r.experiment).toBe("exp1");
    expect(r.cases).toBe(4);
    // rerun: known outcomes c1 pass, c2 fail, c3 fail (c4 pending) → 1/3; z judged per case: c1 [T,F(pass)]
    // → 1/2, c2 [T,T] → 1, c3 [T,T,T] → 1 → rep1 = mean over cases (eq. 2, k = 1) = 2.5/3 (pooled
    // executions would give 6/7); rep3: c1 0, c2 undetermined, c3 1 → 1/2; ran 8 (1 cancelled),
    // calls 4+5+2+3+3+2+2+2+1 = 24, repairs 1 → 41.67 per 1k
    expect(r.methods.rerun).toMatchObject({ attempts: 8, skipped: 0, errors: 1, calls: 24, pass: { k: 3 } });
    expect(r.methods.rerun.pass.rate).toBeCloseTo(1 / 3, 12);
    expect(r.methods.rerun.rep1).toBeCloseTo(2.5 / 3, 12);
    expect(r.methods.rerun.rep3).toBeCloseTo(1 / 2, 12);
    expect(r.methods.rerun.repairsPer1k).toBeCloseTo(1000 / 24, 9);
    // suspicious-node (node level, pass@1 = attempt 1): c1 T, c2 F, c3 T (c4 skipped) → 2/3; the
    // counted attempts are attempt 1 of c1..c3 (3, no error: c3's error is attempt 2), calls 3+2+2 = 7,
    // repairs 2 (= the passes of the rate) → 285.7 per 1k; z per case (all K executions): c1 [F,T,F]
    // → 1/3, c2 [T,T,T] → 1, c3 [F,F] → 0 → rep1 4/9; rep3: c1 0, c2 1, c3 0 → 1/3
    expect(r.methods["suspicious-node"]).toMatchObject({ attempts: 3, skipped: 1, errors: 0, calls: 7, pass: { k: 1 } });
    expect(r.methods["suspicious-node"].rep1).toBeCloseTo(4 / 9, 12);
    expect(r.methods["suspicious-node"].pass.rate).toBeCloseTo(2 / 3, 12);
    expect(r.methods["suspicious-node"].rep3).toBeCloseTo(1 / 3, 12);
    expect(r.methods["suspicious-node"].repairsPer1k).toBeCloseTo(2000 / 7, 9);
    // critic: c1 F, c2 T, c4 F (errors are failures), c3 skipped → 1/3; z: c1 [T,T,T] → 1, c2 [F] → 0
    // → rep1 1/2; rep3: c1 1, c2 0 → 1/2; calls (12+3) + (5+1) + (0+2) = 23
    expect(r.methods.critic).toMatchObject({ attempts: 7, skipped: 3, errors: 3, calls: 23, rep1: 0.5, rep3: 0.5 });
    expect(r.methods.critic.pass.rate).toBeCloseTo(1 / 3, 12);
    // Wilson 1/3: hand-computed
    expect(r.methods.critic.pass.lo).toBeCloseTo(0.06149194472039, 10);
    expect(r.methods.critic.pass.hi).toBeCloseTo(0.79234039919795, 10);
    expect(r.meta.pending).toBe(1);
  });

  test("byMas (Tables 2–4) and byCategory (Table 3)", () => {
    expect(r.byMas.map((g) => [g.key, g.kind, g.cases])).toEqual([
      ["AG2", "mas", 2],
      ["CrewAI", "mas", 2],
      ["all", "total", 4],
    ]);
    const ag2 = r.byMas[0].cells;
    expect(ag2.rerun.pass).toMatchObject({ x: 1, n: 2 });
    // per case: c1 1/2, c2 1 → x = 1.5 over n = 2 cases; a share between 0 and 1 → no Wilson interval
    expect(ag2.rerun.rep1).toMatchObject({ x: 1.5, n: 2, rate: 0.75, lo: null, hi: null });
    expect(ag2.rerun.rep3).toMatchObject({ x: 0, n: 1 });
    const crew = r.byMas[1].cells;
    expect(crew.rerun).toMatchObject({ pendingCases: 1, cancelled: 1, calls: 7, pass: { x: 0, n: 1 } });
    expect(crew["suspicious-node"]).toMatchObject({ skippedCases: 1, pass: { x: 1, n: 1 }, repairs: 1 });
    expect(crew.critic).toMatchObject({ skippedCases: 1, errors: 3, pass: { x: 0, n: 1 } });
    expect(r.byCategory.map((g) => [g.key, g.cases])).toEqual([
      ["C1", 2],
      ["C3", 1],
      ["none", 1],
      ["all", 4],
    ]);
    expect(r.byCategory[0].cells["suspicious-node"].pass).toMatchObject({ x: 2, n: 2, rate: 1, hi: 1 });
    expect(r.byCategory[0].cells.rerun.pass).toMatchObject({ x: 1, n: 2, rate: 0.5 });
  });

  test("efficiency (Table 9 layout)", () => {
    const e = (mas: string, m: string) => r.efficiency.find((x) => x.mas === mas && x.method === m)!;
    expect(e("AG2", "rerun")).toMatchObject({ apiCalls: 17, repairs: 1, callsPerRepair: 17 });
    expect(e("AG2", "critic")).toMatchObject({ apiCalls: 21, masCalls: 17, auxCalls: 4, repairs: 1 });
    expect(e("CrewAI", "critic")).toMatchObject({ apiCalls: 2, repairs: 0, repairsPer1k: 0, callsPerRepair: null });
    // node level: attempt 1 only (the repair table's pass@1 counts the same attempts); attempts 2–3 apart
    expect(e("all", "suspicious-node")).toMatchObject({ attempts: 3, apiCalls: 7, repairs: 2, tokens: 70, beyondK: { attempts: 6, calls: 13, tokens: 130 } });
    for (const row of r.efficiency.filter((x) => x.mas === "all")) expect(row.repairs, row.method).toBe(r.byMas.at(-1)!.cells[row.method].pass.x);
    expect(r.efficiency).toHaveLength(9);
  });

  test("paired comparisons: default vs rerun, family = MAS, Holm within it", () => {
    const c = r.comparisons.map(({ a, b, family, n, n10, n01, diffPoints, mcnemarP, holmP }) => ({ a, b, family, n, n10, n01, diffPoints, mcnemarP, holmP }));
    expect(c).toEqual([
      // AG2: c1 (T,T), c2 (F,F)
      { a: "suspicious-node", b: "rerun", family: "AG2", n: 2, n10: 0, n01: 0, diffPoints: 0, mcnemarP: 1, holmP: 1 },
      // AG2: c1 (F,T), c2 (T,F)
      { a: "critic", b: "rerun", family: "AG2", n: 2, n10: 1, n01: 1, diffPoints: 0, mcnemarP: 1, holmP: 1 },
      // CrewAI: c3 (T,F); c4 skipped by suspicious-node
      { a: "suspicious-node", b: "rerun", family: "CrewAI", n: 1, n10: 1, n01: 0, diffPoints: 100, mcnemarP: 1, holmP: 1 },
      // CrewAI: c3 skipped by critic, c4 pending for rerun → nothing matched
      { a: "critic", b: "rerun", family: "CrewAI", n: 0, n10: 0, n01: 0, diffPoints: null, mcnemarP: null, holmP: null },
    ]);
    expect(r.comparisons[0]).toMatchObject({ lo: 0, hi: 0 });
    expect(r.comparisons[2]).toMatchObject({ lo: 100, hi: 100 });
  });

  test("toCliObject keeps exactly the CLI fields", () => {
    const cli = toCliObject(r);
    expect(Object.keys(cli)).toEqual(["experiment", "cases", "methods", "comparisons"]);
    expect(Object.keys(cli.comparisons[0])).toEqual(["a", "b", "family", "diffPoints", "lo", "hi", "n10", "n01", "mcnemarP", "holmP"]);
    // The issue-13 fields, then `cost` (calls and tokens per repaired case, issue 15 item 5).
    expect(Object.keys(cli.methods.rerun)).toEqual(["attempts", "pass", "rep1", "rep3", "calls", "repairsPer1k", "skipped", "errors", "noVerdict", "noVerdictCases", "cost"]);
    expect(JSON.parse(JSON.stringify(cli))).toEqual(cli); // JSON-safe: no NaN / undefined
  });

  test("queued and running rows (a live experiment) count as pending, with no calls", () => {
    const live = summarizeExperiment({ ...input, attemptsRecords: [...records.filter((x) => !(x.caseId === "c4" && x.method === "rerun")), { ...records[8], status: "running", calls: 50 }] });
    expect(live.methods.rerun).toMatchObject({ attempts: 8, calls: 23 });
    expect(live.byMas[1].cells.rerun).toMatchObject({ pendingCases: 1, cancelled: 0 });
    expect(live.meta.pending).toBe(1);
  });

  test("deterministic: same input ⇒ identical report", () => {
    expect(summarizeExperiment(input)).toEqual(r);
  });

  test("one MAS ⇒ family 'all'; no rerun ⇒ the first task-level method is the baseline", () => {
    const one = cases.slice(0, 2);
    const rr = summarizeExperiment({ ...input, cases: one, methods: ["suspicious-node", "critic"], attemptsRecords: records.filter((x) => x.mas === "AG2" && x.method !== "rerun") });
    expect(rr.comparisons.map((c) => [c.a, c.b, c.family])).toEqual([["suspicious-node", "critic", "all"]]);
    // c1 (T,F), c2 (F,T)
    expect(rr.comparisons[0]).toMatchObject({ n: 2, n10: 1, n01: 1, diffPoints: 0 });
  });
});

describe("summarizeExperiment: the matched control of a proposed correction", () => {
  // The fixture's suspicious-node attempts play `correction`, its critic chain `correction-control` (node level by name).
  const ren: Record<string, string> = { "suspicious-node": "correction", critic: "correction-control" };
  const recs = records.map((x) => ({ ...x, method: ren[x.method] ?? x.method }));
  test("with rerun: correction vs rerun, and correction vs its control (not the control vs rerun)", () => {
    const rr = summarizeExperiment({ ...input, methods: ["rerun", "correction", "correction-control"], attemptsRecords: recs });
    expect([...new Set(rr.comparisons.map((c) => `${c.a}|${c.b}`))]).toEqual(["correction|rerun", "correction|correction-control"]);
  });
  test("the pair alone, in either order: one comparison, treatment − control", () => {
    for (const methods of [["correction", "correction-control"], ["correction-control", "correction"]]) {
      const rr = summarizeExperiment({ ...input, methods, attemptsRecords: recs.filter((x) => x.method !== "rerun") });
      expect([...new Set(rr.comparisons.map((c) => `${c.a}|${c.b}`))]).toEqual(["correction|correction-control"]);
    }
  });
});

describe("summarizeExperiment: bad input names the field", () => {
  test.each([
    [{ attempts: 0 }, /attempts must be an integer >= 1/],
    [{ methods: [] }, /methods is empty/],
    [{ methods: ["rerun", "rerun"] }, /methods\[1\] "rerun" is listed twice/],
    [{ cases: [...cases, cases[0]] }, /cases\[4\].caseId "c1" is listed twice/],
    [{ attemptsRecords: [...records, { ...records[0], caseId: "c9" }] }, /attemptsRecords\[29\].caseId "c9" is not in cases/],
    [{ attemptsRecords: [...records, { ...records[0], attempt: 4 }] }, /attemptsRecords\[29\].attempt must be an integer in 1..3/],
    [{ attemptsRecords: [...records, records[0]] }, /attempt 1 of method "rerun" on case "c1" is recorded twice/],
    [{ attemptsRecords: [{ ...records[0], calls: -1 }] }, /attemptsRecords\[0\].calls/],
    [{ attemptsRecords: [{ ...records[0], method: "x" }] }, /method "x" is not in methods/],
    [{ comparisons: [{ a: "rerun", b: "rerun" }] }, /compares "rerun" with itself/],
  ] as Array<[Partial<ExperimentReportInput>, RegExp]>)("%j", (patch, re) => {
    expect(() => summarizeExperiment({ ...input, ...patch })).toThrow(re);
  });
});

// ---- the paper's paired tables rebuilt as experiments: every Δ, McNemar p and Holm p must come out
type Row = (typeof paper.table7)[number];

function buildPaired(rows: Row[], focal: string, focalIsA: boolean): ExperimentReportInput {
  const all: ExperimentCaseRef[] = [];
  const recs: AttemptRecord[] = [];
  const methods = new Set<string>([focal]);
  const comparisons: { a: string; b: string }[] = [];
  for (const mas of [...new Set(rows.map((r) => r.mas))]) {
    const fam = rows.filter((r) => r.mas === mas);
    const N = fam[0].methodN;
    const ids = Array.from({ length: N }, (_, i) => `${mas}-${i}`);
    ids.forEach((caseId) => all.push({ caseId, mas, primaryCategory: null }));
    // the focal method passes cases 0..P-1 (P = its pass count, the same in every row of a family)
    const P = focalIsA ? fam[0].methodPassed : fam[0].comparatorPassed;
    const pass = new Map<string, Set<number>>([[focal, new Set(Array.from({ length: P }, (_, i) => i))]]);
    for (const r of fam) {
      const other = NAME[r.method];
      methods.add(other);
      if (!comparisons.some((c) => c.a === (focalIsA ? focal : other) && c.b === (focalIsA ? other : focal))) {
        comparisons.push(focalIsA ? { a: focal, b: other } : { a: other, b: focal });
      }
      // focal-only = (focalIsA ? n10 : n01); other-only = the other count
      const focalOnly = focalIsA ? r.n10 : r.n01;
      const otherOnly = focalIsA ? r.n01 : r.n10;
      const s = new Set<number>();
      for (let i = 0; i < P - focalOnly; i++) s.add(i); // both pass
      for (let i = 0; i < otherOnly; i++) s.add(P + i); // other only
      pass.set(other, s);
    }
    for (const [m, s] of pass) {
      ids.forEach((caseId, i) => {
        const base = { caseId, mas, primaryCategory: null, method: m, reproduced: null, calls: 1, auxCalls: 0, tokens: 0 };
        if (s.has(i)) recs.push({ ...base, attempt: 1, status: "passed", passed: true });
        else for (let a = 1; a <= 3; a++) recs.push({ ...base, attempt: a, status: "failed", passed: false });
      });
    }
  }
  return { cases: all, methods: [...methods], attempts: 3, attemptsRecords: recs, seed: 20260701, comparisons };
}

function closeRel(actual: number, expected: number, rel: number) {
  expect(Math.abs(actual - expected) / expected).toBeLessThanOrEqual(rel);
}

describe.each([
  ["Table 7 (Self-Reflection, Critic-Agent vs Unguided Full Rerun, pass@3)", paper.table7, "rerun", false],
  ["Table 8 (Suspicious-Node pass@1 vs comparators)", paper.table8, "suspicious-node", true],
] as const)("%s", (_name, rows, focal, focalIsA) => {
  const report = summarizeExperiment(buildPaired(rows as Row[], focal, focalIsA));
  test.each((rows as Row[]).map((r) => [r.mas, r.method, r] as const))("%s %s", (mas, method, row) => {
    const a = focalIsA ? focal : NAME[method];
    const b = focalIsA ? NAME[method] : focal;
    const c = report.comparisons.find((x) => x.family === mas && x.a === a && x.b === b)!;
    expect(c).toBeDefined();
    expect(c).toMatchObject({ n: row.methodN, n10: row.n10, n01: row.n01, aPassed: row.methodPassed, bPassed: row.comparatorPassed });
    expect(c.diffPoints!).toBeCloseTo(row.deltaPoints, 1);
    closeRel(c.mcnemarP!, row.rawP, 0.01);
    closeRel(c.holmP!, row.holmP, 0.01);
    const step = 100 / row.methodN + 0.01;
    expect(Math.abs(c.lo! - row.ciLo)).toBeLessThanOrEqual(step);
    expect(Math.abs(c.hi! - row.ciHi)).toBeLessThanOrEqual(step);
  });
  test("Holm families are the MAS", () => {
    expect(new Set(report.comparisons.map((c) => c.family))).toEqual(new Set(["AG2", "CrewAI", "Magentic-One"]));
  });
});

describe("Table 9 (API-call efficiency) from attempt records", () => {
  // one attempt per (case, method): the first `repairs` cases pass, calls spread over the cases
  const N = 50;
  const rows = paper.table9;
  const cs: ExperimentCaseRef[] = [];
  const recs: AttemptRecord[] = [];
  for (const mas of [...new Set(rows.map((r) => r.mas))]) {
    for (let i = 0; i < N; i++) cs.push({ caseId: `${mas}-${i}`, mas, primaryCategory: null });
    for (const r of rows.filter((x) => x.mas === mas)) {
      for (let i = 0; i < N; i++) {
        const calls = Math.floor(r.apiCalls / N) + (i < r.apiCalls % N ? 1 : 0);
        const passed = i < r.repairs;
        recs.push({ caseId: `${mas}-${i}`, mas, primaryCategory: null, method: NAME[r.method], attempt: 1, status: passed ? "passed" : "failed", passed, reproduced: null, calls, auxCalls: 0, tokens: 0 });
      }
    }
  }
  const report = summarizeExperiment({ cases: cs, methods: Object.values(NAME), attempts: 1, attemptsRecords: recs, seed: 1, resamples: 100 });
  test.each(rows.map((r) => [r.mas, r.method, r] as const))("%s %s", (mas, method, r) => {
    const e = report.efficiency.find((x) => x.mas === mas && x.method === NAME[method])!;
    expect(e).toMatchObject({ apiCalls: r.apiCalls, repairs: r.repairs });
    expect(Math.abs(e.repairsPer1k! - r.repairsPer1kCalls)).toBeLessThanOrEqual(0.05 + 1e-9);
    expect(Math.abs(e.callsPerRepair! - r.callsPerRepair)).toBeLessThanOrEqual(0.05 + 1e-9);
  });
  test("the 'all' rows sum the MAS rows", () => {
    const s = report.efficiency.find((x) => x.mas === "all" && x.method === "suspicious-node")!;
    expect(s).toMatchObject({ apiCalls: 419 + 466 + 443, repairs: 28 + 46 + 34 });
    expect(report.methods["suspicious-node"].calls).toBe(1328);
  });
});

describe("a mars arm: calls and tokens per repaired case, MAS vs aux (issue 15 item 5)", () => {
  const cs = [
    { caseId: "m1", mas: "calibrated", primaryCategory: "C3" },
    { caseId: "m2", mas: "calibrated", primaryCategory: "C1" },
    { caseId: "m3", mas: "calibrated", primaryCategory: "C2" },
  ];
  const r0 = (caseId: string, method: string, status: "passed" | "failed" | "error", calls: number, auxCalls: number, tokens: number, auxTokens: number) => ({ caseId, mas: "calibrated", primaryCategory: null, method, attempt: 1, status, passed: status === "passed", reproduced: null, calls, auxCalls, tokens, auxTokens });
  const report = summarizeExperiment({
    cases: cs,
    methods: ["nudge", "mars"],
    attempts: 1,
    seed: 1,
    attemptsRecords: [
      r0("m1", "nudge", "failed", 6, 0, 600, 0),
      r0("m2", "nudge", "passed", 5, 0, 500, 0),
      r0("m3", "nudge", "failed", 6, 0, 600, 0),
      r0("m1", "mars", "passed", 20, 10, 3000, 1000),
      r0("m2", "mars", "failed", 30, 16, 4000, 1200),
      r0("m3", "mars", "passed", 10, 6, 1000, 400),
    ],
  });
  test("cost: MAS and aux calls and tokens, per repaired case (hand-computed)", () => {
    // mars: MAS calls 20+30+10 = 60, aux 10+16+6 = 32 → 92 calls / 2 repairs = 46; tokens 8000 / 2 = 4000; aux tokens 2600.
    expect(report.methods.mars.cost).toEqual({ masCalls: 60, auxCalls: 32, tokens: 8000, auxTokens: 2600, repairs: 2, callsPerRepair: 46, tokensPerRepair: 4000 });
    expect(report.methods.mars.calls).toBe(92);
    expect(report.methods.mars.pass).toMatchObject({ rate: 2 / 3, k: 1 });
    // nudge: 17 calls / 1 repair; 1700 tokens / 1.
    expect(report.methods.nudge.cost).toEqual({ masCalls: 17, auxCalls: 0, tokens: 1700, auxTokens: 0, repairs: 1, callsPerRepair: 17, tokensPerRepair: 1700 });
    const e = report.efficiency.find((x) => x.mas === "all" && x.method === "mars")!;
    expect(e).toMatchObject({ apiCalls: 92, masCalls: 60, auxCalls: 32, tokens: 8000, auxTokens: 2600, repairs: 2, callsPerRepair: 46, tokensPerRepair: 4000 });
  });
  test("the page note: MARS reports over all tasks, we report over failures", () => {
    expect(report.meta.notes).toContain("MARS reports pass rates over all tasks; we report over failures, as SymTrace does.");
    expect(summarizeExperiment({ cases: cs, methods: ["nudge"], attempts: 1, seed: 1, attemptsRecords: [] }).meta.notes.some((n) => n.includes("MARS"))).toBe(false);
  });
  test("auxTokens above tokens is rejected, naming the record", () => {
    expect(() => summarizeExperiment({ cases: cs, methods: ["mars"], attempts: 1, seed: 1, attemptsRecords: [r0("m1", "mars", "passed", 1, 1, 10, 11)] })).toThrow(/attemptsRecords\[0\]\.auxTokens/);
  });
});

describe("issue 20 items 4 and 8: no verdict, rep_1 per case, the repair and efficiency tables count the same attempts", () => {
  const one: ExperimentCaseRef[] = ["a", "b", "c"].map((caseId) => ({ caseId, mas: "M", primaryCategory: "C1" }));
  const at = (caseId: string, method: string, attempt: number, status: AttemptRecord["status"], reproduced: boolean | null = null, calls = 4): AttemptRecord => ({
    caseId, mas: "M", primaryCategory: "C1", method, attempt, status, passed: status === "passed" ? true : status === "failed" || status === "error" ? false : null, reproduced, calls, auxCalls: 0, tokens: 100 * calls,
  });

  test("attempts without a verdict (no evaluator) are not failures: no rate, counted beside it", () => {
    const r = summarizeExperiment({ cases: one, methods: ["rerun", "nudge"], attempts: 1, seed: 1, attemptsRecords: [
      ...one.map((c) => at(c.caseId, "rerun", 1, "no_verdict")),
      at("a", "nudge", 1, "passed"), at("b", "nudge", 1, "no_verdict"), at("c", "nudge", 1, "failed"),
    ] });
    const rerun = r.byMas.at(-1)!.cells.rerun;
    // today: 0/3 [0, 0.56] — now no rate at all, 3 cases without a verdict
    expect(rerun.pass).toMatchObject({ x: 0, n: 0, rate: null, lo: null, hi: null });
    expect(rerun).toMatchObject({ noVerdict: 3, noVerdictCases: 3, pendingCases: 0, errors: 0, attempts: 3 });
    expect(r.methods.rerun).toMatchObject({ noVerdict: 3, noVerdictCases: 3, pass: { rate: null } });
    const nudge = r.byMas.at(-1)!.cells.nudge;
    expect(nudge.pass).toMatchObject({ x: 1, n: 2, rate: 0.5 });
    expect(nudge.noVerdictCases).toBe(1);
    expect(r.meta).toMatchObject({ noVerdict: 4, pending: 0 });
    // a comparison matches only cases with a verdict on both sides: none here
    expect(r.comparisons.find((c) => c.a === "nudge")).toMatchObject({ n: 0, diffPoints: null, mcnemarP: null });
  });

  test("task level: a pass among k attempts counts even beside a no-verdict attempt; no pass + no verdict is no verdict", () => {
    const r = summarizeExperiment({ cases: one, methods: ["rerun"], attempts: 2, seed: 1, attemptsRecords: [
      at("a", "rerun", 1, "no_verdict"), at("a", "rerun", 2, "passed"),
      at("b", "rerun", 1, "no_verdict"), at("b", "rerun", 2, "failed"),
      at("c", "rerun", 1, "failed"), at("c", "rerun", 2, "failed"),
    ] });
    const c = r.byMas.at(-1)!.cells.rerun;
    expect(c.pass).toMatchObject({ x: 1, n: 2 });
    expect(c).toMatchObject({ noVerdictCases: 1, noVerdict: 2 });
  });

  test("rep_1 averages per case (eq. 2), not over pooled executions", () => {
    // case a: 3 judged, all reproduce; case b: 1 judged (chain stopped), not reproduced
    const r = summarizeExperiment({ cases: one.slice(0, 2), methods: ["rerun"], attempts: 3, seed: 1, attemptsRecords: [
      at("a", "rerun", 1, "failed", true), at("a", "rerun", 2, "failed", true), at("a", "rerun", 3, "failed", true),
      at("b", "rerun", 1, "passed", false),
    ] });
    // pooled would be 3/4; per case (1 + 0) / 2
    expect(r.methods.rerun.rep1).toBe(0.5);
    expect(r.byMas.at(-1)!.cells.rerun.rep1).toMatchObject({ x: 1, n: 2, rate: 0.5 });
  });

  test("with k = 2 the repair table and the efficiency table count the same attempts (node level: attempt 1)", () => {
    // nudge passes attempt 1 on a only, attempt 2 on all three: pass@1 = 1/3
    const r = summarizeExperiment({ cases: one, methods: ["nudge"], attempts: 2, seed: 1, attemptsRecords: [
      at("a", "nudge", 1, "passed"), at("b", "nudge", 1, "failed"), at("c", "nudge", 1, "failed"),
      at("a", "nudge", 2, "passed"), at("b", "nudge", 2, "passed"), at("c", "nudge", 2, "passed"),
    ] });
    const cell = r.byMas.at(-1)!.cells.nudge;
    const eff = r.efficiency.find((e) => e.mas === "all" && e.method === "nudge")!;
    expect(cell.pass).toMatchObject({ x: 1, n: 3 });
    // before: "Repairs 4" beside 1/3
    expect(eff).toMatchObject({ repairs: 1, attempts: 3, apiCalls: 12, beyondK: { attempts: 3, calls: 12, tokens: 1200 } });
    expect(cell).toMatchObject({ repairs: 1, attempts: 3, calls: 12 });
    expect(r.methods.nudge).toMatchObject({ attempts: 3, calls: 12 });
  });
});

describe("rep_k without a reproduction judge", () => {
  // Without a judge no failed execution is judged: inferring "not reproduced" for the passes alone
  // would make rep_1 = 0/n (only passes counted). Not measured instead.
  const unjudged = (input.attemptsRecords as AttemptRecord[]).map((r) => ({ ...r, reproduced: null }));
  test("judged: false → rep_1 and rep_3 not measured for every method, pass rates unchanged", () => {
    const r = summarizeExperiment({ ...input, attemptsRecords: unjudged, judged: false });
    const base = summarizeExperiment(input);
    for (const m of input.methods) {
      expect(r.methods[m].rep1, m).toBeNull();
      expect(r.methods[m].pass.rate, m).toBe(base.methods[m].pass.rate);
    }
  });
  test("the default follows the records: none judged → not measured, with the note; the explicit judged: true keeps the inference for passes", () => {
    expect(summarizeExperiment({ ...input, attemptsRecords: unjudged }).meta.notes).toContain(NO_JUDGE_NOTE);
    expect(summarizeExperiment(input).meta.notes).not.toContain(NO_JUDGE_NOTE);
    expect(summarizeExperiment({ ...input, attemptsRecords: unjudged }).methods.rerun.rep1).toBeNull();
    // with a judge that judged nothing but a passed attempt stands for "not reproduced": 0 over the cases with a pass
    expect(summarizeExperiment({ ...input, attemptsRecords: unjudged, judged: true }).methods.rerun.rep1).toBe(0);
  });
});
