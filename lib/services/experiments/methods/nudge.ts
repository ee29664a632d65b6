/**
 * Generic Nudge (our control, issue 13 item 2): replay to the SAME anchor as Suspicious-Node with
 * the generic control prompt of F.3 (`CONTROL_GUIDANCE`, lib/symptoms; the Random-/Last-Node
 * text): no category, no evidence.
 */
import { CONTROL_GUIDANCE } from "../../../experiments/prompts";
import { suspiciousAnchor } from "./anchors";
import { guard, safeSkip, runNodeLevel, skipped } from "./common";
import type { ExperimentMethod } from "./types";

export const nudgeMethod: ExperimentMethod = {
  name: "nudge",
  skipReason: safeSkip((c, s) => suspiciousAnchor(c, s).skip),
  run: (ctx) =>
    guard(ctx, async () => {
      const a = suspiciousAnchor(ctx.case, ctx.settings);
      if (a.skip !== null) return skipped(a.skip);
      return runNodeLevel(ctx, a.nodeId, CONTROL_GUIDANCE);
    }),
};
