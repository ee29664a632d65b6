/**
 * The annotation protocol of SymFail (the annotation protocol spec; seeds/000 §4.3 and
 * Appendix B): roles, the C1–C4 categories with their operational meaning and repair signal,
 * confidence levels, and the strict tuple.
 */

export const ROLES = ["admin", "annotator", "adjudicator", "researcher"] as const;
export type Role = (typeof ROLES)[number];

export const CATEGORIES = ["C1", "C2", "C3", "C4"] as const;
export type Category = (typeof CATEGORIES)[number];

export const CATEGORY_INFO: Record<Category, { name: string; meaning: string; repair: string }> = {
  C1: {
    name: "Task-constraint violation",
    meaning: "Behavior conflicts with an explicit task constraint or output requirement.",
    repair: "Name the constraint and the conflicting behavior; request a compliant alternative.",
  },
  C2: {
    name: "Repeated or stalled progress",
    meaning: "History repeats while the objective stays unfinished.",
    repair: "Show the repeated history and the unfinished objective; request an action that makes progress.",
  },
  C3: {
    name: "Unresolved runtime condition",
    meaning: "The node contains or continues from an unresolved execution, access or upstream condition.",
    repair: "Show the unresolved condition and its evidence; require resolution before continuing.",
  },
  C4: {
    name: "Plan–action–outcome inconsistency",
    meaning: "An explicit plan or claim conflicts with the executed action or observed outcome.",
    repair: "Show plan, action and outcome; request a decision that resolves the inconsistency.",
  },
};

/** The C2 vs C3 decision rule (annotation-protocol.md). */
export const C2_C3_RULE =
  "C2 requires repeated or semantically equivalent behavior after the trace has shown that the current plan cannot succeed. " +
  "A first failed action, one justified retry, a retry with new parameters or evidence, or a substantive refinement is not C2. " +
  "An unresolved dependency without repetition is C3.";

/** Node choice rule: the earliest actionable node connected to the failure. */
export const NODE_RULE =
  "Pick the earliest trace-supported node at which an error is both actionable and connected to the failure: agent_action when an agent decision commits it; " +
  "tool_call when an erroneous or unjustified invocation commits it; tool_result when a returned result or execution failure first becomes a decisive unhandled state; " +
  "final_result when the error is introduced, or becomes decidable, only in the final response. Later repetitions never replace the earliest node.";

export const CONFIDENCE = ["high", "medium", "low"] as const;
export type Confidence = (typeof CONFIDENCE)[number];
export const CONFIDENCE_INFO: Record<Confidence, string> = {
  high: "Direct support and no comparable alternative.",
  medium: "A plausible alternative exists.",
  low: "Insufficient evidence.",
};

/** Parse the comma-separated roles column. Unknown names are dropped. */
export function parseRoles(s: string | null | undefined): Role[] {
  return (s ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter((r): r is Role => (ROLES as readonly string[]).includes(r));
}

/** Canonical stored form of a category set: sorted, comma-separated, no duplicates. */
export function formatCategories(cats: readonly string[]): string {
  return [...new Set(cats)].sort().join(",");
}

export function parseCategories(s: string | null | undefined): Category[] {
  return (s ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter((c): c is Category => (CATEGORIES as readonly string[]).includes(c));
}

/** The strict tuple (exact category set, primary, node id, node type). */
export interface StrictTuple {
  categories: Category[];
  primary: Category | null;
  nodeId: string | null;
  nodeType: string | null;
}

/** A string key of a strict tuple: equal keys ⇔ equal tuples. */
export function tupleKey(t: StrictTuple): string {
  return [formatCategories(t.categories), t.primary ?? "", t.nodeId ?? "", t.nodeType ?? ""].join("|");
}
