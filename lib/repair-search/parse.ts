/**
 * Parsing of the judge's and the selector's replies (seeds/002 appendix output formats), with the
 * paper's score caps enforced where the reply itself shows they apply.
 */
import type { JudgeVerdict, RepairAction } from "./types";

/** A reply the search cannot use; `message` says what was wrong and quotes the start of the reply. */
export class ReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplyError";
  }
}

const FM_RE = /^(None|Other|FM [123]\.[1-6])$/;

function quote(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return JSON.stringify(t.length > 120 ? `${t.slice(0, 120)}…` : t);
}

function normalizeMode(raw: unknown): string {
  const s = String(raw ?? "None").trim().replace(/^"|"$/g, "");
  const m = /^FM\s*([123])\.([1-6])$/i.exec(s);
  if (m) return `FM ${m[1]}.${m[2]}`;
  if (/^none$/i.test(s) || s === "") return "None";
  return FM_RE.test(s) ? s : "Other";
}

/**
 * Caps that the verdict's own fields make certain (seeds/002 rubric): 1.0 only for a found solution
 * with no failure mode (else ≤ 0.9); FM 3.3 (hallucination / incorrect verification) ≤ 0.3.
 */
export function capScore(v: JudgeVerdict): JudgeVerdict {
  let score = Math.min(1, Math.max(0, v.score));
  if (score >= 1 && !(v.foundSolution && v.failureMode === "None")) score = 0.9;
  if (v.failureMode === "FM 3.3") score = Math.min(score, 0.3);
  return { ...v, score };
}

/**
 * Parse a judge reply: a JSON object `{found_solution, detected_failure_mode, reasoning, score}`
 * (our prompt), the command contract `{score, failureMode, feedback}`, or the paper's four lines
 * (`Found_solution: …`, `Detected_failure_mode: …`, `Reasoning: …`, `Score: …`). A JSON object may be
 * wrapped in a Markdown code fence.
 * @throws ReplyError when no score in [0, 1] can be read (names the field and quotes the reply).
 */
export function parseJudgeReply(text: string): JudgeVerdict {
  const trimmed = text.trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  const start = trimmed.indexOf("{");
  const end = trimmed.lastIndexOf("}");
  if (start >= 0 && end > start) {
    let obj: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(trimmed.slice(start, end + 1));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) obj = parsed as Record<string, unknown>;
    } catch {
      obj = null;
    }
    if (obj) {
      const score = typeof obj.score === "number" ? obj.score : Number(obj.score);
      if (!Number.isFinite(score) || score < 0 || score > 1) throw new ReplyError(`judge reply: $.score must be a number in [0, 1] (got ${JSON.stringify(obj.score)})`);
      const failureMode = normalizeMode(obj.detected_failure_mode ?? obj.failureMode);
      const feedback = String(obj.reasoning ?? obj.feedback ?? "");
      const fs = obj.found_solution ?? obj.foundSolution;
      const foundSolution = fs === true || fs === "true" || (fs === undefined && score >= 1 && failureMode === "None");
      return capScore({ score, failureMode, feedback, foundSolution });
    }
  }
  const line = (key: string) => new RegExp(`^\\s*${key}\\s*:\\s*(.*)$`, "im").exec(trimmed)?.[1]?.trim();
  const scoreText = line("Score");
  if (scoreText === undefined) throw new ReplyError(`judge reply has neither a JSON object nor a "Score:" line: ${quote(text)}`);
  const score = Number.parseFloat(scoreText.replace(/[[\]]/g, ""));
  if (!Number.isFinite(score) || score < 0 || score > 1) throw new ReplyError(`judge reply: Score must be a number in [0, 1] (got ${quote(scoreText)})`);
  const reasoning = /^\s*Reasoning\s*:\s*([\s\S]*?)^\s*Score\s*:/im.exec(trimmed)?.[1]?.trim() ?? "";
  return capScore({
    score,
    failureMode: normalizeMode(line("Detected_failure_mode")),
    feedback: reasoning,
    foundSolution: /^true$/i.test(line("Found_solution") ?? ""),
  });
}

/** A tool call as the OpenAI chat-completions API returns it. */
export interface ToolCallLike {
  function?: { name?: string; arguments?: string };
}

/**
 * Parse the selector's reply: exactly one call of `rollback {checkpoint, guidance}`,
 * `guided_repair {guidance}` or `continuation {}` (seeds/002: "exactly one function call").
 * @throws ReplyError when there is not exactly one call, the name is unknown, or the arguments are
 *   not a JSON object with the required non-empty strings (names the argument).
 */
export function parseSelectorReply(toolCalls: readonly ToolCallLike[] | null | undefined): RepairAction {
  const calls = toolCalls ?? [];
  if (calls.length !== 1) throw new ReplyError(`selector must call exactly one function, got ${calls.length}`);
  const name = calls[0].function?.name ?? "";
  const rawArgs = calls[0].function?.arguments ?? "{}";
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawArgs || "{}");
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    args = parsed as Record<string, unknown>;
  } catch {
    throw new ReplyError(`selector ${name || "call"}: arguments are not a JSON object: ${quote(rawArgs)}`);
  }
  const str = (key: string): string => {
    const v = args[key];
    if (typeof v !== "string" || v.trim() === "") throw new ReplyError(`selector ${name}: argument "${key}" must be a non-empty string`);
    return v.trim();
  };
  switch (name) {
    case "rollback":
      return { kind: "rollback", checkpoint: str("checkpoint"), guidance: str("guidance") };
    case "guided_repair":
      return { kind: "guided_repair", guidance: typeof args.guidance === "string" ? args.guidance.trim() : "" };
    case "continuation":
      return { kind: "continuation" };
    default:
      throw new ReplyError(`selector called unknown function ${JSON.stringify(name)} (expected rollback, guided_repair or continuation)`);
  }
}
