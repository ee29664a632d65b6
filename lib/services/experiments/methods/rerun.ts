/**
 * Unguided Full Rerun (seeds/000 §5.1 ❶): restart the native MAS from the ORIGINAL task, without
 * information from the failed execution, through the recording proxy (a new bundle per attempt):
 * a fresh sample of the source run. E.1's `fail-then-rerun` framing (prompts.ts rerunTaskPrompt)
 * is not added: it carries no information, only text a model could react to. guidance: null.
 */
import { guard, runTaskLevel, skipped, taskLevelSkip } from "./common";
import type { ExperimentMethod } from "./types";

export const rerunMethod: ExperimentMethod = {
  name: "rerun",
  skipReason: taskLevelSkip,
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = taskLevelSkip(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      return runTaskLevel(ctx, ctx.case.task, null);
    }),
};
