/**
 * Zod schema of the replay bundle `symtrace.bundle/v1` (the bundle v1 spec;
 * seeds/000 §3.1 and Appendix A: S = ⟨T, s0, c, G, O, R⟩).
 *
 * Every object schema is *loose*: unknown keys are kept on parse so that a bundle
 * survives an import → export round trip byte-for-byte up to canonical form.
 */
import { z } from "zod";

export const BUNDLE_FORMAT = "symtrace.bundle/v1" as const;

export const NODE_TYPES = [
  "agent_action",
  "llm_call",
  "tool_call",
  "tool_result",
  "message",
  "final_result",
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const NODE_STATUSES = ["success", "failed", "error", "timeout", "timed_out"] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

/** The node statuses that count as a failure (red in the inspector, the failed flag of the graph index). */
export const FAILED_NODE_STATUSES: ReadonlySet<string> = new Set(["failed", "error", "timeout", "timed_out"]);

/** Whether a node's status counts as a failure ({@link FAILED_NODE_STATUSES}). */
export function isFailedStatus(status: string | null | undefined): boolean {
  return !!status && FAILED_NODE_STATUSES.has(status);
}

export const EDGE_KINDS = ["data", "control"] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export const BOUNDARIES = ["llm", "tool"] as const;
export type Boundary = (typeof BOUNDARIES)[number];

const hashString = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'must look like "sha256:<64 lowercase hex>"');

export const nodeErrorSchema = z.looseObject({
  type: z.string().optional(),
  message: z.string().optional(),
});

export const bundleNodeSchema = z.looseObject({
  id: z.string().min(1, "node id must be a non-empty string"),
  type: z.enum(NODE_TYPES),
  agent: z.string().nullish(),
  label: z.string().nullish(),
  content: z.unknown().refine((v) => v !== undefined, "content is required (any JSON, may be null)"),
  contentHash: hashString,
  status: z.enum(NODE_STATUSES).nullish(),
  error: nodeErrorSchema.nullish(),
});

export const bundleEdgeSchema = z.looseObject({
  from: z.string().min(1),
  to: z.string().min(1),
  kind: z.enum(EDGE_KINDS),
});

export const boundaryRecordSchema = z.looseObject({
  seq: z.number().int().nonnegative(),
  nodeId: z.string().min(1),
  boundary: z.enum(BOUNDARIES),
  request: z.unknown().refine((v) => v !== undefined, "request is required"),
  requestHash: hashString,
  response: z.unknown(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

export const taskSchema = z.looseObject({
  id: z.string().nullish(),
  benchmark: z.string().nullish(),
  split: z.string().nullish(),
  prompt: z.string(),
  startUrls: z.array(z.string()).nullish(),
  /** Evaluator-only: never shown to annotators, never sent to a model. */
  reference: z.unknown().optional(),
});

export const configSchema = z.looseObject({
  mas: z.string().nullish(),
  masVersion: z.string().nullish(),
  model: z.string().nullish(),
  temperature: z.number().nullish(),
  runner: z
    .looseObject({
      /** The registered runner that replays this bundle (issue 10): the only part a server acts on. */
      name: z.string().optional(),
      /** The command the run was recorded with: informational, never executed by the app. */
      command: z.array(z.string()),
      env: z.record(z.string(), z.string()).optional(),
    })
    .nullish(),
  replay: z.looseObject({ normalization: z.string().optional() }).nullish(),
});

export const parentSchema = z.looseObject({
  bundleId: z.string(),
  targetNodeId: z.string(),
  guidance: z.string(),
  mode: z.string(),
});

export const outcomeSchema = z.looseObject({
  passed: z.boolean().nullish(),
  evaluator: z.string().nullish(),
  details: z.unknown().optional(),
});

export const bundleSchema = z.looseObject({
  format: z.literal(BUNDLE_FORMAT),
  id: z.string().min(1),
  parent: parentSchema.nullish(),
  task: taskSchema,
  initialState: z.unknown(),
  config: configSchema,
  graph: z.looseObject({
    nodes: z.array(bundleNodeSchema),
    edges: z.array(bundleEdgeSchema),
  }),
  order: z.array(z.string()),
  records: z.array(boundaryRecordSchema),
  outcome: outcomeSchema.nullish(),
});

export type BundleNode = z.infer<typeof bundleNodeSchema>;
export type BundleEdge = z.infer<typeof bundleEdgeSchema>;
export type BoundaryRecord = z.infer<typeof boundaryRecordSchema>;
export type ReplayBundle = z.infer<typeof bundleSchema>;
export type BundleTask = z.infer<typeof taskSchema>;
