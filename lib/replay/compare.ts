/**
 * What a replay result says about the repair (issue 11 item 3), from the source bundle and the
 * replay's output bundle only. Pure: no I/O, no clock, no React/Next/Prisma.
 *
 * - `resolveOutcomes` — source outcome → replay outcome, each `passed | failed | unknown` with
 *   where it came from and, when unknown, why.
 * - `finalAnswer` — the run's final answer as text (kept byte for byte, for side-by-side display).
 * - `alignSuffix` — the live suffix beside the source suffix, node by node: row i holds the i-th
 *   node after the intervention point in each bundle's observed order, padded when one is shorter.
 */
import type { BundleNode, ReplayBundle } from "../bundle";

/**
 * The replay's node for the intervention point. The boundary call runs live, so in the replay it
 * is a new node: the record at `parent.boundarySeq` names it (the replay core keeps prefix ids and
 * numbers live nodes after them). Without that record it is `boundaryNodeId` itself.
 * @param replay the replay's output bundle
 * @param boundaryNodeId the source node (LLM boundary) where the guidance was applied
 */
export function interventionNodeId(replay: ReplayBundle, boundaryNodeId: string): string {
  const parent = (replay.parent ?? null) as { boundarySeq?: unknown } | null;
  if (parent && typeof parent.boundarySeq === "number") {
    const seq = parent.boundarySeq;
    const rec = replay.records.find((r) => r.seq === seq);
    if (rec) return rec.nodeId;
  }
  return boundaryNodeId;
}

// ---------------------------------------------------------------------------------------------
// Final answers

/** A run's final answer: the node it came from and its full text. */
export interface FinalAnswer {
  nodeId: string;
  agent: string | null;
  /** The answer exactly as stored when it is text (whitespace kept); JSON (2-space) otherwise. */
  text: string;
}

const ANSWER_KEYS = ["final", "answer", "text", "content", "output"] as const;

/**
 * The text of a final_result node's content: a string as is; an object's `final`, `answer`,
 * `text`, `content` or `output` string field (first present, as is); anything else as
 * pretty-printed JSON. Never trims or reflows.
 */
export function finalAnswerText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content && typeof content === "object" && !Array.isArray(content)) {
    const o = content as Record<string, unknown>;
    for (const k of ANSWER_KEYS) if (typeof o[k] === "string") return o[k];
  }
  return JSON.stringify(content, null, 2) ?? String(content);
}

/**
 * The last `final_result` node in observed order (nodes missing from `order` count after it, in
 * graph order), or null when the run has none (e.g. it stopped before answering).
 */
export function finalAnswer(bundle: ReplayBundle): FinalAnswer | null {
  const byId = new Map(bundle.graph.nodes.map((x) => [x.id, x]));
  const inOrder = new Set(bundle.order);
  const seq = [...bundle.order.map((id) => byId.get(id)).filter((x): x is BundleNode => !!x), ...bundle.graph.nodes.filter((x) => !inOrder.has(x.id))];
  const node = seq.filter((x) => x.type === "final_result").at(-1);
  return node ? { nodeId: node.id, agent: node.agent ?? null, text: finalAnswerText(node.content) } : null;
}

// ---------------------------------------------------------------------------------------------
// Suffix alignment

/** One node of a suffix, as shown in the aligned table. */
export interface SuffixNode {
  id: string;
  type: BundleNode["type"];
  agent: string | null;
  /** One line, at most {@link SUMMARY_CHARS} characters (see `summarizeContent`). */
  summary: string;
  contentHash: string;
}

export type SuffixMarker = "same" | "differs" | "source-only" | "replay-only";

/** Row i: the i-th node after the intervention point in the source and in the replay. */
export interface AlignedRow {
  /** 1-based position after the intervention point. */
  index: number;
  /** null = the source suffix is shorter (shown as "—"). */
  source: SuffixNode | null;
  /** null = the replay suffix is shorter (shown as "—"). */
  replay: SuffixNode | null;
  marker: SuffixMarker;
  /** For "differs": which of agent, type, content (by content hash) differ. */
  differences: Array<"agent" | "type" | "content">;
}

export interface SuffixAlignment {
  /** The source's intervention node (the LLM boundary) and the replay's live node for it. */
  sourceAnchor: string;
  replayAnchor: string;
  rows: AlignedRow[];
}

export const SUMMARY_CHARS = 120;

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > SUMMARY_CHARS ? `${t.slice(0, SUMMARY_CHARS - 1)}…` : t;
}

function toolCallNames(calls: unknown): string[] {
  if (!Array.isArray(calls)) return [];
  return calls.map((c) => {
    const f = (c as { function?: { name?: unknown }; name?: unknown } | null) ?? {};
    return String(f.function?.name ?? f.name ?? "?");
  });
}

