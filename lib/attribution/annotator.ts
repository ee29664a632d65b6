/**
 * The LLM annotator (issue 24 item 3): one call over the whole log (All-at-Once, Zhang et al.
 * 2025 §4) asking for an annotation of the SymTrace protocol (the annotation protocol spec:
 * category set C1–C4, primary, the earliest actionable node, confidence, rationale, evidence
 * quotes). Pure: prompt, reply parsing, and the quote check (lib/annotation quoteOccursIn) that
 * drops any quote not found in the node it names. The ground truth is never sent (an annotator
 * labels blind to the answer, like the humans).
 */
import { C2_C3_RULE, CATEGORIES, CATEGORY_INFO, CONFIDENCE, NODE_RULE, quoteOccursIn, type AnnotationFields, type Category } from "../annotation";
import { renderSteps } from "./prompts";
import type { AttributionCase } from "./types";

export const ANNOTATOR_SYSTEM = "You annotate failed multi-agent logs under the SymTrace annotation protocol. Reply with one JSON object only.";

/** The user message of the annotator request. */
export function annotatorPrompt(c: AttributionCase): string {
  return [
    `The problem the agents tried to solve: ${c.question}`,
    "The run failed. Here is its log, steps numbered from 0:",
    "",
    renderSteps(c.steps),
    "",
    "Categories:",
    ...CATEGORIES.map((k) => `${k} ${CATEGORY_INFO[k].name}: ${CATEGORY_INFO[k].meaning}`),
    `C2 vs C3: ${C2_C3_RULE}`,
    `Node: ${NODE_RULE}`,
    'Reply with {"categories": ["C1".."C4", ...], "primary": "<one of categories>", "step": <the earliest node\'s step number>, "confidence": "high"|"medium"|"low", "rationale": "<why>", "evidence": [{"step": <n>, "quote": "<exact text copied from that step>"}]}.',
  ].join("\n");
}

/** The parsed annotation plus what was dropped. */
export interface MachineAnnotation {
  fields: AnnotationFields;
  /** Quotes not found verbatim (after the protocol's normalization) in the step they name. */
  droppedQuotes: number;
}

/** A reply that is not a usable annotation. */
export class AnnotatorReplyError extends Error {
  constructor(
    readonly caseId: string,
    message: string,
  ) {
    super(`annotator reply for case "${caseId}": ${message}`);
    this.name = "AnnotatorReplyError";
  }
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Parse the reply (its first `{` to its last `}`) into protocol fields; node type = the bundle
 * node's type; evidence quotes checked against their node's content (kept only when they occur).
 * @throws AnnotatorReplyError naming what is missing: no JSON, no valid category, primary not in
 *   categories, step outside the log, no evidence quote that validates
 */
export function parseAnnotatorReply(c: AttributionCase, reply: string): MachineAnnotation {
  const a = reply.indexOf("{");
  const b = reply.lastIndexOf("}");
  if (a < 0 || b < a) throw new AnnotatorReplyError(c.caseId, "no JSON object");
  let v: unknown;
  try {
    v = JSON.parse(reply.slice(a, b + 1));
  } catch (e) {
    throw new AnnotatorReplyError(c.caseId, `not JSON: ${(e as Error).message}`);
  }
  if (!isRec(v)) throw new AnnotatorReplyError(c.caseId, "not a JSON object");
  const said = new Set((Array.isArray(v.categories) ? v.categories : []).filter((x): x is string => typeof x === "string").map((x) => x.trim().toUpperCase()));
  const categories = CATEGORIES.filter((k) => said.has(k));
  if (!categories.length) throw new AnnotatorReplyError(c.caseId, "no category among C1–C4");
  const primary = typeof v.primary === "string" ? (v.primary.trim().toUpperCase() as Category) : null;
  if (!primary || !categories.includes(primary)) throw new AnnotatorReplyError(c.caseId, `primary ${JSON.stringify(v.primary ?? null)} is not one of the categories ${categories.join(", ")}`);
  const step = typeof v.step === "number" ? v.step : typeof v.step === "string" && /^\d+$/.test(v.step.trim()) ? Number(v.step) : NaN;
  if (!Number.isInteger(step) || step < 0 || step >= c.steps.length) throw new AnnotatorReplyError(c.caseId, `step ${JSON.stringify(v.step ?? null)} is not a step of the log (0–${c.steps.length - 1})`);
  const nodeById = new Map(c.bundle.graph.nodes.map((n) => [n.id, n]));
  const evidence: AnnotationFields["evidence"] = [];
  let dropped = 0;
  for (const e of Array.isArray(v.evidence) ? v.evidence : []) {
    const s = isRec(e) && typeof e.step === "number" ? c.steps[e.step] : undefined;
    const quote = isRec(e) && typeof e.quote === "string" ? e.quote : "";
    if (s && quote.trim() && quoteOccursIn(nodeById.get(s.nodeId)?.content, quote) && !evidence.some((x) => x.nodeId === s.nodeId && x.quote === quote)) evidence.push({ nodeId: s.nodeId, quote });
    else dropped++;
  }
  if (!evidence.length) throw new AnnotatorReplyError(c.caseId, `no evidence quote occurs in the step it names (${dropped} dropped)`);
  const confidence = typeof v.confidence === "string" && (CONFIDENCE as readonly string[]).includes(v.confidence.trim().toLowerCase()) ? (v.confidence.trim().toLowerCase() as AnnotationFields["confidence"]) : "low";
  const rationale = typeof v.rationale === "string" && v.rationale.trim() ? v.rationale.trim() : "(no rationale given)";
  const nodeId = c.steps[step].nodeId;
  return { fields: { categories, primary, nodeId, nodeType: nodeById.get(nodeId)?.type ?? null, confidence, rationale, evidence, correction: "" }, droppedQuotes: dropped };
}
