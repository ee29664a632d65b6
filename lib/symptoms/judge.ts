/**
 * The optional semantic judge (Algorithm 3, lines 12-20): for each triggered node, one
 * OpenAI-compatible chat request built here (pure), sent by an injected {@link SymptomJudge}
 * (the I/O lives outside the core: lib/services/symptoms-judge.ts), and its reply parsed into
 * a {@link JudgeVerdict} with L_f ← L_f ∩ L_r.
 *
 * Never sent: `task.reference`, `outcome` (evaluator output), and any node-content key named like
 * evaluator material (see {@link REDACTED_KEYS}). The judge's rationale is not kept in the result.
 */
import type { ReplayBundle } from "../bundle";
import { finalizeDetection, scanRules, type TriggeredNode } from "./detect";
import { CATEGORY_MEANING, JUDGE_SYSTEM_PROMPT } from "./prompts";
import { RULE_BY_ID } from "./rules";
import { CATEGORIES, type Category, type DetectionResult, type JudgeVerdict } from "./types";
import { isRec } from "./view";

/** Keys removed (at any depth) from node content before it is sent to a judge. */
export const REDACTED_KEYS = new Set(["reference", "references", "evaluator", "evaluation", "evaluationText", "expected", "ground_truth", "groundTruth", "gold", "goldAnswer", "gold_answer", "otherData", "other_data", "correct", "is_correct", "is_corrected"]);
/** Longest string sent per content field; longer ones are cut with a marker. */
export const MAX_FIELD_CHARS = 6000;

/** The chat-completions request body sent for one node. */
export interface JudgeRequest {
  model: string;
  temperature: 0;
  messages: Array<{ role: "system" | "user"; content: string }>;
}

/** Sends a judge request and returns the assistant's reply text. Implementations may cache. */
export interface SymptomJudge {
  /** Model id, reported as `judge` in the result. */
  model: string;
  complete(request: JudgeRequest): Promise<string>;
  /** Drop a cached reply that turned out unusable, so the next run asks again (optional). */
  forget?(request: JudgeRequest): void;
}

/** A judge reply that is not the JSON object the prompt asks for. */
export class JudgeReplyError extends Error {
  constructor(
    readonly nodeId: string,
    message: string,
  ) {
    super(`judge reply for node "${nodeId}": ${message}`);
    this.name = "JudgeReplyError";
  }
}

function redact(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return v.length > MAX_FIELD_CHARS ? `${v.slice(0, MAX_FIELD_CHARS)}…[${v.length - MAX_FIELD_CHARS} more characters]` : v;
  if (Array.isArray(v)) return depth > 32 ? null : v.map((x) => redact(x, depth + 1));
  if (!isRec(v) || depth > 32) return v;
  const o: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (!REDACTED_KEYS.has(k)) o[k] = redact(x, depth + 1);
  return o;
}

/**
 * The judge request for one triggered node: system prompt + a JSON user message with the task
 * prompt (no reference), the node (content redacted) and the candidate categories with their rule
 * evidence.
 */
export function buildJudgeRequest(bundle: ReplayBundle, t: TriggeredNode, model: string): JudgeRequest {
  const n = t.node;
  const payload = {
    task: typeof bundle.task?.prompt === "string" ? bundle.task.prompt : "",
    node: { id: n.id, type: n.type, agent: n.agent ?? null, status: n.status ?? null, error: redact(n.error ?? null), content: redact(n.content) },
    candidates: t.triggered.map((category) => ({
      category,
      meaning: CATEGORY_MEANING[category],
      rules: t.rules.filter((r) => r.category === category).map((r) => ({ id: r.id, check: RULE_BY_ID.get(r.id)?.check ?? "", evidence: r.evidence })),
    })),
  };
  return { model, temperature: 0, messages: [{ role: "system", content: JUDGE_SYSTEM_PROMPT }, { role: "user", content: JSON.stringify(payload) }] };
}

/**
 * Parse a judge reply: the first JSON object in the text, `{confirmed: string[], confidence: number}`.
 * Categories outside `triggered` are dropped (L_f ⊆ L_r); confidence is clipped to [0, 1].
 * @throws JudgeReplyError when no such object is found
 */
export function parseSymptomJudgeReply(nodeId: string, reply: string, triggered: readonly Category[]): JudgeVerdict {
  const start = reply.indexOf("{");
  const end = reply.lastIndexOf("}");
  if (start < 0 || end < start) throw new JudgeReplyError(nodeId, `no JSON object in ${JSON.stringify(reply.slice(0, 200))}`);
  let v: unknown;
  try {
    v = JSON.parse(reply.slice(start, end + 1));
  } catch (e) {
    throw new JudgeReplyError(nodeId, `not JSON: ${(e as Error).message}`);
  }
  if (!isRec(v) || !Array.isArray(v.confirmed) || typeof v.confidence !== "number" || !Number.isFinite(v.confidence)) {
    throw new JudgeReplyError(nodeId, `expected {"confirmed": [...], "confidence": number}, got ${JSON.stringify(v).slice(0, 200)}`);
  }
  const said = new Set(v.confirmed.filter((x): x is string => typeof x === "string").map((x) => x.trim().toUpperCase()));
  const confirmed = CATEGORIES.filter((k) => said.has(k) && triggered.includes(k));
  return { confirmed, confidence: Math.min(1, Math.max(0, v.confidence)) };
}

/**
 * Detection with a judge: rules, then one judge call per triggered node (in observed order), then
 * scores and the anchor with L_v = L_f and c̃_LLM from the judge.
 * @throws JudgeReplyError for an unusable reply; errors of `judge.complete` propagate
 */
export async function detectWithJudge(bundle: ReplayBundle, judge: SymptomJudge): Promise<DetectionResult> {
  const scan = scanRules(bundle);
  const verdicts = new Map<string, JudgeVerdict>();
  for (const t of scan.triggered) {
    const request = buildJudgeRequest(bundle, t, judge.model);
    const reply = await judge.complete(request);
    try {
      verdicts.set(t.node.id, parseSymptomJudgeReply(t.node.id, reply, t.triggered));
    } catch (e) {
      judge.forget?.(request);
      throw e;
    }
  }
  return finalizeDetection(scan, verdicts, judge.model);
}