/** The text of content blocks / output items, else "→ tool, tool" for the calls they make; "" when neither. */
function blockSummary(items: unknown[]): string {
  const texts: string[] = [];
  const calls: string[] = [];
  const walk = (b: unknown) => {
    if (!b || typeof b !== "object") return;
    const x = b as Record<string, unknown>;
    if ((x.type === "text" || x.type === "output_text") && typeof x.text === "string") texts.push(x.text);
    else if ((x.type === "tool_use" || x.type === "function_call" || x.type === "server_tool_use") && typeof x.name === "string") calls.push(x.name);
    else if (x.type === "message" && Array.isArray(x.content)) x.content.forEach(walk);
  };
  items.forEach(walk);
  const text = texts.join(" ").trim();
  return text || (calls.length ? `→ ${calls.join(", ")}` : "");
}

/**
 * A one-line summary of a node's content (whitespace collapsed, cut at {@link SUMMARY_CHARS}
 * with "…"): text fields as text; an llm_call as "model · n messages"; a tool call as
 * `tool(arguments JSON)`; an assistant message with only tool calls as "→ name, name" (chat
 * `tool_calls`, Anthropic `tool_use` blocks, Responses `function_call` items; their text parts as
 * text); else JSON.
 */
export function summarizeContent(type: BundleNode["type"], content: unknown): string {
  if (typeof content === "string") return oneLine(content);
  if (content && typeof content === "object" && !Array.isArray(content)) {
    const o = content as Record<string, unknown>;
    if (type === "llm_call" && (typeof o.model === "string" || typeof o.messageCount === "number")) {
      return oneLine([o.model, typeof o.messageCount === "number" ? `${o.messageCount} messages` : null].filter((x) => x !== null && x !== undefined).join(" · "));
    }
    if (typeof o.tool === "string" && "arguments" in o) return oneLine(`${o.tool}(${JSON.stringify(o.arguments) ?? ""})`);
    for (const k of ANSWER_KEYS) if (typeof o[k] === "string" && o[k].trim()) return oneLine(o[k]);
    const names = toolCallNames(o.tool_calls);
    if (names.length) return oneLine(`→ ${names.join(", ")}`);
    // Anthropic content blocks (`content: [{type:"text"}, {type:"tool_use"}]`) and Responses
    // output items (`output: [{type:"message", content:[{type:"output_text"}]}, {type:"function_call"}]`)
    const parts = blockSummary([...(Array.isArray(o.content) ? o.content : []), ...(Array.isArray(o.output) ? o.output : [])]);
    if (parts) return oneLine(parts);
  }
  return oneLine(JSON.stringify(content) ?? String(content));
}

function anchorIndex(bundle: ReplayBundle, anchor: string, side: "source" | "replay"): number {
  const at = bundle.order.indexOf(anchor);
  if (at < 0) throw new Error(`intervention node ${anchor} is not in the ${side} bundle's observed order (bundle ${bundle.id}, /order): the replay run and its bundles do not match`);
  return at;
}

function suffixOf(bundle: ReplayBundle, anchor: string, side: "source" | "replay", served: ReadonlySet<string> = new Set()): SuffixNode[] {
  const at = anchorIndex(bundle, anchor, side);
  const byId = new Map(bundle.graph.nodes.map((x) => [x.id, x]));
  return bundle.order.slice(at + 1).flatMap((id) => {
    if (served.has(id)) return [];
    const x = byId.get(id);
    return x ? [{ id: x.id, type: x.type, agent: x.agent ?? null, summary: summarizeContent(x.type, x.content), contentHash: x.contentHash }] : [];
  });
}

/**
 * The live suffix aligned with the source suffix by position after the intervention point
 * (observed order; no reordering or matching by content, so row i is always "the i-th step
 * after Δ"). Source nodes the replay served in its prefix (concurrent agents: a sibling's node
 * observed after the boundary but served before the target went live) are not in the source
 * suffix. Length = the longer suffix; the shorter side is null ("—"). The replay's
 * intervention node is `interventionNodeId`, or, when that is not in the replay (a transcript
 * continuation drops the target), the replay's first node the source does not have.
 * @param boundaryNodeId the source node where the guidance was applied (the run's boundary)
 * @throws Error naming the node when an intervention node is missing from a bundle's order
 */
