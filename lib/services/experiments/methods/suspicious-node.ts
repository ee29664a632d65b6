/**
 * Suspicious-Node Intervention (seeds/000 §5.4, Appendix F; the symptoms spec §2–3): one
 * selective replay at the symptom detector's anchor (lib/symptoms, rules only, Algorithm 4) with
 * the F.3 evidence prompt `suspiciousNodeGuidance(anchor node, confirmed categories, evidence)`.
 * No judge rationale, reference answer or evaluator output is included.
 */
import { suspiciousNodeGuidance } from "../../../experiments/prompts";
import { suspiciousAnchor } from "./anchors";
import { guard, safeSkip, runNodeLevel, skipped } from "./common";
import type { ExperimentMethod } from "./types";

export const suspiciousNodeMethod: ExperimentMethod = {
  name: "suspicious-node",
  skipReason: safeSkip((c, s) => suspiciousAnchor(c, s).skip),
  run: (ctx) =>
    guard(ctx, async () => {
      const a = suspiciousAnchor(ctx.case, ctx.settings);
      if (a.skip !== null) return skipped(a.skip);
      return runNodeLevel(ctx, a.nodeId, suspiciousNodeGuidance(a.nodeId, a.categories, a.evidence));
    }),
};
