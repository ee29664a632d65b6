/**
 * What a rule sees of one node: the node, its diagnostic view (view.ts), the facts derived from
 * it (facts.ts) and the state the scan carried to it along the observed order and the edges
 * (scan.ts). Read-only for rules: a rule is a predicate over this object (rules.ts).
 */
import type { BundleNode, NodeType } from "../bundle";
import type { NodeAction, Rec, TaskConstraints } from "./facts";
import type { Evidence } from "./types";
import type { Leaf, LeafText } from "./view";

/** An earlier node a rule quotes: its observed-order position, id and the quoted evidence. */
export interface Seen {
  pos: number;
  id: string;
  path: string;
  quote: string;
}

export interface RuleContext {
  node: BundleNode;
  type: NodeType;
  /** Observed-order position (0-based). */
  position: number;
  /** node.content when it is an object, else null. */
  content: Rec | null;
  /** The node is the task message (text rules skip it; its leaves are empty). */
  isTask: boolean;
  /** String leaves of the diagnostic view, and their joined text for one regex run. */
  leaves: Leaf[];
  text: LeafText;
  task: TaskConstraints;
  action: NodeAction;
  /** An earlier node with the same action fingerprint that is not a direct data predecessor (C2.repeated-action). */
  sameAction: Seen | null;
  /** The latest earlier node that targeted a normalized URL (before this node). */
  urlSeen: ReadonlyMap<string, Seen>;
  /** True when position `u` is a direct data predecessor of this node. */
  isDataPred(u: number): boolean;
  /** For a tool_result: the tool_call it is a data successor of (the last such edge), else null. */
  dataToolCall: BundleNode | null;
  /** For a tool_result: its observation key (content without volatile keys, ≥ 40 characters) and quote. */
  observation: { key: string; path: string; text: string } | null;
  /** An earlier tool_result with the same observation key, else null. */
  seenObservation: Seen | null;
  /** A final-style output: a final_result, or an agent_action/llm_call that says "Final answer:" / \boxed{…}. */
  finalStyle: boolean;
  /** For a final-style node: its answer (or null) and the evidence that quotes it. */
  answer: { path: string; value: unknown } | null;
  answerEvidence: Evidence | null;
  /** Evidence of the nearest unresolved failure upstream (over data/control edges), else null. */
  upstreamFailure: Evidence | null;
  /** Evidence of the latest upstream tool_result when that result failed, else null. */
  latestToolFailure: Evidence | null;
  /** A successful tool_result lies upstream. */
  toolEvidenceUpstream: boolean;
  /** The previous final-style output in observed order, and whether a tool call or new successful result came since. */
  previousFinal: Seen | null;
  advancedSincePreviousFinal: boolean;
}
