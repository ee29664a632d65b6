/**
 * The published figures the study is anchored to: Zhang et al., ICML 2025 ("Which Agent Causes
 * Task Failures and When?", arXiv 2505.00212), Table 1, GPT-4o, with ground truth — as copied in
 * the who_and_when_full dataset notes (SOURCE.md). Percentages (agent-level / step-level accuracy).
 * The paper reports no "Last" baseline and no figure for the SymTrace detector.
 */
import type { AttributorName, Subset } from "./types";

export interface PublishedFigure {
  agent: number;
  step: number;
  /** Where the figure comes from. */
  source: string;
}

const SRC = "Zhang et al. 2025, Table 1 (GPT-4o, with ground truth), via who_and_when_full/SOURCE.md";

export const PUBLISHED: Partial<Record<AttributorName, Record<Subset, PublishedFigure>>> = {
  random: { "Hand-Crafted": { agent: 12.0, step: 4.16, source: SRC }, "Algorithm-Generated": { agent: 29.1, step: 19.06, source: SRC } },
  "all-at-once": { "Hand-Crafted": { agent: 55.17, step: 5.26, source: SRC }, "Algorithm-Generated": { agent: 54.33, step: 12.5, source: SRC } },
  "step-by-step": { "Hand-Crafted": { agent: 34.48, step: 7.02, source: SRC }, "Algorithm-Generated": { agent: 35.2, step: 25.51, source: SRC } },
  "binary-search": { "Hand-Crafted": { agent: 51.72, step: 6.9, source: SRC }, "Algorithm-Generated": { agent: 44.13, step: 23.98, source: SRC } },
};

/** Later published methods (SOURCE.md): best reported, for the reader's orientation only. */
export const LATER_BEST = "later methods report up to about 69% agent / 21% step (Hand-Crafted) and 47% step (Algorithm-Generated)";
