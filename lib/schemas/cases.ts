/** Zod schemas shared by the case routes, forms and e2e tests. */
import { z } from "zod";

const one = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (Array.isArray(v) ? v[0] : v)?.trim() || undefined);

/**
 * `/cases?q=&benchmark=&mas=&dataset=&generated=1&parent=<bundle id>&cursor=&size=&from=` (issue 22
 * item 3: `cursor` from the previous page, `size` rows per page, `from` the first row's number,
 * for display; `generated=1` includes generated cases, `parent` lists one case's).
 */
export const caseListQuerySchema = z.object({ q: one, benchmark: one, mas: one, dataset: one, generated: one, parent: one, cursor: one, size: one, from: one });
export type CaseListQuery = z.infer<typeof caseListQuerySchema>;

/** `/cases/<bundleId>?node=<nodeId>[&finalized=1]` (finalized=1: just finalized, show the confirmation) */
export const casePageQuerySchema = z.object({ node: one, finalized: one });
