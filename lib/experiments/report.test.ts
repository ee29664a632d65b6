import { describe, expect, test } from "vitest";
import paper from "../../../shared/fixtures/experiments/paper-tables-7-8-9.json";
import { summarizeExperiment, toCliObject } from "./report";
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
    // rerun: known outcomes c1 pass, c2 fail, c3 fail (c4 pending) → 1/3; z judged: c1 [T,F(pass)],
    // c2 [T,T], c3 [T,T,T] → rep1 6/7; rep3: c1 0, c2 undetermined, c3 1 → 1/2; ran 8 (1 cancelled),
    // calls 4+5+2+3+3+2+2+2+1 = 24, repairs 1 → 41.67 per 1k
    expect(r.methods.rerun).toMatchObject({ attempts: 8, skipped: 0, errors: 1, calls: 24, pass: { k: 3 } });
    expect(r.methods.rerun.pass.rate).toBeCloseTo(1 / 3, 12);
    expect(r.methods.rerun.rep1).toBeCloseTo(6 / 7, 12);
    expect(r.methods.rerun.rep3).toBeCloseTo(1 / 2, 12);
    expect(r.methods.rerun.repairsPer1k).toBeCloseTo(1000 / 24, 9);
    // suspicious-node: pass@1 c1 T, c2 F, c3 T (c4 skipped) → 2/3; z: c1 [F,T,F], c2 [T,T,T], c3 [F,F]
    // → 4/8; rep3: c1 0, c2 1, c3 0 → 1/3; calls 9+6+5 = 20; repairs 3 → 150
    expect(r.methods["suspicious-node"]).toMatchObject({ attempts: 9, skipped: 1, errors: 1, calls: 20, pass: { k: 1 }, rep1: 0.5 });
    expect(r.methods["suspicious-node"].pass.rate).toBeCloseTo(2 / 3, 12);
    expect(r.methods["suspicious-node"].rep3).toBeCloseTo(1 / 3, 12);
    expect(r.methods["suspicious-node"].repairsPer1k).toBeCloseTo(150, 9);
    // critic: c1 F, c2 T, c4 F (errors are failures), c3 skipped → 1/3; z: c1 [T,T,T], c2 [F] → 3/4;
    // rep3: c1 1, c2 0 → 1/2; calls (12+3) + (5+1) + (0+2) = 23
    expect(r.methods.critic).toMatchObject({ attempts: 7, skipped: 3, errors: 3, calls: 23, rep1: 0.75, rep3: 0.5 });
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
    expect(ag2.rerun.rep1).toMatchObject({ x: 3, n: 4 });
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
    expect(e("all", "suspicious-node")).toMatchObject({ apiCalls: 20, repairs: 3, tokens: 200 });
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
    expect(Object.keys(cli.methods.rerun)).toEqual(["attempts", "pass", "rep1", "rep3", "calls", "repairsPer1k", "skipped", "errors"]);
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
