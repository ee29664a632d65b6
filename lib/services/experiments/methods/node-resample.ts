/**
 * Node Resample (our control, issue 13 item 2): replay to the SAME anchor as Suspicious-Node with
 * NO guidance (Δ = ""): the same verified prefix, fresh samples after it. Separates "where"
 * (selective replay at the anchor) from "what" (the evidence prompt). guidance: null.
 */
import { suspiciousAnchor } from "./anchors";
import { guard, safeSkip, runNodeLevel, skipped } from "./common";
import type { ExperimentMethod } from "./types";

export const nodeResampleMethod: ExperimentMethod = {
  name: "node-resample",
  skipReason: safeSkip((c, s) => suspiciousAnchor(c, s).skip),
  run: (ctx) =>
    guard(ctx, async () => {
      const a = suspiciousAnchor(ctx.case, ctx.settings);
      if (a.skip !== null) return skipped(a.skip);
      return runNodeLevel(ctx, a.nodeId, "");
    }),
};
