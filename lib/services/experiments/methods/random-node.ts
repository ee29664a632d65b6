/**
 * Random-Node Intervention (seeds/000 §5.4): one selective replay at a node drawn uniformly from
 * the nodes an intervention can act at (./anchors.ts interventionCandidates), seeded with the
 * attempt's derived seed (pure-rand), with the F.3 control prompt `CONTROL_GUIDANCE`.
 */
import { CONTROL_GUIDANCE } from "../../../experiments/prompts";
import { interventionCandidates, randomAnchor } from "./anchors";
import { guard, safeSkip, runNodeLevel, skipped } from "./common";
import type { ExperimentMethod } from "./types";

export const randomNodeMethod: ExperimentMethod = {
  name: "random-node",
  skipReason: safeSkip((c, s) => (interventionCandidates(c, s).length === 0 ? `case ${c.caseId} has no node an intervention can act at` : null)),
  run: (ctx) =>
    guard(ctx, async () => {
      const a = randomAnchor(ctx.case, ctx.settings, ctx.seed);
      if (a.skip !== null) return skipped(a.skip);
      return runNodeLevel(ctx, a.nodeId, CONTROL_GUIDANCE);
    }),
};
