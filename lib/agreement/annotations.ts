/**
 * Reader of `symtrace.annotations/v1` files (fixtures/agreement/synthetic-60.annotations.json,
 * fixtures/bundles/gold-annotations.json; annotation-protocol.md "One annotation").
 *
 * ```
 * { "format": "symtrace.annotations/v1", "about"?: string,
 *   "cases": [ { "caseId": string,
 *                "initial": [ { "annotator", "categories", "primary", "nodeId", "nodeType", "confidence"?, "rationale"?, "evidence"?, "correction"? } ],
 *                "final"?: { "categories", "primary", "nodeId", "nodeType", "confidence"?, "rationale"?, "evidence"? } | null } ] }
 * ```
 * Objects are strict: an unknown key (a typo such as `nodeID`) is an error with its JSON path.
 */
import { formatJsonPath } from "../bundle";
import { z } from "zod";
// json-text only (no node:crypto), so the reader also runs in a browser bundle.
import { parseJsonText } from "../bundle/json-text";

export const ANNOTATIONS_FORMAT = "symtrace.annotations/v1";
import { CATEGORIES, type Category } from "../annotation/protocol";
export { CATEGORIES, type Category };
/** Node types the protocol names; a graph may carry others, so nodeType is any non-empty string. */
export const PROTOCOL_NODE_TYPES = ["agent_action", "tool_call", "tool_result", "final_result"] as const;

const categorySchema = z.enum(CATEGORIES);
const evidenceSchema = z.strictObject({ nodeId: z.string().min(1), quote: z.string().min(1) });

const annotationFields = {
  categories: z
    .array(categorySchema)
    .min(1, "categories: a non-empty subset of C1..C4")
    .refine((c) => new Set(c).size === c.length, "categories: each category at most once"),
  primary: categorySchema,
  nodeId: z.string().min(1),
  nodeType: z.string().min(1),
  confidence: z.enum(["high", "medium", "low"]).optional(),
  rationale: z.string().optional(),
  evidence: z.array(evidenceSchema).optional(),
  /** Proposed correction a* at the node (issue 14), free text; not used by the statistics. */
  correction: z.string().optional(),
};

function primaryInCategories(a: { categories: string[]; primary: string }, ctx: z.RefinementCtx): void {
  if (!a.categories.includes(a.primary)) {
    ctx.addIssue({ code: "custom", path: ["primary"], message: `primary ${a.primary} is not one of categories [${a.categories.join(", ")}]` });
  }
}

export const initialAnnotationSchema = z.strictObject({ annotator: z.string().min(1), ...annotationFields }).superRefine(primaryInCategories);
export const finalAnnotationSchema = z.strictObject({ adjudicator: z.string().min(1).optional(), ...annotationFields }).superRefine(primaryInCategories);

export const annotatedCaseSchema = z
  .strictObject({
    caseId: z.string().min(1),
    initial: z.array(initialAnnotationSchema),
    final: finalAnnotationSchema.nullable().optional(),
  })
  .superRefine((c, ctx) => {
    const seen = new Map<string, number>();
    c.initial.forEach((a, j) => {
      const first = seen.get(a.annotator);
      if (first !== undefined) ctx.addIssue({ code: "custom", path: ["initial", j, "annotator"], message: `annotator ${a.annotator} already annotated this case (initial[${first}])` });
      else seen.set(a.annotator, j);
    });
  });

export const annotationsFileSchema = z
  .strictObject({
    format: z.literal(ANNOTATIONS_FORMAT),
    about: z.string().optional(),
    cases: z.array(annotatedCaseSchema),
  })
  .superRefine((f, ctx) => {
    const seen = new Map<string, number>();
    f.cases.forEach((c, i) => {
      const first = seen.get(c.caseId);
      if (first !== undefined) ctx.addIssue({ code: "custom", path: ["cases", i, "caseId"], message: `duplicate caseId ${c.caseId} (first at $.cases[${first}])` });
      else seen.set(c.caseId, i);
    });
  });

export type InitialAnnotation = z.infer<typeof initialAnnotationSchema>;
export type FinalAnnotation = z.infer<typeof finalAnnotationSchema>;
export type AnnotatedCase = z.infer<typeof annotatedCaseSchema>;
export type AnnotationsFile = z.infer<typeof annotationsFileSchema>;

export interface PathError {
  /** JSON path, e.g. `$.cases[3].initial[1].primary`. */
  path: string;
  message: string;
}

export type ReadAnnotationsResult = { ok: true; file: AnnotationsFile } | { ok: false; errors: PathError[] };

/**
 * Validate a parsed JSON value as a `symtrace.annotations/v1` file.
 * @returns the typed file, or every violation with its JSON path (never throws)
 */
export function validateAnnotations(value: unknown): ReadAnnotationsResult {
  const r = annotationsFileSchema.safeParse(value);
  if (r.success) return { ok: true, file: r.data };
  const errors = r.error.issues.map((i) => ({ path: formatJsonPath(i.path), message: i.message }));
  // zod skips the file-level refinement (duplicate caseIds) once an inner issue exists: repeat it
  // on the raw value so one run reports every problem.
  const seen = new Set(errors.map((e) => `${e.path}\n${e.message}`));
  const raw = (value as { cases?: unknown } | null)?.cases;
  if (Array.isArray(raw)) {
    const first = new Map<string, number>();
    raw.forEach((c, i) => {
      const id = (c as { caseId?: unknown } | null)?.caseId;
      if (typeof id !== "string") return;
      const f = first.get(id);
      if (f === undefined) return void first.set(id, i);
      const e = { path: `$.cases[${i}].caseId`, message: `duplicate caseId ${id} (first at $.cases[${f}])` };
      if (!seen.has(`${e.path}\n${e.message}`)) errors.push(e);
    });
  }
  return { ok: false, errors };
}

/**
 * Parse and validate the text of a `symtrace.annotations/v1` file.
 * @returns as {@link validateAnnotations}; text that is not JSON gives one error at `$` naming line and column
 */
export function readAnnotations(text: string): ReadAnnotationsResult {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (e) {
    return { ok: false, errors: [{ path: "$", message: e instanceof Error ? e.message : String(e) }] };
  }
  return validateAnnotations(value);
}
