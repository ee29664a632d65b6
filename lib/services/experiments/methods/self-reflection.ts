/**
 * Self-Reflection (seeds/000 §5.1 ❷, Appendix E.1): the MAS is restarted with the task, the
 * ORIGINAL failed run's final answer (every attempt reuses it, E.1) and the instruction to reflect
 * and identify possible mistakes before solving again (lib/experiments/prompts.ts
 * selfReflectionTaskPrompt). No extra LLM call: the reflection happens inside the MAS run.
 * guidance: the changed task (the exact SYMTRACE_TASK).
 */
import { selfReflectionTaskPrompt } from "../../../experiments/prompts";
import { guard, runTaskLevel, skipped, sourceFinal, taskInput, taskLevelSkip } from "./common";
import type { ExperimentMethod } from "./types";

export const selfReflectionMethod: ExperimentMethod = {
  name: "self-reflection",
  skipReason: taskLevelSkip,
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = taskLevelSkip(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      const task = selfReflectionTaskPrompt(taskInput(ctx.case), sourceFinal(ctx.case));
      return runTaskLevel(ctx, task, task);
    }),
};
