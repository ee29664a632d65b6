import { describe, expect, test } from "vitest";
import { tableToCsv } from "../stats";
import { EXPERIMENT_TABLES, attemptsBehind, experimentTable, type AttemptListItem, type ExperimentTable } from "./export";
import { summarizeExperiment } from "./report";
import { input, records } from "./test-fixture";

const report = summarizeExperiment(input);
const attempts: AttemptListItem[] = records.map((r, i) => ({ id: `a${i}`, caseBundleId: r.caseId, mas: r.mas, primaryCategory: r.primaryCategory, method: r.method, attempt: r.attempt, status: r.status, passed: r.passed, reproduced: r.reproduced, calls: r.calls, auxCalls: r.auxCalls, tokens: r.tokens, bundleId: r.status === "skipped" ? null : `b${i}`, anchorNodeId: null, error: null, skipReason: r.status === "skipped" ? "no runner" : null }));

describe("experimentTable", () => {
  test("reproduction: one row per (MAS or all, method) with rep1 and rep3", () => {
    const t = experimentTable("reproduction", report);
    expect(t.rows).toHaveLength(9);
    const row = t.rows.find((r) => r[0] === "rerun" && r[2] === "all")!;
    const h = (k: string) => row[t.header.indexOf(k)];
    expect([h("rep1_x"), h("rep1_n"), h("rep3_x"), h("rep3_n")]).toEqual([2.5, 3, 1, 2]);
    expect(h("label")).toBe("Unguided Full Rerun");
  });

  test("repair: MAS rows then category rows then the total, per method", () => {
    const t = experimentTable("repair", report);
    // 2 MAS + 3 categories + total = 6 groups × 3 methods
    expect(t.rows).toHaveLength(18);
    const r = t.rows.find((x) => x[0] === "category" && x[1] === "C1" && x[3] === "suspicious-node")!;
    expect(r[t.header.indexOf("pass_x")]).toBe(2);
    expect(r[t.header.indexOf("pass_n")]).toBe(2);
    expect(r[t.header.indexOf("k")]).toBe(1);
  });

  test("comparisons, efficiency, settings, attempts → CSV", () => {
    const csv = tableToCsv(experimentTable("comparisons", report));
    expect(csv.split("\n")[0]).toBe("family,a,b,n,a_passed,b_passed,diff_points,lo,hi,n10,n01,mcnemar_p,holm_p");
    expect(csv.split("\n")[3]).toBe("CrewAI,suspicious-node,rerun,1,1,0,100,100,100,1,0,1,1");
    const s = experimentTable("settings", report, { upstream: "http://x", budget: { maxCalls: 5 } });
    expect(s.rows).toContainEqual(["seed", 42]);
    expect(s.rows).toContainEqual(["budget", '{"maxCalls":5}']);
    const e = experimentTable("efficiency", report);
    expect(e.rows.find((r) => r[0] === "all" && r[1] === "suspicious-node")!.slice(3, 12)).toEqual([7, 7, 0, 70, 0, 2, 2000 / 7, 3.5, 35]);
    expect(experimentTable("attempts", report, {}, attempts).rows).toHaveLength(records.length);
  });

  test.each(EXPERIMENT_TABLES.map((t) => [t]))("%s has a header", (t) => {
    expect(experimentTable(t as ExperimentTable, report).header.length).toBeGreaterThan(1);
  });

  test("unknown table", () => expect(() => experimentTable("x" as ExperimentTable, report)).toThrow(/unknown experiment table "x"/));
});

describe("attemptsBehind (drill-down)", () => {
  test.each([
    [{ method: "rerun", mas: "AG2" }, 5],
    [{ method: "critic", mas: "CrewAI" }, 6],
    [{ method: "suspicious-node", category: "C1" }, 6],
    [{ method: "rerun", category: "none" }, 1],
    [{ method: "critic", mas: "all" }, 10],
    [{ mas: "AG2" }, 15], // rerun 5 + suspicious-node 6 + critic 4
  ])("%j → %i attempts", (f, n) => {
    expect(attemptsBehind(attempts, f)).toHaveLength(n);
  });
});
