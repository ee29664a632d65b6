/**
 * Critic-Agent (seeds/000 §5.1 ❸, Appendix E.1; issue 13: a SEPARATE critic call): one
 * chat-completions call through the experiment's endpoint and model (CRITIC_SYSTEM_PROMPT; it sees
 * the task and the ORIGINAL failed final answer only) writes corrective guidance; the MAS is then
 * restarted with E.1's `critic-agent` template carrying that feedback (criticTaskPrompt). The
 * critic call is counted in auxCalls and its usage in tokens. A failed critic call → status error
 * (the MAS is not started). guidance: the changed task (the exact SYMTRACE_TASK).
 *
 * Differs from the paper's implementation, which used a fixed critic-role sentence inside the
 * rerun (E.1, PAPER_CRITIC_FEEDBACK) and no standalone critic call.
 */
import { CRITIC_SYSTEM_PROMPT, criticTaskPrompt, criticUserMessage } from "../../../experiments/prompts";
import { ChatCallError, chatOnce, ZERO_TOKENS } from "../llm";
import { cancelled, errored, guard, runTaskLevel, skipped, sourceFinal, taskInput, taskLevelSkip } from "./common";
import type { ExperimentMethod } from "./types";

/** Model of the critic call when neither the settings nor the source name one. */
export const DEFAULT_CRITIC_MODEL = "gpt-4o-mini";

export const criticMethod: ExperimentMethod = {
  name: "critic",
  skipReason: taskLevelSkip,
  run: (ctx) =>
    guard(ctx, async () => {
      const skip = taskLevelSkip(ctx.case, ctx.settings);
      if (skip) return skipped(skip);
      const previous = sourceFinal(ctx.case);
      const model = ctx.settings.model ?? ctx.case.bundle.config.model ?? DEFAULT_CRITIC_MODEL;
      let critic: { text: string; tokens: typeof ZERO_TOKENS };
      try {
        critic = await chatOnce(
          ctx.settings.upstream,
          {
            model,
            messages: [
              { role: "system", content: CRITIC_SYSTEM_PROMPT },
              { role: "user", content: criticUserMessage(ctx.case.task, previous) },
            ],
            temperature: ctx.case.bundle.config.temperature ?? 0,
          },
          { signal: ctx.signal, timeoutMs: ctx.settings.timeoutMs },
        );
      } catch (e) {
        if (ctx.signal.aborted) return cancelled({ auxCalls: 1 });
        if (e instanceof ChatCallError) return errored(`critic call: ${e.message}`, { auxCalls: 1 });
        throw e;
      }
      const feedback = critic.text.trim();
      const task = criticTaskPrompt(taskInput(ctx.case), previous, feedback);
      return runTaskLevel(ctx, task, task, { calls: 1, tokens: critic.tokens });
    }),
};
