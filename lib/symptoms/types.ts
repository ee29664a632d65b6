/**
 * Types of lib/symptoms: suspicious-node detection (seeds/000 §5.4, Appendix F;
 * the symptoms spec). All scores are unitless numbers in [0, 1].
 */
import type { NodeType } from "../bundle";

/** The four symptom categories of Table 10 are the annotation protocol's C1–C4 (one definition: lib/annotation/protocol.ts). */
import { CATEGORIES, type Category } from "../annotation/protocol";
export { CATEGORIES, type Category };

/**
 * How strong a rule's evidence is; gives the rule's confidence (README §Features):
 * runtime 1.0 (the F.6 runtime-failure signal S(v)), structured 0.8 (a check on a structured
 * field: equality of fingerprints/URLs, a JSON shape), text 0.6 (a phrase pattern in free text),
 * propagated 0.6 (the evidence is an upstream node reached over data/control edges).
 */
export type RuleTier = "runtime" | "structured" | "text" | "propagated";

/** One piece of evidence: a JSON path inside the node (`$` = the node object) and the exact quoted text. */
export interface Evidence {
  /** JSON path from the node object: `$.content.error.message`, `$.status`, `$.error.type`. */
  path: string;
  /** The exact text that fired (a substring of the string at `path`; for a non-string value, its JSON text). */
  quote: string;
  /** Set only when the quote lies in another (earlier) node than the one the rule fired on. */
  nodeId?: string;
}

/** A rule that fired on a node. */
export interface RuleHit {
  id: string;
  category: Category;
  tier: RuleTier;
  evidence: Evidence[];
}

/** Static description of a rule (the catalogue in rules.ts; README lists them). */
export interface RuleInfo {
  id: string;
  category: Category;
  tier: RuleTier;
  /** The Table 10 clause this rule implements, quoted. */
  table10: string;
  /** What exactly it checks, in words. */
  check: string;
}

/** Features of eq. 21–30 for one node (README §Features gives each definition). */
export interface NodeFeatures {
  /** c_l: strongest local confidence (max tier confidence of confirmed local rules). */
  cl: number;
  /** c_r: strongest confidence including propagated evidence. */
  cr: number;
  /** I_p: 1 when every confirmed rule is propagated (no local evidence). */
  Ip: 0 | 1;
  /** ρ: observed-order position / (n − 1), 0 for a one-node trace. */
  rho: number;
  /** I_a: 1 for agent_action or tool_call. */
  Ia: 0 | 1;
  /** I_f: 1 for final_result. */
  If: 0 | 1;
  /** η: node-type prior. */
  eta: number;
}

/** The scores of eq. 26, 30, 31, 33. */
export interface NodeScores {
  Sr: number;
  Ss: number;
  cMix: number;
  cf: number;
}

/** Detection result for one node on which at least one rule fired. */
export interface NodeSymptoms extends NodeScores {
  id: string;
  type: NodeType;
  /** Position in the observed order (0-based). */
  position: number;
  /** Every rule that fired (L_v^r with E_v^r), in catalogue order. */
  rules: RuleHit[];
  /** L_v^r: categories whose rules fired. */
  triggered: Category[];
  /** L_v = L_v^f: confirmed categories (= triggered without a judge; ⊆ triggered with one). */
  categories: Category[];
  /** S(v) of F.6 (eq. 43). */
  runtimeFailure: 0 | 1;
  features: NodeFeatures;
  /** c̃_LLM(v): the judge's confidence, or c_r(v) without a judge ("rules only"). */
  cLLM: number;
  /** c_f ≥ θ and at least one confirmed category (eq. 34). */
  eligible: boolean;
  /** The LLM boundary an intervention on this node acts at (lib/replay/target.ts rule), or null. */
  boundary: string | null;
}

/** The judge's answer for one node (after L_f ← L_f ∩ L_r). */
export interface JudgeVerdict {
  /** Confirmed categories (any category outside the triggered ones is dropped). */
  confirmed: Category[];
  /** c̃_LLM ∈ [0, 1]. */
  confidence: number;
}

/** Result of detection on one bundle. */
export interface DetectionResult {
  bundleId: string;
  threshold: number;
  /** "none" (rules only) or the judge model. */
  judge: string;
  mode: "rules only" | "rules + judge";
  /** The intervention anchor: the LLM boundary node (Algorithm 4), or null. */
  anchor: string | null;
  /**
   * The eligible node the anchor was chosen from. For a bundle without LLM records (nothing is
   * replayable: Who&When, MAD) `anchor` is null and this is the first eligible node (offline anchor).
   */
  anchorNode: string | null;
  /** True when the bundle has at least one LLM boundary record. */
  replayable: boolean;
  /** Nodes where a rule fired, in observed order. */
  nodes: NodeSymptoms[];
  /** Node count of the bundle. */
  nodeCount: number;
}
