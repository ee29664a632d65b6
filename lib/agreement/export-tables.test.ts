import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { AGREEMENT_TABLES, MIN_CASES_FOR_CI, analyzeAnnotations, agreementTable, bootstrapIntervalShown, readAnnotations, sampleSizeWarnings, tableToCsv } from ".";

const SHARED = new URL("../../../shared/", import.meta.url);
const text = (p: string) => readFileSync(new URL(p, SHARED), "utf8");
const expected = JSON.parse(text("fixtures/agreement/synthetic-60.expected.json"));
const read = readAnnotations(text("fixtures/agreement/synthetic-60.annotations.json"));
if (!read.ok) throw new Error(JSON.stringify(read.errors));
const all = read.file.cases;
const report = analyzeAnnotations(all, { resamples: 500 });

describe("sample-size warnings", () => {
  test.each([
    [0, false, /Only 0 cases: too few for a bootstrap interval/],
    [1, false, /Only 1 case: too few for a bootstrap interval \(shown from 10 cases\)/],
    [9, false, /Only 9 cases: too few/],
    [10, true, /Only 10 cases: bootstrap intervals under 30 cases are unstable/],
    [29, true, /Only 29 cases: bootstrap intervals under 30/],
  ])("%i case(s): interval shown %s, warned", (n, shown, msg) => {
    expect(bootstrapIntervalShown(n)).toBe(shown);
    const w = sampleSizeWarnings({ cases: n });
    expect(w).toHaveLength(1);
    expect(w[0].scope).toBe("reliability");
    expect(w[0].message).toMatch(msg);
  });

  test("30 cases and large pairs: no warning; small pairs and annotators are named with their n", () => {
    expect(sampleSizeWarnings({ cases: 30, pairs: [{ a: "A", b: "B", items: 10 }], vsFinal: [{ annotator: "A", cases: 12 }] })).toEqual([]);
    const w = sampleSizeWarnings({ cases: 60, pairs: [{ a: "A", b: "B", items: 3 }, { a: "A", b: "C", items: 40 }], vsFinal: [{ annotator: "C", cases: 1 }] });
    expect(w.map((x) => x.scope)).toEqual(["cohen", "vs-final"]);
    expect(w[0].message).toBe("1 pair(s) share fewer than 10 cases (A · B: 3); their κ is not reliable.");
    expect(w[1].message).toBe("1 annotator(s) have fewer than 10 finalized cases (C: 1); their shares are not reliable.");
  });
});

