/**
 * Last-Node Intervention (seeds/000 §5.4): one selective replay at the last node an intervention
 * can act at (native: the last LLM call; transcript: the last agent turn; ./anchors.ts
 * lastAnchor), with the F.3 control prompt `CONTROL_GUIDANCE`.
 */
import { CONTROL_GUIDANCE } from "../../../experiments/prompts";
import { lastAnchor } from "./anchors";
import { guard, safeSkip, runNodeLevel, skipped } from "./common";
import type { ExperimentMethod } from "./types";

export const lastNodeMethod: ExperimentMethod = {
  name: "last-node",
  skipReason: safeSkip((c, s) => lastAnchor(c, s).skip),
  run: (ctx) =>
    guard(ctx, async () => {
      const a = lastAnchor(ctx.case, ctx.settings);
      if (a.skip !== null) return skipped(a.skip);
      return runNodeLevel(ctx, a.nodeId, CONTROL_GUIDANCE);
    }),
};
