/**
 * Train / validation / test split by source task (seeds/004 §2.5: splits by source task, so one
 * task never lands in two splits). Pure and deterministic: a task's split is a function of the
 * task key and the seed only — u = first 48 bits of sha256("<seed>\0<task key>") / 2^48, then
 * train when u < train, validation when u < train + validation, else test. Adding or removing
 * other tasks never moves a task; every row of a task (its diagnoses, replay branches,
 * preference pairs) shares the task's split by construction.
 */
import { createHash } from "node:crypto";

export const SPLITS = ["train", "validation", "test"] as const;
export type Split = (typeof SPLITS)[number];

export interface SplitOptions {
  /** Any integer or string; the default 0 keeps releases comparable. */
  seed?: number | string;
  /** Fractions of train and validation (test = the rest); defaults 0.8 / 0.1. */
  train?: number;
  validation?: number;
}

/** The defaults: seed 0, 80 % / 10 % / 10 %. */
export const DEFAULT_SPLIT = { seed: 0, train: 0.8, validation: 0.1 } as const;

/**
 * The split of one source task.
 * @param taskKey the source task id (`task.id`; the bundle id when a bundle has none)
 * @throws Error when the fractions are outside [0, 1] or sum above 1
 */
export function splitOf(taskKey: string, o: SplitOptions = {}): Split {
  const train = o.train ?? DEFAULT_SPLIT.train;
  const validation = o.validation ?? DEFAULT_SPLIT.validation;
  if (!(train >= 0 && validation >= 0 && train + validation <= 1 + 1e-12)) throw new Error(`split fractions must lie in [0, 1] and sum to at most 1 (train ${train}, validation ${validation})`);
  const h = createHash("sha256").update(`${o.seed ?? DEFAULT_SPLIT.seed}\u0000${taskKey}`).digest();
  const u = h.readUIntBE(0, 6) / 2 ** 48;
  return u < train ? "train" : u < train + validation ? "validation" : "test";
}

/** The split key of a case: its task id, or its bundle id when it has none. */
export const taskKeyOf = (c: { taskId?: string | null; bundleId: string }): string => c.taskId || c.bundleId;
