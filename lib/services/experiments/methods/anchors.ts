/**
 * Where the node-level methods intervene (pure functions of the source bundle and the settings):
 * the detector anchor (Suspicious-Node, Node Resample, Generic Nudge), a seeded random node, the
 * last node. Each returns the chosen SOURCE node, or a skip reason. The replay maps a node to the
 * LLM boundary where guidance acts (lib/replay resolveTarget: an agent_action to the llm call that
 * produced it, other nodes to the first llm call at or after them) in native mode, and cuts the
 * conversation right before it in transcript mode.
 */
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { BundleNode, ReplayBundle } from "../../../bundle";
import { producingLlmRecords } from "../../../replay";
import { detectSymptoms, type Category, type DetectionResult } from "../../../symptoms";
import { replayModeOf } from "./common";
import type { ExperimentCaseInput, ExperimentSettings } from "./types";

export type AnchorChoice = { nodeId: string; skip: null } | { nodeId: null; skip: string };

const detections = new WeakMap<ReplayBundle, DetectionResult>();

/** Rules-only detection of a source bundle (lib/symptoms detectSymptoms), cached per bundle object. */
export function detectionOf(b: ReplayBundle): DetectionResult {
  let d = detections.get(b);
  if (!d) {
    d = detectSymptoms(b);
    detections.set(b, d);
  }
  return d;
}

/** The detector's anchor with what its guidance needs: confirmed categories and evidence quotes. */
export type SuspiciousAnchor = { nodeId: string; categories: Category[]; evidence: string[]; skip: null } | { nodeId: null; categories: null; evidence: null; skip: string };

/** Evidence quotes shown in the F.3 template: at most this many, each cut to EVIDENCE_CHARS. */
export const MAX_EVIDENCE = 5;
export const EVIDENCE_CHARS = 200;

/**
 * The Suspicious-Node anchor (seeds/000 Algorithm 4; lib/symptoms): the eligible node the anchor
 * came from (`anchorNode`), its confirmed categories and the evidence of the rules of those
 * categories (distinct quotes, `"quote" (in node X)` when the quote lies in another node).
 * Native mode needs a replayable anchor (`anchor`, an LLM boundary); transcript mode uses the node.
 */
export function suspiciousAnchor(c: ExperimentCaseInput, s: ExperimentSettings): SuspiciousAnchor {
  const d = detectionOf(c.bundle);
  const none = (skip: string): SuspiciousAnchor => ({ nodeId: null, categories: null, evidence: null, skip });
  if (!d.anchorNode) return none(`the symptom detector found no eligible node (c_f ≥ ${d.threshold} with a confirmed category) in case ${c.caseId}`);
  if (replayModeOf(c, s) === "native" && !d.anchor) return none(`the detector's eligible node ${d.anchorNode} maps to no LLM boundary (resolveTarget): a native replay cannot act there`);
  const node = d.nodes.find((n) => n.id === d.anchorNode)!;
  const quotes: string[] = [];
  for (const r of node.rules) {
    if (!node.categories.includes(r.category)) continue;
    for (const e of r.evidence) {
      const q = Array.from(e.quote.replace(/\s+/g, " ").trim());
      const text = `"${q.length > EVIDENCE_CHARS ? q.slice(0, EVIDENCE_CHARS - 1).join("") + "…" : q.join("")}"${e.nodeId && e.nodeId !== node.id ? ` (in node ${e.nodeId})` : ""}`;
      if (!quotes.includes(text)) quotes.push(text);
    }
  }
  return { nodeId: node.id, categories: node.categories, evidence: quotes.slice(0, MAX_EVIDENCE), skip: null };
}

const isTask = (n: BundleNode) => n.id.startsWith("task_") || (n.type === "message" && n.label === "task");

function ordered(b: ReplayBundle): BundleNode[] {
  const byId = new Map(b.graph.nodes.map((n) => [n.id, n]));
  return b.order.map((id) => byId.get(id)).filter((n): n is BundleNode => !!n);
}

/**
 * Nodes an intervention can act at. Native: every non-task node that maps to an LLM boundary (the
 * resolveTarget rule): one with an LLM record at or after it in the observed order, or an
 * agent_action after the last one whose producing llm call is known (it maps to that call).
 * Transcript: every non-task node (the conversation is cut before it).
 */
export function interventionCandidates(c: ExperimentCaseInput, s: ExperimentSettings): string[] {
  const nodes = ordered(c.bundle);
  if (replayModeOf(c, s) === "transcript") return nodes.filter((n) => !isTask(n)).map((n) => n.id);
  const llm = new Set(c.bundle.records.filter((r) => r.boundary === "llm").map((r) => r.nodeId));
  let last = -1;
  nodes.forEach((n, i) => {
    if (llm.has(n.id)) last = i;
  });
  const producers = producingLlmRecords(c.bundle);
  return nodes.filter((n, i) => !isTask(n) && (i <= last || (n.type === "agent_action" && producers.has(n.id)))).map((n) => n.id);
}

/**
 * Random-Node: one candidate drawn uniformly with pure-rand (xoroshiro128+ seeded with `seed`,
 * uniformInt over the candidate list of {@link interventionCandidates}); the same seed gives the
 * same node.
 */
export function randomAnchor(c: ExperimentCaseInput, s: ExperimentSettings, seed: number): AnchorChoice {
  const cands = interventionCandidates(c, s);
  if (cands.length === 0) return { nodeId: null, skip: `case ${c.caseId} has no node an intervention can act at` };
  return { nodeId: cands[uniformInt(xoroshiro128plus(seed | 0), 0, cands.length - 1)], skip: null };
}

/**
 * Last-Node: native → the node of the last LLM record (the final model decision); transcript →
 * the last node that is neither the task nor a final_result (the last agent turn), else the last
 * non-task node.
 */
export function lastAnchor(c: ExperimentCaseInput, s: ExperimentSettings): AnchorChoice {
  if (replayModeOf(c, s) === "native") {
    const r = c.bundle.records.filter((x) => x.boundary === "llm").at(-1);
    return r ? { nodeId: r.nodeId, skip: null } : { nodeId: null, skip: `case ${c.caseId} has no LLM record: a native replay cannot act anywhere` };
  }
  const nodes = ordered(c.bundle).filter((n) => !isTask(n));
  const n = nodes.filter((x) => x.type !== "final_result").at(-1) ?? nodes.at(-1);
  return n ? { nodeId: n.id, skip: null } : { nodeId: null, skip: `case ${c.caseId} has no node besides the task` };
}