export function alignSuffix(source: ReplayBundle, replay: ReplayBundle, boundaryNodeId: string): SuffixAlignment {
  let replayAnchor = interventionNodeId(replay, boundaryNodeId);
  if (!replay.order.includes(replayAnchor)) {
    // A transcript continuation keeps only the nodes before the target: its live llm_call (the
    // first node the source does not have) stands for the intervention.
    const inSource = new Set(source.graph.nodes.map((x) => x.id));
    replayAnchor = replay.order.find((id) => !inSource.has(id)) ?? replayAnchor;
  }
  // The replay's prefix (every node before its intervention node) was served from the source.
  // With concurrent agents a served node can come after the boundary in the source's observed
  // order (a sibling's answer that arrived after the target call began): it is not suffix.
  const served = new Set(replay.order.slice(0, anchorIndex(replay, replayAnchor, "replay")));
  const s = suffixOf(source, boundaryNodeId, "source", served);
  const r = suffixOf(replay, replayAnchor, "replay");
  const rows: AlignedRow[] = [];
  for (let i = 0; i < Math.max(s.length, r.length); i++) {
    const a = s[i] ?? null;
    const b = r[i] ?? null;
    const differences: AlignedRow["differences"] = [];
    if (a && b) {
      if (a.agent !== b.agent) differences.push("agent");
      if (a.type !== b.type) differences.push("type");
      if (a.contentHash !== b.contentHash) differences.push("content");
    }
    const marker: SuffixMarker = !b ? "source-only" : !a ? "replay-only" : differences.length ? "differs" : "same";
    rows.push({ index: i + 1, source: a, replay: b, marker, differences });
  }
  return { sourceAnchor: boundaryNodeId, replayAnchor, rows };
}

// ---------------------------------------------------------------------------------------------
// Outcomes

export type Verdict = "passed" | "failed" | "unknown";

/** One side's outcome and where it came from. */
export interface ResolvedOutcome {
  verdict: Verdict;
  /** "dataset": the verdict recorded in the bundle (`outcome`); "evaluator": SYMTRACE_REPLAY_EVALUATOR; "none". */
  via: "dataset" | "evaluator" | "none";
  evaluator: string | null;
  /** Why the verdict is unknown (null when known). */
  reason: string | null;
}

type StoredOutcome = { passed?: boolean | null; evaluator?: string | null; details?: unknown } | null | undefined;

const verdictOf = (passed: unknown): Verdict => (passed === true ? "passed" : passed === false ? "failed" : "unknown");

function errorOf(o: StoredOutcome): string {
  const d = o?.details as { error?: unknown } | null | undefined;
  return d && typeof d === "object" && typeof d.error === "string" ? d.error : "the evaluator gave no verdict (exit code other than 0 or 1)";
}

/**
 * Source outcome → replay outcome.
 *
 * Source: the verdict recorded in the source bundle (`outcome.passed`, e.g. a dataset's label)
 * if it is a boolean; else the evaluator's verdict on the source's final answer, which the worker
 * stores beside the replay's as `outcome.sourceEvaluation` on the result bundle; else unknown.
 * Replay: the result bundle's `outcome` (written only by the evaluator); unknown when none was
 * configured, when it failed (its error), or when there is no result bundle.
 * @param result the replay's output bundle, or null when the run produced none
 */
export function resolveOutcomes(source: ReplayBundle, result: ReplayBundle | null): { source: ResolvedOutcome; replay: ResolvedOutcome } {
  const rOut = (result?.outcome ?? null) as (StoredOutcome & { sourceEvaluation?: StoredOutcome }) | null;
  let replay: ResolvedOutcome;
  if (!result) replay = { verdict: "unknown", via: "none", evaluator: null, reason: "no result bundle: the run has not completed (see its status)" };
  else if (!rOut) replay = { verdict: "unknown", via: "none", evaluator: null, reason: "no evaluator was configured when the replay ran: set SYMTRACE_REPLAY_EVALUATOR" };
  else {
    const v = verdictOf(rOut.passed);
    replay = { verdict: v, via: "evaluator", evaluator: rOut.evaluator ?? null, reason: v === "unknown" ? errorOf(rOut) : null };
  }

  const sOut = (source.outcome ?? null) as StoredOutcome;
  let src: ResolvedOutcome;
  if (sOut && typeof sOut.passed === "boolean") src = { verdict: verdictOf(sOut.passed), via: "dataset", evaluator: sOut.evaluator ?? null, reason: null };
  else if (rOut?.sourceEvaluation) {
    const e = rOut.sourceEvaluation;
    const v = verdictOf(e.passed);
    src = { verdict: v, via: "evaluator", evaluator: e.evaluator ?? null, reason: v === "unknown" ? errorOf(e) : null };
  } else {
    const recorded = sOut ? `the source bundle's outcome${sOut.evaluator ? ` (${sOut.evaluator})` : ""} records no verdict` : "no recorded verdict in the source bundle";
    const why = rOut ? "and the evaluator was not run on the source" : "and no evaluator was configured: set SYMTRACE_REPLAY_EVALUATOR";
    src = { verdict: "unknown", via: "none", evaluator: null, reason: `${recorded} ${why}` };
  }
  return { source: src, replay };
}
