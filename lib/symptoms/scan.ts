/**
 * The rule pass of Algorithm 3 (without the judge) in ONE walk over the observed order. Cost is
 * O(nodes + edges + content size): every propagated quantity (the nearest unresolved upstream
 * failure, the latest upstream tool outcome, whether successful tool evidence is upstream) is
 * carried along the data and control edges node by node, never by walking a node's ancestors.
 * Per node: build the rule context (rule-context.ts), run the catalogue's rules for its type
 * (rules.ts), then carry state on.
 */
import type { BundleNode, NodeType, ReplayBundle } from "../bundle";
import { NODE_TYPES } from "../bundle";
import { producingLlmRecords } from "../replay/target";
import { answerOf, isTaskNode, mainText, nodeAction, normUrl, quoteOf, taskConstraints, type Rec } from "./facts";
import { FINAL_RE, VOLATILE_KEYS } from "./patterns";
import type { RuleContext, Seen } from "./rule-context";
import { RULES, type RuleDef } from "./rules";
import type { Category, Evidence, RuleHit } from "./types";
import { CATEGORIES } from "./types";
import { clip, isRec, leafText, stringLeaves } from "./view";

/** A node on which at least one rule fired, before scoring. */
export interface TriggeredNode {
  node: BundleNode;
  position: number;
  rules: RuleHit[];
  triggered: Category[];
  runtimeFailure: 0 | 1;
  boundary: string | null;
}

/** Output of the rule pass: what the judge sees and what scoring needs. */
export interface RuleScan {
  bundleId: string;
  nodeCount: number;
  replayable: boolean;
  triggered: TriggeredNode[];
}

/** Thrown when the bundle's order/graph cannot be walked (unknown ids in `order` or edges). */
export class SymptomInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SymptomInputError";
  }
}

/** The catalogue's rules by the node type they read, in catalogue order. */
const RULES_BY_TYPE: ReadonlyMap<NodeType, readonly RuleDef[]> = new Map(NODE_TYPES.map((t) => [t, RULES.filter((r) => r.nodeTypes === "any" || r.nodeTypes.includes(t))]));
const FAILURE_RULES = RULES.filter((r) => r.marksFailure);
const EMPTY_TEXT = leafText([]);

/** JSON.stringify replacer dropping the keys that change between identical observations. */
function dropVolatile(k: string, v: unknown): unknown {
  return VOLATILE_KEYS.has(k) ? undefined : v;
}

/**
 * Run every Table 10 rule on every node of the bundle, in observed order (Algorithm 3 without the
 * judge). Only nodes where a rule fired are returned; their hits are in catalogue order, at most
 * 3 pieces of evidence each.
 * @throws SymptomInputError when `order` or an edge names an unknown node (validate the bundle first)
 */
