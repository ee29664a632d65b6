/**
 * Trace-grounded quotes of a diagnosis and their resolution (seeds/004 App. E.6 rubric item 4:
 * "quotes match verbatim at or before the blamed step"; seeds-002-004.md §3.3 item 5). Pure.
 *
 * What a quote is:
 * 1. every evidence item of the annotation (`{ nodeId, quote }`, lib/annotation/evidence.ts);
 * 2. every span of the rationale between double quotes — straight `"…"`, curly `“…”` or
 *    guillemets `«…»` — that has at least {@link MIN_RATIONALE_QUOTE} characters after
 *    normalization (shorter spans, e.g. `"a"`, are emphasis, not citations).
 *
 * When a quote resolves (matching = lib/annotation's rule: one value of the node's content,
 * NFC, whitespace runs folded, case and punctuation exact):
 * - evidence: its node is in the trace, at or before the blamed node in the observed order, and
 *   the quote occurs in that node's content;
 * - rationale: the text occurs in the task prompt or in the content of some node at or before
 *   the blamed node (the first such node is named).
 * A diagnosis whose blamed node is not in the trace resolves nothing.
 */
import { normalizeQuoteText, quoteOccursIn, textLeaves } from "../../annotation/evidence";
import type { StudentTrace } from "./trace";

/** Rationale spans shorter than this (normalized) are not treated as quotes. */
export const MIN_RATIONALE_QUOTE = 3;

export interface DiagnosisQuote {
  source: "evidence" | "rationale";
  /** Index among the evidence items, or among the rationale's quoted spans. */
  index: number;
  /** The cited node (evidence), or null (rationale: found by search). */
  nodeId: string | null;
  text: string;
}

export type QuoteFailure = "blamed-node-not-in-trace" | "node-not-in-trace" | "after-blamed-node" | "not-found";

export interface ResolvedQuote extends DiagnosisQuote {
  resolved: boolean;
  /** Where it resolved: the node and its position in O, or `"task"` for the task prompt. */
  at: { nodeId: string; stepIndex: number } | "task" | null;
  /** Why it did not resolve (null when resolved). */
  failure: QuoteFailure | null;
  /** A one-line explanation naming the node and positions (null when resolved). */
  message: string | null;
}

const QUOTED = /"([^"\n]+)"|“([^”]+)”|«([^»]+)»/g;

/**
 * The quotes of a diagnosis (rules 1–2 above), evidence first, each in its order.
 * @param d the annotation's rationale and evidence
 */
export function diagnosisQuotes(d: { rationale: string; evidence: Array<{ nodeId: string; quote: string }> }): DiagnosisQuote[] {
  const out: DiagnosisQuote[] = d.evidence.map((e, index) => ({ source: "evidence", index, nodeId: e.nodeId, text: e.quote }));
  let i = 0;
  for (const m of d.rationale.matchAll(QUOTED)) {
    const text = m[1] ?? m[2] ?? m[3] ?? "";
    if (normalizeQuoteText(text).length < MIN_RATIONALE_QUOTE) continue;
    out.push({ source: "rationale", index: i++, nodeId: null, text });
  }
  return out;
}

/**
 * Resolve every quote against the student trace, at or before the blamed node.
 * @param trace the student trace (steps in observed order)
 * @param blamedNodeId the diagnosis's node t*
 * @returns one entry per quote, in the given order
 */
export function resolveQuotes(trace: StudentTrace, blamedNodeId: string, quotes: DiagnosisQuote[]): ResolvedQuote[] {
  const pos = new Map(trace.steps.map((s) => [s.nodeId, s.index]));
  const blamed = pos.get(blamedNodeId);
  // Normalized text leaves per step, computed once per call (rationale quotes scan every step).
  const leaves = new Map<number, string[]>();
  const occursAt = (index: number, text: string): boolean => {
    const q = normalizeQuoteText(text);
    if (!q) return false;
    let l = leaves.get(index);
    if (!l) leaves.set(index, (l = textLeaves(trace.steps[index]!.content).map(normalizeQuoteText)));
    return l.some((t) => t.includes(q));
  };
  return quotes.map((q): ResolvedQuote => {
    const fail = (failure: QuoteFailure, message: string): ResolvedQuote => ({ ...q, resolved: false, at: null, failure, message });
    const label = q.source === "evidence" ? `evidence[${q.index}]` : `rationale quote ${q.index + 1}`;
    if (blamed === undefined) return fail("blamed-node-not-in-trace", `${label}: the blamed node "${blamedNodeId}" is not in the trace`);
    if (q.source === "evidence") {
      const p = pos.get(q.nodeId!);
      if (p === undefined) return fail("node-not-in-trace", `${label}: node "${q.nodeId}" is not in the trace`);
      if (p > blamed) return fail("after-blamed-node", `${label}: node "${q.nodeId}" (step ${p}) comes after the blamed node "${blamedNodeId}" (step ${blamed})`);
      if (!quoteOccursIn(trace.steps[p]!.content, q.text)) return fail("not-found", `${label}: ${JSON.stringify(q.text)} is not in the content of node "${q.nodeId}"`);
      return { ...q, resolved: true, at: { nodeId: q.nodeId!, stepIndex: p }, failure: null, message: null };
    }
    if (quoteOccursIn(trace.task.prompt, q.text)) return { ...q, resolved: true, at: "task", failure: null, message: null };
    for (const s of trace.steps) {
      if (s.index > blamed) break;
      if (occursAt(s.index, q.text)) return { ...q, resolved: true, at: { nodeId: s.nodeId, stepIndex: s.index }, failure: null, message: null };
    }
    const later = trace.steps.find((s) => s.index > blamed && occursAt(s.index, q.text));
    return later
      ? fail("after-blamed-node", `${label}: ${JSON.stringify(q.text)} occurs only after the blamed node "${blamedNodeId}" (step ${blamed}), first in "${later.nodeId}" (step ${later.index})`)
      : fail("not-found", `${label}: ${JSON.stringify(q.text)} occurs in no node at or before the blamed node "${blamedNodeId}"`);
  });
}
