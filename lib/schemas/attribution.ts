/**
 * Zod schema of POST /api/experiments/attribution (the attribution page's New run, Resume and Cancel).
 * No field names a path, a command or an endpoint: cases are chosen by subset of the dataset the
 * server ships, the model endpoint is the server's.
 */
import { z } from "zod";
import { ATTRIBUTOR_NAMES, SUBSETS } from "../attribution";
import { ATTRIBUTION_RUN_NAME } from "../db/attribution-runs";

/** Run names: lib/db's rule (the CLI's --run, the page's ?run=). */
const runName = z.string().regex(ATTRIBUTION_RUN_NAME, "1–200 letters, digits, . _ -");
const cap = z.number().int("a whole number").positive("a positive number (or null: no cap)").nullish();

/** Start a new run: its jobs (attributors × settings × cases) are queued for the app's workers. */
export const startAttributionSchema = z.object({
  action: z.literal("start"),
  name: runName,
  attributors: z.array(z.enum(ATTRIBUTOR_NAMES)).min(1, "choose at least one attributor"),
  /** The ground-truth settings of the LLM methods that have both (baselines and rules have none). */
  groundTruth: z.enum(["with", "without", "both"]).default("both"),
  /** Where the cases come from: the Who&When dataset folders the server ships, or the Who&When cases imported into the database. */
  source: z.enum(["dataset", "database"]).default("dataset"),
  /** The Who&When subsets whose cases the run takes. */
  subsets: z.array(z.enum(SUBSETS as [string, ...string[]])).min(1, "choose at least one subset"),
  /** The first `limit` cases of each chosen subset (file or bundle-id order); null or absent: all. */
  limit: z.number().int("a whole number").positive("a positive number (or null: all cases)").nullish(),
  seed: z.number().int("a whole number").min(0).max(2 ** 31 - 1).optional(),
  /** Caps of the whole run: HTTP calls the endpoint answered, their tokens. */
  maxCalls: cap,
  maxTokens: cap,
});

/** Resume a run stopped at its budget (or with failed jobs): same run, the new caps. */
export const resumeAttributionSchema = z.object({
  action: z.literal("resume"),
  name: runName,
  maxCalls: cap,
  maxTokens: cap,
});

/** Cancel a run: no job of it starts any more; running ones finish; Resume continues it. */
export const cancelAttributionSchema = z.object({
  action: z.literal("cancel"),
  name: runName,
});

export const attributionPostSchema = z.discriminatedUnion("action", [startAttributionSchema, resumeAttributionSchema, cancelAttributionSchema]);

export type StartAttributionBody = z.infer<typeof startAttributionSchema>;
export type ResumeAttributionBody = z.infer<typeof resumeAttributionSchema>;
export type CancelAttributionBody = z.infer<typeof cancelAttributionSchema>;
