/** Zod schema of the experiment API (POST /api/experiments). Commands are never taken from a request. */
import { z } from "zod";
import { METHOD_NAMES } from "../jobs/experiment-types";

const positive = z.number().int().positive();

export const createExperimentSchema = z.object({
  name: z.string().max(200).optional(),
  methods: z.array(z.enum(METHOD_NAMES)).min(1, "choose at least one method"),
  attempts: z.number().int().min(1, "k from 1 to 20").max(20, "k from 1 to 20"),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  maxCalls: positive.nullish(),
  maxTokens: positive.nullish(),
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
export type CreateExperimentBody = z.infer<typeof createExperimentSchema>;
