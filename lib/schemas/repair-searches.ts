/** Zod schema of the repair-search API (POST /api/repair-searches). Endpoints and commands are never taken from a request. */
import { z } from "zod";

const positive = z.number().int().positive();

export const createRepairSearchSchema = z.object({
  /** The case to repair: its internal id or its bundle id (the CLI's `--case` takes both too). */
  sourceCaseId: z.string().min(1, "the case to repair (case id or bundle id)"),
  /** N_iter (default 75), K (3), L (4), C (1.41), D_max (8): seeds/002 Algorithm 1. */
  iterations: positive.max(1000, "at most 1000 iterations").optional(),
  k: positive.max(10).optional(),
  l: positive.max(50).optional(),
  c: z.number().min(0).max(100).optional(),
  maxDepth: positive.max(50).optional(),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  maxCalls: positive.nullish(),
  maxTokens: positive.nullish(),
});
export type CreateRepairSearchBody = z.infer<typeof createRepairSearchSchema>;
