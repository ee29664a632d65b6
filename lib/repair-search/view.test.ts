/**
 * The repair-tree view's rows over the hand-built tree of lib/testing/repair-tree.ts (values chosen
 * there): N, Q/N, UCT from the parent (eq. 1), actions and guidance, the best path, edges, and
 * the ELK layout of the rows (real elkjs, mrtree).
 */
import ELK from "elkjs/lib/elk.bundled.js";
import { describe, expect, it } from "vitest";
import { grow, SAMPLE_CHECKPOINT, SAMPLE_GUIDANCE, sampleSearchState } from "../testing/repair-tree";
import { bestPath, fmtScore, treeEdges, treeElkInput, treeView } from "./view";

describe("repair tree view", () => {
  it("rows carry N, Q/N, UCT, verdict and action per node, in creation order", () => {
    const rows = treeView(sampleSearchState());
    expect(rows.map((r) => r.id)).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    const by = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(by.n0).toMatchObject({ action: "root", visits: 4, score: null, uct: null, guidance: null });
    expect(by.n0.meanQ).toBeCloseTo(0.45, 10);
    expect(by.n2).toMatchObject({ action: "rollback", checkpoint: SAMPLE_CHECKPOINT, guidance: SAMPLE_GUIDANCE, visits: 3, score: 0.4, failureMode: "FM 2.6", liveSteps: 0 });
    expect(by.n2.meanQ).toBeCloseTo(1.6 / 3, 10);
    // eq. 1 with C = 1.41, N(p) = 4: 1.6/3 + 1.41·√(ln 4 / 3)
    expect(by.n2.uct).toBeCloseTo(1.6 / 3 + 1.41 * Math.sqrt(Math.log(4) / 3), 10);
    expect(by.n3).toMatchObject({ action: "guided_repair", guidance: SAMPLE_GUIDANCE, score: 0.9, failureMode: "None", depth: 2 });
    expect(by.n1).toMatchObject({ action: "continuation", guidance: null, finished: true, feedback: "Answer given without tool evidence." });
    expect(fmtScore(by.n2.meanQ)).toBe("0.53");
    expect(fmtScore(by.n0.score)).toBe("—");
  });

  it("marks the best path root → best node, and only its edges", () => {
    const s = sampleSearchState();
    expect(bestPath(s)).toEqual(["n0", "n2", "n3"]);
    const rows = treeView(s);
    expect(rows.filter((r) => r.onBestPath).map((r) => r.id)).toEqual(["n0", "n2", "n3"]);
    expect(rows.filter((r) => r.isBest).map((r) => r.id)).toEqual(["n3"]);
    expect(treeEdges(rows)).toEqual([
      { from: "n0", to: "n1", best: false },
      { from: "n0", to: "n2", best: true },
      { from: "n2", to: "n3", best: true },
      { from: "n2", to: "n4", best: false },
    ]);
    const g = grow(s);
    expect(bestPath(g)).toEqual(["n0", "n2", "n3", "n5"]);
    expect(treeView(g).find((r) => r.id === "n0")!.meanQ).toBeCloseTo(2.8 / 5, 10);
  });

  it("an unknown best id falls back to the root; the root alone before any expansion", () => {
    const s = sampleSearchState();
    s.bestId = "n99";
    expect(bestPath(s)).toEqual(["n0"]);
  });

  it("ELK lays the tree out top-down: children below their parent, siblings side by side", async () => {
    const rows = treeView(sampleSearchState());
    const out = await new ELK().layout(treeElkInput(rows, 220, 120));
    const pos = Object.fromEntries((out.children ?? []).map((c) => [c.id, { x: c.x ?? 0, y: c.y ?? 0 }]));
    expect(Object.keys(pos).sort()).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    expect(pos.n1.y).toBeGreaterThanOrEqual(pos.n0.y + 120);
    expect(pos.n3.y).toBeGreaterThanOrEqual(pos.n2.y + 120);
    expect(pos.n1.y).toBe(pos.n2.y);
    expect(Math.abs(pos.n1.x - pos.n2.x)).toBeGreaterThanOrEqual(220);
    expect(Math.abs(pos.n3.x - pos.n4.x)).toBeGreaterThanOrEqual(220);
  });
});
