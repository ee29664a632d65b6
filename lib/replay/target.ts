/**
 * Target mapping: where an intervention on a node can act (seeds/000 Appendix A.2: selective mode
 * stops before a designated LLM event v_k). Rule:
 *   1. the target's own llm record, if it has one (an llm_call, or an agent_action carrying the
 *      llm record);
 *   2. else the first llm record whose node is at or after the target in the observed order
 *      (e.g. a tool_result maps to the next LLM call that consumes it; an agent_action produced by
 *      an llm_call maps to the NEXT llm call, since its own call is already before it).
 * A target with no llm record at or after it (a final_result, a trailing tool_result) cannot be
 * intervened on: `resolveTarget` throws.
 */
import type { ReplayBundle } from "../bundle";

/** A resolved target. */
export interface TargetResolution {
  /** The node the user asked for. */
  requestedNodeId: string;
  /** The llm record node where the guidance is applied and the run goes live. */
  boundaryNodeId: string;
  /** seq of that record. */
  seq: number;
  /** True when the boundary is the requested node itself. */
  exact: boolean;
  /** How it was chosen, in words. */
  rule: string;
}

/** Thrown for a target that does not exist or has no LLM boundary at or after it. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetError";
  }
}

/**
 * Map a node id to the LLM boundary where an intervention can act (rule in the module doc).
 * @throws TargetError when the node is unknown or no llm record is at or after it
 */
export function resolveTarget(bundle: ReplayBundle, nodeId: string): TargetResolution {
  const pos = bundle.order.indexOf(nodeId);
  if (pos < 0 || !bundle.graph.nodes.some((n) => n.id === nodeId)) {
    throw new TargetError(`target "${nodeId}" is not a node of bundle "${bundle.id}"`);
  }
  const own = bundle.records.find((r) => r.nodeId === nodeId && r.boundary === "llm");
  if (own) {
    return { requestedNodeId: nodeId, boundaryNodeId: nodeId, seq: own.seq, exact: true, rule: "the target's own llm record" };
  }
  const posOf = new Map(bundle.order.map((id, i) => [id, i]));
  for (const r of bundle.records) {
    if (r.boundary === "llm" && (posOf.get(r.nodeId) ?? -1) >= pos) {
      return {
        requestedNodeId: nodeId,
        boundaryNodeId: r.nodeId,
        seq: r.seq,
        exact: false,
        rule: `"${nodeId}" has no llm record; the first llm record at or after it in the observed order is seq ${r.seq} (${r.nodeId})`,
      };
    }
  }
  throw new TargetError(`no LLM boundary at or after "${nodeId}" in the observed order: an intervention cannot act there (pick an earlier node)`);
}

/**
 * Where a proposed correction REPLACES a node's output (substitution, issue 14 item 4; the matched
 * control re-executes the same boundary): the LLM boundary whose response is, or produced, the node.
 *   1. the node's own llm record (an llm_call);
 *   2. an agent_action or tool_call with a data edge from an llm record's node (the call whose
 *      response it materializes): that record, so the prefix ends right before the call and the
 *      correction stands in for the node itself;
 *   3. otherwise (a tool_result, a message …) the {@link resolveTarget} rule: the next LLM call,
 *      whose response is the action taken in reply to the node.
 * @throws TargetError when the node is unknown or no llm record is at or after it
 */
export function resolveOutputTarget(bundle: ReplayBundle, nodeId: string): TargetResolution {
  const node = bundle.graph.nodes.find((n) => n.id === nodeId);
  if (!node || !bundle.order.includes(nodeId)) throw new TargetError(`target "${nodeId}" is not a node of bundle "${bundle.id}"`);
  if (node.type === "agent_action" || node.type === "tool_call") {
    const from = new Set(bundle.graph.edges.filter((e) => e.to === nodeId && e.kind === "data").map((e) => e.from));
    const producer = bundle.records.filter((r) => r.boundary === "llm" && from.has(r.nodeId)).at(-1);
    if (producer) {
      return { requestedNodeId: nodeId, boundaryNodeId: producer.nodeId, seq: producer.seq, exact: false, rule: `"${nodeId}" is the output of the llm call seq ${producer.seq} (${producer.nodeId}): the replay stops before that call and its response is replaced` };
    }
  }
  return resolveTarget(bundle, nodeId);
}
