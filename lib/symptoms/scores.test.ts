import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseJsonText, validateBundle } from "../bundle";
import { detectSymptoms } from "./detect";
import { clip01, scoreNode } from "./scores";
import { trace } from "./test-helpers";

const clip = (x: number) => Math.min(1, Math.max(0, x));

function goldC3() {
  const r = validateBundle(parseJsonText(readFileSync(path.resolve(__dirname, "../../../shared/fixtures/bundles/gold-c3.bundle.json"), "utf8")));
  if (!r.ok) throw new Error("gold-c3 invalid");
  return r.bundle;
}

describe("eq. 21-34 with the spec's coefficients, hand-computed", () => {
  test("gold-c3 tool_result_0000: runtime failure, local evidence, one category (C3)", () => {
    const d = detectSymptoms(goldC3());
    const v = d.nodes.find((n) => n.id === "tool_result_0000")!;
    // features: c_l = c_r = 1 (runtime tier), I_p = 0, ρ = 4/11 (position 4 of 12), tool_result: η = 0.24, I_a = 0, I_f = 0, L = {C3}
    expect(v.features).toEqual({ cl: 1, cr: 1, Ip: 0, rho: 4 / 11, Ia: 0, If: 0, eta: 0.24 });
    expect(v.categories).toEqual(["C3"]);
    const Sr = clip(0.2 + 0.24 + 0.26 * 1 + 0.08 * 0 + 0.07 * 0 + 0.05 * 0 - 0.3 * 0 - 0.18 * (4 / 11));
    const Ss = clip(0.48 * Sr + 0.32 * 1 + 0.12 * 1 + 0.04 * Math.min(2, 1) + 0.08 * 0 - 0.28 * 0 - 0.18 * 0 - 0.12 * (4 / 11));
    const cMix = 0.55 * 1 + 0.45 * Ss; // rules only: c̃_LLM = c_r = 1
    const cf = clip(cMix + 0.04 * 0);
    expect(v.Sr).toBeCloseTo(Sr, 12);
    expect(v.Ss).toBeCloseTo(Ss, 12);
    expect(v.cMix).toBeCloseTo(cMix, 12);
    expect(v.cf).toBeCloseTo(cf, 12);
    expect(v.eligible).toBe(cf >= 0.5);
  });

  test("gold-c3 final_result: final node, two categories (C3, C4), local + propagated evidence", () => {
    const v = detectSymptoms(goldC3()).nodes.find((n) => n.id === "final_result")!;
    // C4.answer-without-tool-evidence is local (structured 0.8); C3/C4 upstream rules are propagated (0.6)
    expect(v.features).toEqual({ cl: 0.8, cr: 0.8, Ip: 0, rho: 1, Ia: 0, If: 1, eta: -0.18 });
    expect(v.categories).toEqual(["C3", "C4"]);
    const Sr = clip(0.2 + -0.18 + 0.26 * 0.8 + 0.08 * 1 + 0.07 * 1 + 0.05 * 0 - 0.3 * 0 - 0.18 * 1);
    const Ss = clip(0.48 * Sr + 0.32 * 0.8 + 0.12 * 0.8 + 0.04 * Math.min(2, 2) + 0.08 * 0 - 0.28 * 0 - 0.18 * 1 - 0.12 * 1);
    const cMix = 0.55 * 0.8 + 0.45 * Ss;
    const cf = clip(cMix + 0.04 * 1);
    expect(v.Sr).toBeCloseTo(Sr, 12);
    expect(v.Ss).toBeCloseTo(Ss, 12);
    expect(v.cMix).toBeCloseTo(cMix, 12);
    expect(v.cf).toBeCloseTo(cf, 12);
  });

  test("propagation-only node (I_p = 1): c_l = 0, c_r = 0.6", () => {
    const b = trace([
      ["task_0000", "message", { role: "user", text: "Q" }, { agent: "User" }],
      ["tool_result_0000", "tool_result", { text: "found: 1" }],
      ["tool_result_0001", "tool_result", { text: "x" }, { status: "failed" }],
      ["final_result", "final_result", { answer: 1 }],
    ]);
    const v = detectSymptoms(b).nodes.find((n) => n.id === "final_result")!;
    expect(v.rules.map((r) => r.id)).toEqual(["C3.unresolved-upstream-error", "C4.completion-after-failure"]);
    expect(v.features).toEqual({ cl: 0, cr: 0.6, Ip: 1, rho: 1, Ia: 0, If: 1, eta: -0.18 });
    const Sr = clip(0.2 + -0.18 + 0.26 * 0 + 0.08 * 1 + 0.07 * 1 + 0.05 * 0 - 0.3 * 1 - 0.18 * 1);
    const Ss = clip(0.48 * Sr + 0.32 * 0 + 0.12 * 0.6 + 0.04 * 2 + 0.08 * 0 - 0.28 * 1 - 0.18 * 1 - 0.12 * 1);
    const cMix = 0.55 * 0.6 + 0.45 * Ss;
    const cf = clip(cMix + 0.04);
    expect(Sr).toBe(0); // clipped at 0
    expect(v.Sr).toBeCloseTo(Sr, 12);
    expect(v.Ss).toBeCloseTo(Ss, 12);
    expect(v.cf).toBeCloseTo(cf, 12);
    expect(v.eligible).toBe(false);
  });

  test("scoreNode with a judge confidence and the clip at 1", () => {
    const f = { cl: 1, cr: 1, Ip: 0 as const, rho: 0, Ia: 1 as const, If: 0 as const, eta: 0.42 };
    const s = scoreNode(f, ["C2", "C4"], 0.9);
    const Sr = clip(0.2 + 0.42 + 0.26 + 0.08 + 0.07 + 0.05);
    expect(Sr).toBe(1);
    const Ss = clip(0.48 * 1 + 0.32 + 0.12 + 0.04 * 2 + 0.08);
    expect(s).toEqual({ Sr, Ss, cMix: 0.55 * 0.9 + 0.45 * Ss, cf: clip(0.55 * 0.9 + 0.45 * Ss + 0.04) });
    expect(clip01(-0.1)).toBe(0);
  });
});
