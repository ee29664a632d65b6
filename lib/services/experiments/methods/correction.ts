/**
 * The matched control of a proposed correction (issue 14 item 4; seeds/004 §3.2 step 4, the
 * evidence ladder of lib/release/aed/grade.ts): two node-level arms from the SAME verified prefix
 * and the SAME LLM boundary, anchored at the case's reference node (the final annotation's node;
 * for imported datasets the reference label):
 *
 *   `correction`          treatment: the prefix is replayed strictly up to the call whose response
 *                         is the node's output (lib/replay resolveOutputTarget), and the proposed
 *                         correction a* IS that response — substituted, no model call, no guidance
 *                         (lib/services/replay ReplayRunSpec.substitution; the bundle's record has
 *                         `meta.substituted: true`, its `parent.substitution` names a*). The rest of
 *                         the run is live. Transcript mode: the continuation is a* itself.
 *   `correction-control`  control: the same prefix and boundary (`targetRule: "output"`), the
 *                         original request re-executed live with no change (Δ = "").
 *
 * Both are skipped, with the reason recorded, when the case has no proposed correction (only a
 * final annotation carries one), no reference, a reference node missing from the source, or (native)
 * no LLM boundary for it. k attempts per arm come from the experiment (E2 needs ≥ 2 per arm).
 */
import { resolveOutputTarget } from "../../../replay";
import { guard, replayModeOf, runNodeLevel, safeSkip, skipped } from "./common";
import type { ExperimentCaseInput, ExperimentMethod, ExperimentSettings } from "./types";

/**
 * Why the correction arms cannot run on a case, or null. Shared by both arms so that a control is
 * never run where its treatment cannot be.
 */
export function correctionSkipReason(c: ExperimentCaseInput, s: ExperimentSettings): string | null {
  const ref = c.reference;
  if (!ref) return `case ${c.caseId} has no reference label (no final annotation and no dataset label)`;
  if (!c.correction?.trim()) return `case ${c.caseId} has no proposed correction (the final annotation at ${ref.nodeId} gives none)`;
  if (!c.bundle.graph.nodes.some((n) => n.id === ref.nodeId)) return `the reference node ${ref.nodeId} is not a node of the source bundle ${c.bundle.id}`;
  if (replayModeOf(c, s) === "native") {
    try {
      resolveOutputTarget(c.bundle, ref.nodeId);
    } catch (e) {
      return `the reference node ${ref.nodeId}: ${(e as Error).message}`;
    }
  }
  return null;
}

/** Treatment arm: the proposed correction substituted for the reference node's output. */
export const correctionMethod: ExperimentMethod = {
  name: "correction",
  skipReason: safeSkip(correctionSkipReason),
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = correctionSkipReason(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      return runNodeLevel(ctx, ctx.case.reference!.nodeId, "", { substitution: ctx.case.correction! });
    }),
};

/** Control arm: the same prefix and boundary, the original request re-executed live. */
export const correctionControlMethod: ExperimentMethod = {
  name: "correction-control",
  skipReason: safeSkip(correctionSkipReason),
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = correctionSkipReason(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      return runNodeLevel(ctx, ctx.case.reference!.nodeId, "", { targetRule: "output" });
    }),
};
