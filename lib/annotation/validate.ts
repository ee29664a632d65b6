/**
 * Validation of an annotation (initial or final) against its case's graph, exactly as the
 * protocol states it (annotation-protocol.md, "One annotation"). Field-level messages, all at
 * once. Pure: the caller supplies the graph lookups.
 */
import { z } from "zod";
import { CATEGORIES, CONFIDENCE } from "./protocol";
import { duplicateOf, quoteExcerpt, quoteOccursIn } from "./evidence";

/** The editable fields of an annotation (a draft may leave any empty). */
export const annotationFieldsSchema = z.object({
  categories: z.array(z.enum(CATEGORIES)).max(4),
  primary: z.enum(CATEGORIES).nullable(),
  nodeId: z.string().min(1).max(500).nullable(),
  nodeType: z.string().max(50).nullable(),
  confidence: z.enum(CONFIDENCE).nullable(),
  rationale: z.string().max(20_000),
  evidence: z
    .array(z.object({ nodeId: z.string().min(1).max(500), quote: z.string().min(1, "quote must not be empty").max(5_000) }))
    .max(50),
  /**
   * Proposed correction a* (issue 14; seeds/004 §2.1 "proposed replacement action"): the
   * replacement action or message at the chosen node, free text; optional ("" or absent = none).
   * Shown to the adjudicator, prefilled as replay guidance, exported in AED records.
   */
  correction: z.string().max(20_000).optional(),
});
export type AnnotationFields = z.infer<typeof annotationFieldsSchema>;

export const emptyAnnotationFields = (): AnnotationFields => ({
  categories: [],
  primary: null,
  nodeId: null,
  nodeType: null,
  confidence: null,
  rationale: "",
  evidence: [],
  correction: "",
});

export interface FieldError {
  /** Field path, e.g. "primary", "evidence[1].quote". */
  field: string;
  message: string;
}

export interface GraphLookup {
  /** Node type of a node id, or undefined when the graph has no such node. */
  nodeType(nodeId: string): string | undefined;
  /** Node content (any JSON), for quote checks. */
  nodeContent(nodeId: string): unknown;
}

/**
 * Check an annotation for submission.
 * @returns [] when it may be submitted, else one FieldError per problem:
 *   categories empty; primary missing or not in categories; node missing or not in the graph;
 *   node type not the graph node's type; confidence missing; rationale empty; an evidence node
 *   not in the graph, a quote not found in that node's content (quoteOccursIn, evidence.ts), or
 *   a quote repeating an earlier one of the same node.
 */
export function validateForSubmit(f: AnnotationFields, g: GraphLookup): FieldError[] {
  const errors: FieldError[] = [];
  if (f.categories.length === 0) errors.push({ field: "categories", message: "Choose at least one category (C1–C4)." });
  if (!f.primary) errors.push({ field: "primary", message: "Choose a primary category." });
  else if (!f.categories.includes(f.primary))
    errors.push({ field: "primary", message: `Primary category ${f.primary} must be one of the chosen categories (${f.categories.join(", ") || "none"}).` });
  if (!f.nodeId) errors.push({ field: "nodeId", message: "Pick the failure node in the graph or timeline." });
  else {
    const t = g.nodeType(f.nodeId);
    if (t === undefined) errors.push({ field: "nodeId", message: `Node "${f.nodeId}" is not in this case's graph.` });
    else if (!f.nodeType) errors.push({ field: "nodeType", message: "Node type is missing." });
    else if (f.nodeType !== t) errors.push({ field: "nodeType", message: `Node type "${f.nodeType}" does not match the graph: "${f.nodeId}" is ${t}.` });
  }
  if (!f.confidence) errors.push({ field: "confidence", message: "Choose a confidence (high, medium or low)." });
  if (!f.rationale.trim()) errors.push({ field: "rationale", message: "Write a rationale." });
  f.evidence.forEach((e, i) => {
    if (g.nodeType(e.nodeId) === undefined) errors.push({ field: `evidence[${i}].nodeId`, message: `Evidence node "${e.nodeId}" is not in this case's graph.` });
    else if (!quoteOccursIn(g.nodeContent(e.nodeId), e.quote))
      errors.push({
        field: `evidence[${i}].quote`,
        message: `Quote not found in node "${e.nodeId}": ${quoteExcerpt(e.quote)} (a quote must be text from one value of the node's content; line breaks, no-break spaces, whitespace runs and Unicode composition are compared as the help next to the quote button says).`,
      });
    else {
      const j = duplicateOf(f.evidence, i);
      if (j >= 0) errors.push({ field: `evidence[${i}].quote`, message: `Evidence ${i + 1} repeats evidence ${j + 1} (same node "${e.nodeId}", same quote ${quoteExcerpt(e.quote)}): remove one.` });
    }
  });
  return errors;
}

/**
 * Check a draft: only what can already be wrong (a chosen node must exist and match its type;
 * primary, if set, must be among the categories when categories are set).
 */
export function validateDraft(f: AnnotationFields, g: GraphLookup): FieldError[] {
  const errors: FieldError[] = [];
  if (f.nodeId) {
    const t = g.nodeType(f.nodeId);
    if (t === undefined) errors.push({ field: "nodeId", message: `Node "${f.nodeId}" is not in this case's graph.` });
    else if (f.nodeType && f.nodeType !== t) errors.push({ field: "nodeType", message: `Node type "${f.nodeType}" does not match the graph: "${f.nodeId}" is ${t}.` });
  }
  return errors;
}
