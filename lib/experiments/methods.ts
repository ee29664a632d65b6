/**
 * Method names, levels and display labels of repair experiments (issue 13 item 2; design-13
 * "Method names"). Plain constants so the pure statistics and the page agree without importing
 * the runner (lib/services/experiments/methods owns the implementations).
 */
import type { MethodLevel } from "./types";

/** Task-level methods: up to k complete attempts, stop at the first pass (seeds/000 §5.3). */
export const TASK_LEVEL_METHODS: readonly string[] = ["rerun", "self-reflection", "critic"];

/**
 * Display labels (the paper's names; the controls Node Resample and Generic Nudge are ours; the
 * matched-control pair of issue 14 — Proposed Correction substituted at the annotated node vs
 * Correction Control re-executing the original request there — feeds the AED evidence grade).
 */
export const METHOD_LABELS: Readonly<Record<string, string>> = {
  rerun: "Unguided Full Rerun",
  "self-reflection": "Self-Reflection",
  critic: "Critic-Agent",
  "suspicious-node": "Suspicious-Node",
  "annotated-node": "Annotated-Node",
  "random-node": "Random-Node",
  "last-node": "Last-Node",
  "node-resample": "Node Resample",
  nudge: "Generic Nudge",
  correction: "Proposed Correction",
  "correction-control": "Correction Control",
};

/**
 * Matched controls (issue 14 item 4): treatment → its control from the same prefix and boundary.
 * When both run, the default comparisons test the treatment against its control (not the control
 * against the baseline).
 */
export const MATCHED_CONTROLS: Readonly<Record<string, string>> = { correction: "correction-control" };

/** The label of a method name, or the name itself when unknown. */
export function methodLabel(name: string): string {
  return METHOD_LABELS[name] ?? name;
}

/** Level of a method: "task" for {@link TASK_LEVEL_METHODS}, else "node"; `override` wins. */
export function methodLevel(name: string, override?: Record<string, MethodLevel>): MethodLevel {
  return override?.[name] ?? (TASK_LEVEL_METHODS.includes(name) ? "task" : "node");
}
