/** Zod schemas of the annotation API, shared by routes, forms and e2e tests. */
import { z } from "zod";
import { annotationFieldsSchema } from "../annotation";

export const saveAnnotationSchema = z.object({
  kind: z.enum(["initial", "final"]),
  version: z.number().int().nonnegative(),
  fields: annotationFieldsSchema,
});
export type SaveAnnotationInput = z.infer<typeof saveAnnotationSchema>;

export const submitAnnotationSchema = z.object({ version: z.number().int().nonnegative() });
export const finalizeSchema = z.object({ fields: annotationFieldsSchema });
export const reopenSchema = z.object({ reason: z.string().min(1, "Say why it is reopened.").max(2000) });
export const assignSchema = z.object({
  caseIds: z.array(z.string().min(1)).optional(),
  filter: z.object({ dataset: z.string().optional(), mas: z.string().optional(), benchmark: z.string().optional(), q: z.string().optional() }).optional(),
  // Default: the number of annotatorIds when given, else 3 (see assignCases).
  perCase: z.number().int().min(1).max(10).optional(),
  annotatorIds: z.array(z.string()).optional(),
  adjudicatorId: z.string().nullable().optional(),
});
export type AssignInput = z.infer<typeof assignSchema>;