export function scanRules(bundle: ReplayBundle): RuleScan {
  const nodesById = new Map<string, BundleNode>();
  for (const n of bundle.graph.nodes) nodesById.set(n.id, n);
  const order = bundle.order;
  const n = order.length;
  const posOf = new Map<string, number>();
  const nodes: BundleNode[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const node = nodesById.get(order[i]);
    if (!node) throw new SymptomInputError(`order[${i}] = "${order[i]}" is not a node of bundle "${bundle.id}"; validate the bundle first`);
    nodes[i] = node;
    posOf.set(order[i], i);
  }
  // predecessors, CSR (data edges flagged)
  const edges = bundle.graph.edges;
  const indeg = new Int32Array(n + 1);
  const eFrom = new Int32Array(edges.length);
  const eTo = new Int32Array(edges.length);
  for (let k = 0; k < edges.length; k++) {
    const a = posOf.get(edges[k].from);
    const b = posOf.get(edges[k].to);
    if (a === undefined || b === undefined) throw new SymptomInputError(`graph.edges[${k}] (${edges[k].from} → ${edges[k].to}) names a node not in the observed order; validate the bundle first`);
    eFrom[k] = a;
    eTo[k] = b;
    indeg[b + 1]++;
  }
  for (let i = 0; i < n; i++) indeg[i + 1] += indeg[i];
  const fill = indeg.slice(0, n);
  const pred = new Int32Array(edges.length);
  const predData = new Uint8Array(edges.length);
  for (let k = 0; k < edges.length; k++) {
    const at = fill[eTo[k]]++;
    pred[at] = eFrom[k];
    predData[at] = edges[k].kind === "data" ? 1 : 0;
  }
  const isDataPred = (v: number, u: number): boolean => {
    for (let j = indeg[v]; j < indeg[v + 1]; j++) if (pred[j] === u && predData[j]) return true;
    return false;
  };
  // LLM boundary of each position (lib/replay/target.ts rule, one backward pass)
  const hasLlm = new Uint8Array(n);
  for (const r of bundle.records) if (r.boundary === "llm") {
    const p = posOf.get(r.nodeId);
    if (p !== undefined) hasLlm[p] = 1;
  }
  const nextLlm = new Int32Array(n + 1).fill(-1);
  for (let i = n - 1; i >= 0; i--) nextLlm[i] = hasLlm[i] ? i : nextLlm[i + 1];
  // an agent_action without its own llm record maps to the llm call that produced it (data edge)
  const producers = producingLlmRecords(bundle);
  const boundaryOf = (v: number): string | null => {
    if (!hasLlm[v] && nodes[v].type === "agent_action") {
      const p = producers.get(nodes[v].id);
      if (p) return p.nodeId;
    }
    return nextLlm[v] >= 0 ? nodes[nextLlm[v]].id : null;
  };
  const replayable = nextLlm[0] >= 0;

  let hasToolNodes = false;
  for (const node of nodes) if (node.type === "tool_call" || node.type === "tool_result") { hasToolNodes = true; break; }
  const task = taskConstraints(bundle, hasToolNodes);

  // carried state
  const errSrc = new Int32Array(n).fill(-1); // nearest unresolved upstream failure (position)
  const lastOut = new Int32Array(n).fill(-1); // latest upstream tool_result (position)
  const toolOk = new Uint8Array(n); // a successful tool_result at or upstream
  const failed = new Uint8Array(n);
  const failEv: Evidence[] = new Array(n);
  const fpSeen = new Map<string, Seen>();
  const urlSeen = new Map<string, Seen>();
  const obsSeen = new Map<string, Seen>();
  let prevFinal: Seen | null = null;
  let advanced = false;

  const triggered: TriggeredNode[] = [];
  for (let v = 0; v < n; v++) {
    const node = nodes[v];
    const type = node.type;
    // incoming carried state
    let inErr = -1;
    let inOut = -1;
    let inOk = 0;
    for (let j = indeg[v]; j < indeg[v + 1]; j++) {
      const u = pred[j];
      if (errSrc[u] > inErr) inErr = errSrc[u];
      if (lastOut[u] > inOut) inOut = lastOut[u];
      inOk |= toolOk[u];
    }
    const c = node.content;
    const cr: Rec | null = isRec(c) ? c : null;
    const isTask = isTaskNode(node);
    const leaves = isTask ? [] : stringLeaves(c, "$.content");
    const text = leaves.length ? leafText(leaves) : EMPTY_TEXT;
    const action = nodeAction(node, leaves);
    const fpPrev = action.fp ? fpSeen.get(action.fp.key) : undefined;
    let dataToolCall: BundleNode | null = null;
    let observation: RuleContext["observation"] = null;
    if (type === "tool_result") {
      for (let j = indeg[v]; j < indeg[v + 1]; j++) if (predData[j] && nodes[pred[j]].type === "tool_call") dataToolCall = nodes[pred[j]];
      if (cr || typeof c === "string") {
        const key = JSON.stringify(c, dropVolatile) ?? "";
        if (key.length >= 40) {
          const body = mainText(leaves);
          observation = body ? { key, path: body.path, text: body.text } : { key, path: "$.content", text: key };
        }
      }
    }
    const finalStyle = !isTask && (type === "final_result" || ((type === "agent_action" || type === "llm_call") && FINAL_RE.test(text.text)));
    const answer = finalStyle ? answerOf(node, leaves) : null;
    const ctx: RuleContext = {
      node,
      type,
      position: v,
      content: cr,
      isTask,
      leaves,
      text,
      task,
      action,
      sameAction: fpPrev && !isDataPred(v, fpPrev.pos) ? fpPrev : null,
      urlSeen,
      isDataPred: (u) => isDataPred(v, u),
      dataToolCall,
      observation,
      seenObservation: observation ? obsSeen.get(observation.key) ?? null : null,
      finalStyle,
      answer,
      answerEvidence: finalStyle ? (answer ? { path: answer.path, quote: quoteOf(answer.value) } : { path: "$.content", quote: quoteOf(c) }) : null,
      upstreamFailure: inErr >= 0 ? failEv[inErr] : null,
      latestToolFailure: inOut >= 0 && failed[inOut] ? failEv[inOut] : null,
      toolEvidenceUpstream: inOk === 1,
      previousFinal: prevFinal,
      advancedSincePreviousFinal: advanced,
    };

    // ---- the rules ----
    let rules: RuleHit[] | null = null;
    for (const r of RULES_BY_TYPE.get(type) ?? []) {
      const ev = r.test(ctx);
      if (ev) (rules ??= []).push({ id: r.id, category: r.category, tier: r.tier, evidence: ev.length > 3 ? ev.slice(0, 3) : ev });
    }

    // ---- carried state out ----
    let runtimeFailure: 0 | 1 = 0;
    let failure: Evidence | null = null;
    if (rules) {
      for (const h of rules) if (h.tier === "runtime") runtimeFailure = 1;
      for (const f of FAILURE_RULES) {
        const h = rules.find((x) => x.id === f.id);
        if (h) {
          failure = h.evidence[0];
          break;
        }
      }
    }
    if (action.fp) {
      if (type === "tool_call" && !ctx.sameAction) advanced = true;
      fpSeen.set(action.fp.key, { pos: v, id: node.id, path: action.fp.path, quote: action.fp.quote });
    }
    for (const u of action.urls) urlSeen.set(normUrl(u.url), { pos: v, id: node.id, path: u.path, quote: u.url });
    if (type === "tool_result") {
      if (observation && !ctx.seenObservation) obsSeen.set(observation.key, { pos: v, id: node.id, path: observation.path, quote: clip(observation.text) });
      if (!failure && !ctx.seenObservation) advanced = true;
    }
    if (finalStyle && ctx.answerEvidence) {
      prevFinal = { pos: v, id: node.id, path: ctx.answerEvidence.path, quote: ctx.answerEvidence.quote };
      advanced = false;
    }
    if (failure) {
      failed[v] = 1;
      failEv[v] = { nodeId: node.id, ...failure };
    }
    errSrc[v] = failure ? v : type === "tool_result" ? -1 : inErr;
    lastOut[v] = type === "tool_result" ? v : inOut;
    toolOk[v] = inOk | (type === "tool_result" && !failure ? 1 : 0);

    if (rules) {
      const cats = CATEGORIES.filter((k) => rules.some((r) => r.category === k));
      triggered.push({ node, position: v, rules, triggered: cats, runtimeFailure, boundary: boundaryOf(v) });
    }
  }
  return { bundleId: bundle.id, nodeCount: n, replayable, triggered };
}
