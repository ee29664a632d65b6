/**
 * Unguided Full Rerun (seeds/000 §5.1 ❶, Appendix E.1): restart the native MAS from the task,
 * without information from the failed execution, through the recording proxy (a new bundle per
 * attempt). The task is E.1's `fail-then-rerun` template (lib/experiments/prompts.ts
 * rerunTaskPrompt), the same task information every task-level arm gets. guidance: null.
 */
import { rerunTaskPrompt } from "../../../experiments/prompts";
import { guard, runTaskLevel, skipped, taskInput, taskLevelSkip } from "./common";
import type { ExperimentMethod } from "./types";

export const rerunMethod: ExperimentMethod = {
  name: "rerun",
  level: "task",
  skipReason: taskLevelSkip,
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = taskLevelSkip(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      return runTaskLevel(ctx, rerunTaskPrompt(taskInput(ctx.case)), null);
    }),
};
