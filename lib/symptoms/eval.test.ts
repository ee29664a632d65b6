import { describe, expect, test } from "vitest";
import { wilsonInterval } from "../stats";
import { evaluateDetections, rate, topByCf, type EvalCase } from "./eval";
import { trace, type N } from "./test-helpers";
import type { Category, DetectionResult, NodeSymptoms } from "./types";

const nodes: N[] = ["a", "b", "c", "d", "e"].map((id) => [id, "agent_action", { text: id }] as N);
const bundle = trace(nodes);

function det(anchorNode: string | null, scored: Array<[string, number, Category[]]>): DetectionResult {
  const pos = new Map(bundle.order.map((id, i) => [id, i]));
  return {
    bundleId: bundle.id,
    threshold: 0.5,
    judge: "none",
    mode: "rules only",
    anchor: null,
    anchorNode,
    replayable: false,
    nodeCount: 5,
    nodes: scored.map(([id, cf, categories]) => ({ id, cf, categories, position: pos.get(id)! }) as unknown as NodeSymptoms),
  };
}
const kase = (ref: string[], cats: Category[] | null): EvalCase => ({ caseId: `c-${ref.join("")}`, dataset: "test", bundle, referenceNodes: ref, referenceCategories: cats, referenceSource: "gold" });

describe("evaluateDetections (hand-counted)", () => {
  const cases = [kase(["b"], ["C3"]), kase(["d"], ["C1", "C2"]), kase(["a"], null), kase([], null)];
  const dets = [
    det("b", [["b", 0.9, ["C3"]], ["c", 0.7, ["C3"]]]), // exact, within one, top3
    det("c", [["c", 0.8, ["C2"]], ["e", 0.6, ["C1"]], ["a", 0.55, ["C1"]], ["d", 0.51, ["C2"]]]), // within one; d is 4th → top-3 miss
    det(null, []), // no pick
    det("e", [["e", 0.7, ["C4"]]]), // no reference: counts in no rate
  ];
  const r = evaluateDetections(cases, dets, { seed: 7 });

  test("node rates: exact 1/3, within one 2/3, top-3 1/3, each with its Wilson interval", () => {
    expect([r.cases, r.withNodeReference, r.withCategoryReference]).toEqual([4, 3, 2]);
    expect(r.methods.detector.exact).toEqual({ x: 1, n: 3, rate: 1 / 3, ci95: wilsonInterval(1, 3) });
    expect(r.methods.detector.withinOne).toEqual(rate(2, 3));
    expect(r.methods.detector.top3).toEqual(rate(1, 3));
  });

  test("Last-Node picks the last node and its top 3 are the last three", () => {
    expect(r.perCase[0].lastNode).toEqual({ pick: "e", top3: ["e", "d", "c"] });
    // refs b, d, a: exact 0; within one: d (case 2); top3 contains d (case 2) → 1/3
    expect(r.methods.lastNode.exact.x).toBe(0);
    expect(r.methods.lastNode.withinOne.x).toBe(1);
    expect(r.methods.lastNode.top3.x).toBe(1);
  });

  test("Random-Node is seeded: same seed, same picks; three distinct top-3 nodes", () => {
    const again = evaluateDetections(cases, dets, { seed: 7 });
    expect(again.perCase.map((c) => c.randomNode)).toEqual(r.perCase.map((c) => c.randomNode));
    for (const c of r.perCase) expect(new Set(c.randomNode.top3).size).toBe(3);
    const picks = new Set<string>();
    for (let s = 1; s <= 40; s++) picks.add(evaluateDetections([cases[0]], [dets[0]], { seed: s }).perCase[0].randomNode.pick!);
    expect(picks).toEqual(new Set(["a", "b", "c", "d", "e"])); // every node reachable
  });

  test("Random-Node picks are keyed on the case: other cases added or reordered leave them unchanged", () => {
    const alone = evaluateDetections([cases[2]], [dets[2]], { seed: 7 }).perCase[0].randomNode;
    const reversed = evaluateDetections([...cases].reverse(), [...dets].reverse(), { seed: 7 });
    expect(reversed.perCase.find((c) => c.caseId === cases[2].caseId)!.randomNode).toEqual(alone);
    expect(r.perCase.find((c) => c.caseId === cases[2].caseId)!.randomNode).toEqual(alone);
  });

  test("per-category precision/recall of the anchor's categories against reference categories", () => {
    // case 1: anchor b {C3} vs {C3} → C3 tp. case 2: anchor c {C2} vs {C1, C2} → C2 tp, C1 fn.
    expect(r.categories.C3).toMatchObject({ tp: 1, fp: 0, fn: 0, precision: rate(1, 1), recall: rate(1, 1) });
    expect(r.categories.C2).toMatchObject({ tp: 1, fp: 0, fn: 0 });
    expect(r.categories.C1).toMatchObject({ tp: 0, fp: 0, fn: 1, precision: rate(0, 0), recall: rate(0, 1) });
    expect(r.categories.C1.precision.ci95).toBeNull();
  });

  test("topByCf orders by c_f, ties by observed order, and skips nodes without confirmed categories", () => {
    expect(topByCf(det(null, [["a", 0.6, ["C1"]], ["b", 0.9, []], ["c", 0.6, ["C2"]], ["d", 0.7, ["C3"]]]))).toEqual(["d", "a", "c"]);
  });
});
