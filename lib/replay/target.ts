/**
 * Target mapping: where an intervention on a node can act (seeds/000 Appendix A.2: selective mode
 * stops before a designated LLM event v_k). Rule:
 *   1. the target's own llm record, if it has one (an llm_call, or an agent_action carrying the
 *      llm record, as in the paper's bundles: /work/shared/spec/bundle-v1.md rule 6);
 *   2. an agent_action without its own llm record whose producing llm call is known (a data edge
 *      from an llm record's node into it, as our recorder writes it): that call. An agent_action
 *      IS the output of its LLM boundary, so targeting it means regenerating that action with the
 *      guidance: the replay stops before the producing call and that call goes live with q ⊕ Δ;
 *   3. else the first llm record whose node is at or after the target in the observed order
 *      (a tool_result maps to the next LLM call that consumes it, a tool_call or message likewise;
 *      an agent_action with no producing llm record, e.g. in an imported transcript, too).
 * A target with no llm record at or after it (a final_result, a trailing tool_result) cannot be
 * intervened on: `resolveTarget` throws.
 */
import type { BoundaryRecord, BundleNode, ReplayBundle } from "../bundle";

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
 * The llm record that produced a node: among the llm records whose node has a data edge into
 * `nodeId`, the last one in record order; undefined when there is none. The one producer rule of
 * {@link resolveTarget} (agent_action) and {@link resolveOutputTarget} (agent_action, tool_call).
 */
export function producingLlmRecord(bundle: ReplayBundle, nodeId: string): BoundaryRecord | undefined {
  const from = new Set<string>();
  for (const e of bundle.graph.edges) if (e.to === nodeId && e.kind === "data") from.add(e.from);
  if (from.size === 0) return undefined;
  return bundle.records.filter((r) => r.boundary === "llm" && from.has(r.nodeId)).at(-1);
}

/**
 * {@link producingLlmRecord} for every node at once (O(edges + records)): node id → producing llm
 * record, for the nodes that have one. For callers that map all nodes (lib/symptoms scan).
 */
export function producingLlmRecords(bundle: ReplayBundle): Map<string, BoundaryRecord> {
  const lastLlm = new Map<string, number>(); // node id → index of its last llm record
  bundle.records.forEach((r, i) => {
    if (r.boundary === "llm") lastLlm.set(r.nodeId, i);
  });
  const best = new Map<string, number>();
  for (const e of bundle.graph.edges) {
    if (e.kind !== "data") continue;
    const i = lastLlm.get(e.from);
    if (i !== undefined && i > (best.get(e.to) ?? -1)) best.set(e.to, i);
  }
  return new Map([...best].map(([id, i]) => [id, bundle.records[i]]));
}

function nodeOf(bundle: ReplayBundle, nodeId: string): BundleNode {
  const node = bundle.graph.nodes.find((n) => n.id === nodeId);
  if (!node || !bundle.order.includes(nodeId)) throw new TargetError(`target "${nodeId}" is not a node of bundle "${bundle.id}"`);
  return node;
}

/**
 * Map a node id to the LLM boundary where an intervention can act (rule in the module doc).
 * @throws TargetError when the node is unknown or no llm record is at or after it
 */
export function resolveTarget(bundle: ReplayBundle, nodeId: string): TargetResolution {
  const node = nodeOf(bundle, nodeId);
  const own = bundle.records.find((r) => r.nodeId === nodeId && r.boundary === "llm");
  if (own) {
    return { requestedNodeId: nodeId, boundaryNodeId: nodeId, seq: own.seq, exact: true, rule: "the target's own llm record" };
  }
  if (node.type === "agent_action") {
    const producer = producingLlmRecord(bundle, nodeId);
    if (producer) {
      return {
        requestedNodeId: nodeId,
        boundaryNodeId: producer.nodeId,
        seq: producer.seq,
        exact: false,
        rule: `"${nodeId}" is the output of the llm call seq ${producer.seq} (${producer.nodeId}): guidance is applied to that call, which regenerates it`,
      };
    }
  }
  const pos = bundle.order.indexOf(nodeId);
  const posOf = new Map(bundle.order.map((id, i) => [id, i]));
  for (const r of bundle.records) {
    if (r.boundary === "llm" && (posOf.get(r.nodeId) ?? -1) >= pos) {
      return {
        requestedNodeId: nodeId,
        boundaryNodeId: r.nodeId,
        seq: r.seq,
        exact: false,
        rule: `"${nodeId}" has no llm record${node.type === "agent_action" ? " and no producing llm call" : ""}; the first llm record at or after it in the observed order is seq ${r.seq} (${r.nodeId})`,
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
 *      response it materializes, {@link producingLlmRecord}): that record, so the prefix ends right
 *      before the call and the correction stands in for the node itself (for an agent_action the
 *      same boundary as {@link resolveTarget}, only the rule text speaks of replacing);
 *   3. otherwise (a tool_result, a message …) the {@link resolveTarget} rule: the next LLM call,
 *      whose response is the action taken in reply to the node.
 * @throws TargetError when the node is unknown or no llm record is at or after it
 */
export function resolveOutputTarget(bundle: ReplayBundle, nodeId: string): TargetResolution {
  const node = nodeOf(bundle, nodeId);
  if ((node.type === "agent_action" || node.type === "tool_call") && !bundle.records.some((r) => r.nodeId === nodeId && r.boundary === "llm")) {
    const producer = producingLlmRecord(bundle, nodeId);
    if (producer) {
      return { requestedNodeId: nodeId, boundaryNodeId: producer.nodeId, seq: producer.seq, exact: false, rule: `"${nodeId}" is the output of the llm call seq ${producer.seq} (${producer.nodeId}): the replay stops before that call and its response is replaced` };
    }
  }
  return resolveTarget(bundle, nodeId);
}
