/**
 * Annotated-Node Intervention (issue 13 item 2): one selective replay at the case's reference
 * node (the final annotation's node; for imported datasets the reference label) with the repair
 * signal of its primary category (seeds/000 Table 1; lib/experiments/prompts.ts
 * annotatedNodeGuidance). Skipped without a reference, when the node is not in the source, or
 * (native) when no LLM boundary lies at or after it.
 */
import { annotatedNodeGuidance } from "../../../experiments/prompts";
import { resolveTarget } from "../../../replay";
import { guard, safeSkip, replayModeOf, runNodeLevel, skipped } from "./common";
import type { ExperimentCaseInput, ExperimentMethod, ExperimentSettings } from "./types";

function skipReason(c: ExperimentCaseInput, s: ExperimentSettings): string | null {
  const ref = c.reference;
  if (!ref) return `case ${c.caseId} has no reference label (no final annotation and no dataset label)`;
  if (!c.bundle.graph.nodes.some((n) => n.id === ref.nodeId)) return `the reference node ${ref.nodeId} is not a node of the source bundle ${c.bundle.id}`;
  if (replayModeOf(c, s) === "native") {
    try {
      resolveTarget(c.bundle, ref.nodeId);
    } catch (e) {
      return `the reference node ${ref.nodeId}: ${(e as Error).message}`;
    }
  }
  return null;
}

export const annotatedNodeMethod: ExperimentMethod = {
  name: "annotated-node",
  skipReason: safeSkip(skipReason),
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = skipReason(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      const ref = ctx.case.reference!;
      return runNodeLevel(ctx, ref.nodeId, annotatedNodeGuidance(ref.nodeId, ref.primaryCategory));
    }),
};
