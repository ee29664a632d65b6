/** Zod schemas shared by the case routes, forms and e2e tests. */
import { z } from "zod";

const one = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (Array.isArray(v) ? v[0] : v)?.trim() || undefined);

/** `/cases?q=&benchmark=&mas=&dataset=` */
export const caseListQuerySchema = z.object({ q: one, benchmark: one, mas: one, dataset: one });
export type CaseListQuery = z.infer<typeof caseListQuerySchema>;

/** `/cases/<bundleId>?node=<nodeId>[&finalized=1]` (finalized=1: just finalized, show the confirmation) */
export const casePageQuerySchema = z.object({ node: one, finalized: one });
