/** Zod schema of the experiment API (POST /api/experiments). Commands are never taken from a request. */
import { z } from "zod";
import { METHOD_NAMES } from "../experiments/methods";

const positive = z.number().int().positive();

export const createExperimentSchema = z.object({
  name: z.string().max(200).optional(),
  methods: z.array(z.enum(METHOD_NAMES)).min(1, "choose at least one method"),
  attempts: z.number().int().min(1, "k from 1 to 20").max(20, "k from 1 to 20"),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  maxCalls: positive.nullish(),
  maxTokens: positive.nullish(),
  /** A configured evaluator's name (lib/services/experiments/judgeable.ts); default: the first configured. Never a command. */
  evaluator: z.string().min(1).max(200).optional(),
  /** A configured reproduction judge's name (`<evaluator>-judge`, `command`, `llm`, `none`); default: the server's. */
  judge: z.string().min(1).max(200).optional(),
  cases: z.union([
    z.object({ bundleIds: z.array(z.string().min(1)).min(1, "at least one case") }),
    z.object({
      filter: z.object({
        dataset: z.string().nullish(),
        mas: z.string().nullish(),
        benchmark: z.string().nullish(),
        includePassed: z.boolean().optional(),
        limit: positive.nullish(),
      }),
    }),
  ]),
});
/** The New experiment form's preview (POST /api/experiments/check): the same case selection. */
export const checkExperimentSchema = z.object({ cases: createExperimentSchema.shape.cases });

export type CreateExperimentBody = z.infer<typeof createExperimentSchema>;