describe("every dashboard table exports as CSV", () => {
  test("reliability: the published κ of synthetic-60, its interval, no warning at n = 60", () => {
    const t = agreementTable("reliability", { report });
    expect(t.rows).toHaveLength(7);
    expect(t.rows[0][0]).toBe("Primary category");
    expect(t.rows[0][1]).toBeCloseTo(expected.primaryCategory.kappa, 12);
    expect(t.rows[0][2]).toBe(report.primaryCategory.ci95![0]);
    expect(t.rows[0][8]).toBeNull();
    const csv = tableToCsv(t);
    expect(csv.split("\n")[0]).toBe("variable,fleiss_kappa,ci95_low,ci95_high,landis_koch,pairwise_agreement,unanimous,cases,warning,kappa_undefined_reason,ci95_missing_reason,undefined_resamples");
    expect(csv.split("\n")[1]).toMatch(/^Primary category,0\.79020979021,0\.\d+,0\.\d+,substantial,0\.844444444444,46,60,,,,0$/);
  });

  test("reliability of one case: no interval, the warning in every row", () => {
    const one = analyzeAnnotations(all.slice(0, 1), { resamples: 200 });
    expect(one.cases).toBe(1);
    const t = agreementTable("reliability", { report: one });
    for (const row of t.rows) {
      expect(row[2]).toBeNull();
      expect(row[3]).toBeNull();
      expect(String(row[8])).toContain(`shown from ${MIN_CASES_FOR_CI} cases`);
      // no bootstrap is shown, so neither is its count of undefined resamples
      expect(row[t.header.indexOf("undefined_resamples")]).toBeNull();
    }
  });

  test("an undefined κ carries its reason in the CSV; a missing interval says why (issue 20 item 8)", () => {
    // one case on which all three agree on everything: every κ undefined (P_e = 1)
    const one = analyzeAnnotations(all.slice(0, 1), { resamples: 200 });
    const t = agreementTable("reliability", { report: one });
    const h = (row: (typeof t.rows)[number], k: string) => row[t.header.indexOf(k)];
    for (const row of t.rows) {
      if (h(row, "fleiss_kappa") === null) {
        expect(String(h(row, "kappa_undefined_reason"))).toMatch(/P_e = 1/);
        expect(String(h(row, "ci95_missing_reason"))).toMatch(/^κ undefined: /);
      } else expect(h(row, "ci95_missing_reason")).toBe("n < 10: too few cases for a bootstrap interval");
    }
    expect(t.rows.some((row) => h(row, "fleiss_kappa") === null)).toBe(true);
  });

  test("exact node and tuple agreement carry counts, shares and Wilson bounds", () => {
    const t = agreementTable("exact", { report });
    expect(t.rows[0]).toEqual(["Node id", "all three", 28, 60, 28 / 60, expected.node.allThreeWilson95[0], expected.node.allThreeWilson95[1]]);
    expect(t.rows[1].slice(0, 4)).toEqual(["Node id", "at least two", 50, 60]);
  });

  test("patterns, composition and Cohen per pair come from the report", () => {
    const p = agreementTable("patterns", { report });
    expect(p.rows.map((r) => r[0])).toEqual(["Unanimous", "2–1 split", "All distinct"]);
    expect(p.rows.reduce((s, r) => s + Number(r[1]), 0)).toBe(report.final!.cases);
    const c = agreementTable("composition", { report });
    expect(c.rows.map((r) => r[0])).toEqual(["C1", "C2", "C3", "C4"]);
    expect(c.rows[0][3]).toBe(report.final!.primary.C1);
    const k = agreementTable("cohen", { report });
    expect(k.rows.length).toBe(7 * report.cohen.primaryCategory.length);
    expect(k.rows[0]).toEqual(["primaryCategory", report.cohen.primaryCategory[0].a, report.cohen.primaryCategory[0].b, report.cohen.primaryCategory[0].items, report.cohen.primaryCategory[0].kappa, null]);
  });

  test("vs-final, disagreement and MAD modes are passed through with shares; quoting per RFC 4180", () => {
    const v = agreementTable("vs-final", { report, vsFinal: [{ annotator: "ann, 1", cases: 4, primary: 3, node: 2, tuple: 1 }] });
    expect(v.rows).toEqual([["ann, 1", 4, 0.75, 0.5, 0.25]]);
    expect(tableToCsv(v).split("\n")[1]).toBe('"ann, 1",4,0.75,0.5,0.25');
    const d = agreementTable("disagreement", { report, disagreement: [{ caseId: "x/1", tuples: 3, sets: 2, nodes: 3, finalized: true }] });
    expect(tableToCsv(d)).toBe("case_id,distinct_tuples,category_sets,nodes,finalized\nx/1,3,2,3,true\n");
    const m = agreementTable("mad-modes", {
      report,
      mad: { pooled: { items: 2, kappa: 0.5, unanimous: 1 }, annotators: ["A", "B"], modes: [{ mode: "1.1 Disobey\nmore", traces: 2, yes: [1, 2], unanimous: 1, excluded: 0 }] },
    });
    expect(m.header).toEqual(["failure_mode", "traces", "A_yes", "B_yes", "all_agree", "excluded"]);
    expect(m.rows).toEqual([["1.1 Disobey", 2, 1, 2, 1, 0]]);
  });

  test("without a report every table has its header and no rows; unknown names are refused", () => {
    for (const name of AGREEMENT_TABLES) expect(agreementTable(name, { report: null }).rows).toEqual([]);
    expect(() => agreementTable("nope" as never, { report })).toThrow(/unknown agreement table "nope"/);
  });
});
