/**
 * Repair guidance Δ for "replay from here", prefilled from an annotation: the repair signal of
 * each chosen category (annotation-protocol.md, Categories table; seeds/000 Table 1), anchored at
 * the annotated node, with the annotator's rationale. The user edits it before running.
 */
import { CATEGORY_INFO, type Category } from "./protocol";

export interface GuidanceSource {
  categories: Category[];
  primary: Category | null;
  nodeId: string | null;
  nodeType: string | null;
  rationale: string;
  /** The proposed correction a* at the annotated node (issue 14), when written. */
  correction?: string | null;
}

/**
 * @param a the final annotation (or the viewer's own), or null
 * @param targetNodeId the node the replay starts from
 * @returns guidance text: primary category first, then the others; a generic prompt without an
 *   annotation. When the annotation proposes a correction and the replay starts at the annotated
 *   node, the correction is the guidance's first instruction ("Instead of the original step at
 *   <node>, do this: …"), followed by the category signals.
 */
export function guidanceFromAnnotation(a: GuidanceSource | null, targetNodeId: string): string {
  if (!a || a.categories.length === 0) {
    return `Before continuing from ${targetNodeId}, re-check the task's requirements and the evidence gathered so far, and choose an action that makes progress toward a correct final answer.`;
  }
  const order = [a.primary, ...a.categories.filter((c) => c !== a.primary)].filter((c): c is Category => !!c);
  const where = a.nodeId ? ` at ${a.nodeId}${a.nodeType ? ` (${a.nodeType})` : ""}` : "";
  const lines = order.map((c) => `- ${CATEGORY_INFO[c].name} (${c})${where}: ${CATEGORY_INFO[c].repair}`);
  const why = a.rationale.trim() ? `\nObserved: ${a.rationale.trim()}` : "";
  const fix = a.correction?.trim() && a.nodeId === targetNodeId ? `\nProposed correction at ${a.nodeId}: instead of the original step, do this:\n${a.correction.trim()}` : "";
  return `A reviewer found a problem in this run.${why}${fix}\n${lines.join("\n")}\nTake this into account in your next step.`;
}
