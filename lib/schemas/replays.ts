/** Zod schemas of the replay API, shared by routes and the dialog. */
import { z } from "zod";

export const createReplaysSchema = z.object({
  targetNodeId: z.string().min(1, "choose the node to replay from").max(500),
  guidance: z.string().max(20_000),
  count: z.number().int().min(1, "between 1 and 5 replays").max(5, "between 1 and 5 replays"),
});
export type CreateReplaysInput = z.infer<typeof createReplaysSchema>;
