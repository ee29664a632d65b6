/**
 * Repairability-aware anchor ranking, eq. 21–34 of seeds/000 Appendix F.2 with the exact
 * coefficients of eq. 36–38 (the symptoms spec §2). Pure arithmetic, no I/O.
 */
import type { NodeType } from "../bundle";
import type { Category, NodeFeatures, NodeScores, RuleTier } from "./types";

/** β = (β0, βl, βm, βC2, βC4, βp, βπ), eq. 37. */
export const BETA = { b0: 0.2, l: 0.26, m: 0.08, C2: 0.05, C4: 0.07, p: 0.3, pi: 0.18 } as const;
/** α = (αr, αl, αu, αn, αa, αp, αf, απ), eq. 36. */
export const ALPHA = { r: 0.48, l: 0.32, u: 0.12, n: 0.04, a: 0.08, p: 0.28, f: 0.18, pi: 0.12 } as const;
/** Fusion weights of eq. 31–32: 0.55 judge, 0.45 structured score, +0.04 multi-symptom bonus. */
export const FUSION = { llm: 0.55, s: 0.45, multi: 0.04 } as const;
/** θ of eq. 34. */
export const THETA = 0.5;

/** Confidence of a rule by tier (our choice, README §Features: not given by the paper). */
export const TIER_CONFIDENCE: Record<RuleTier, number> = { runtime: 1, structured: 0.8, text: 0.6, propagated: 0.6 };

/** η(v), eq. 38: agent_action 0.42, tool_call 0.36, tool_result 0.24, final_result −0.18, else 0. */
export function eta(type: NodeType): number {
  switch (type) {
    case "agent_action":
      return 0.42;
    case "tool_call":
      return 0.36;
    case "tool_result":
      return 0.24;
    case "final_result":
      return -0.18;
    default:
      return 0;
  }
}

/** clip_[0,1](x). */
export function clip01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

const ind = (b: boolean): number => (b ? 1 : 0);

/**
 * S_r (eq. 21–26), S_s (eq. 27–30), c_mix (eq. 31) and c_f (eq. 32–33) of one node.
 * @param f the node's features (c_l, c_r, I_p, ρ, I_a, I_f, η)
 * @param categories L_v, the confirmed categories
 * @param cLLM c̃_LLM(v) ∈ [0, 1]
 */
export function scoreNode(f: NodeFeatures, categories: readonly Category[], cLLM: number): NodeScores {
  const L = categories.length;
  const multi = ind(L > 1);
  const Br = BETA.b0 + f.eta + BETA.l * f.cl;
  const Gr = BETA.m * multi + BETA.C4 * ind(categories.includes("C4")) + BETA.C2 * ind(categories.includes("C2"));
  const Pr = BETA.p * f.Ip + BETA.pi * f.rho;
  const Sr = clip01(Br + Gr - Pr);
  const Bs = ALPHA.r * Sr + ALPHA.l * f.cl + ALPHA.u * f.cr;
  const Gs = ALPHA.n * Math.min(2, L) + ALPHA.a * f.Ia;
  const Ps = ALPHA.p * f.Ip + ALPHA.f * f.If + ALPHA.pi * f.rho;
  const Ss = clip01(Bs + Gs - Ps);
  const cMix = FUSION.llm * cLLM + FUSION.s * Ss;
  const cf = clip01(cMix + FUSION.multi * multi);
  return { Sr, Ss, cMix, cf };
}
