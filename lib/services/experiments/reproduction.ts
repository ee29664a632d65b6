/**
 * The reproduction judge of repair experiments (issue 13 item 3; seeds/000 §5.2, Appendix D.1):
 * does an attempt's execution reproduce the SOURCE failure (z_{i,a}^m of eq. 2 and 13)? Two kinds,
 * chosen in the experiment's frozen settings:
 *
 * - **LLM judge** through a configured OpenAI-compatible endpoint: REPRODUCTION_JUDGE_SYSTEM_PROMPT
 *   (lib/experiments/prompts.ts: MAST judge adapted to C1–C4, eq. 9–13) with the task, the
 *   reference (node, primary category, rationale, the node's source content) and the attempt's
 *   trajectory. Method-blinded: nothing names the method; task nodes are shown as the ORIGINAL task
 *   and llm_call request metadata is never shown, so a changed task or injected guidance cannot leak.
 *   Reply: one strict JSON object `{reproduced, category, nodeId, reason}` (parseReproductionVerdict).
 * - **Command** with the evaluator's contract (lib/services/replay-evaluate.ts: SYMTRACE_TASK = the
 *   original task, SYMTRACE_FINAL, SYMTRACE_BUNDLE = the attempt) plus SYMTRACE_SOURCE_BUNDLE (a
 *   file holding the source bundle) and SYMTRACE_REFERENCE (the reference as JSON, or `null`).
 *   Exit 0 = reproduced, 1 = not reproduced, anything else = unknown, with the command's reason.
 *
 * Judge calls are not MAS calls: they are reported apart (`judgeCalls`, `judgeTokens`).
 */
import type { BundleNode, ReplayBundle } from "../../bundle";
import { JUDGE_EVENT_CHARS, JUDGE_MAX_EVENTS, REPRODUCTION_JUDGE_SYSTEM_PROMPT } from "../../experiments/prompts";
import { CATEGORIES } from "../../annotation/protocol";
import { CATEGORY_MEANING, type Category } from "../../symptoms";
import { writeEvalFile, type EvalFile } from "../eval-files";
import { evaluateReplay } from "../replay-evaluate";
import { nodeText } from "../replay";
import { ChatCallError, ZERO_TOKENS, chatOnce, type SimpleMessage } from "./llm";
import type { CaseReference, ReproductionJudgeSetting, TokenCounts } from "./methods/types";

/** What the judge compares. */
export interface ReproductionInput {
  /** The attempt's trajectory (replay output or new recording). */
  attempt: ReplayBundle;
  /** The source failure. */
  source: ReplayBundle;
  /** The case's ORIGINAL task text (not a task-level method's changed task). */
  task: string;
  reference: CaseReference | null;
}

/** The judge's verdict. `reproduced` null = unknown (judge error, or no reference for the LLM judge), with the reason. */
export interface ReproductionVerdict {
  reproduced: boolean | null;
  /** LLM judge: the category of the failure it localized in the attempt; command: null. */
  category: Category | null;
  /** LLM judge: the matching (or localized) node of the attempt; command: null. */
  nodeId: string | null;
  reason: string;
  judgeCalls: number;
  judgeTokens: TokenCounts;
}

/** A reply of the LLM judge that is not the required JSON verdict. The message names the field. */
export class ReproductionReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReproductionReplyError";
  }
}

const CATS: ReadonlySet<string> = new Set(CATEGORIES);

/**
 * Parse the LLM judge's reply: exactly one JSON object (optionally inside one ```json fence)
 * with `reproduced` (boolean), `category` ("C1"–"C4" or null), `nodeId` (string or null) and
 * `reason` (non-empty string). Extra keys are ignored.
 * @throws ReproductionReplyError naming the JSON path of the first problem and quoting the reply's start
 */
export function parseReproductionVerdict(reply: string): { reproduced: boolean; category: Category | null; nodeId: string | null; reason: string } {
  const quote = JSON.stringify(reply.slice(0, 120));
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(reply);
  let v: unknown;
  try {
    v = JSON.parse(fenced ? fenced[1] : reply);
  } catch {
    throw new ReproductionReplyError(`reproduction judge reply is not one JSON object: ${quote}`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new ReproductionReplyError(`reproduction judge reply is not a JSON object: ${quote}`);
  const o = v as Record<string, unknown>;
  if (typeof o.reproduced !== "boolean") throw new ReproductionReplyError(`reproduction judge reply: $.reproduced must be true or false, got ${JSON.stringify(o.reproduced) ?? "nothing"}`);
  if (o.category !== null && o.category !== undefined && !(typeof o.category === "string" && CATS.has(o.category)))
    throw new ReproductionReplyError(`reproduction judge reply: $.category must be "C1", "C2", "C3", "C4" or null, got ${JSON.stringify(o.category)}`);
  if (o.nodeId !== null && o.nodeId !== undefined && typeof o.nodeId !== "string") throw new ReproductionReplyError(`reproduction judge reply: $.nodeId must be a string or null, got ${JSON.stringify(o.nodeId)}`);
  if (typeof o.reason !== "string" || o.reason.trim() === "") throw new ReproductionReplyError(`reproduction judge reply: $.reason must be a non-empty string, got ${JSON.stringify(o.reason) ?? "nothing"}`);
  return { reproduced: o.reproduced, category: (o.category as Category | null | undefined) ?? null, nodeId: (o.nodeId as string | null | undefined) ?? null, reason: o.reason.trim() };
}

function cut(s: string, n: number): string {
  const one = s.replace(/\s+/g, " ").trim();
  const cps = Array.from(one);
  return cps.length > n ? cps.slice(0, n - 1).join("") + "…" : one;
}

const isTaskNode = (n: BundleNode) => n.id.startsWith("task_") || (n.type === "message" && n.label === "task");
const isCallMeta = (n: BundleNode) => n.type === "llm_call" && !!n.content && typeof n.content === "object" && "requestHash" in (n.content as object);

/**
 * The trajectory as the judge sees it: one line per event in observed order,
 * `[id] type (agent): text` (text cut to JUDGE_EVENT_CHARS); task nodes show `task` (the original
 * task, given separately); llm_call request metadata nodes are left out (their content is the
 * request, which may carry a method's changed task or guidance). Longer than JUDGE_MAX_EVENTS: the
 * first 20 and the last events, with a line saying how many were left out.
 */
export function renderTrajectory(bundle: ReplayBundle): string {
  const byId = new Map(bundle.graph.nodes.map((n) => [n.id, n]));
  const lines: string[] = [];
  for (const id of bundle.order) {
    const n = byId.get(id);
    if (!n || isCallMeta(n)) continue;
    const text = isTaskNode(n) ? "(the task above)" : cut(nodeText(n), JUDGE_EVENT_CHARS);
    lines.push(`[${n.id}] ${n.type}${n.agent ? ` (${n.agent})` : ""}${n.status && n.status !== "success" ? ` status=${n.status}` : ""}: ${text}`);
  }
  if (lines.length <= JUDGE_MAX_EVENTS) return lines.join("\n");
  const head = 20;
  const tail = JUDGE_MAX_EVENTS - head;
  return [...lines.slice(0, head), `… ${lines.length - JUDGE_MAX_EVENTS} events left out …`, ...lines.slice(-tail)].join("\n");
}

/**
 * The LLM judge's messages (system = REPRODUCTION_JUDGE_SYSTEM_PROMPT; user = task, reference,
 * new trajectory). Never includes the method, the guidance, the task's evaluator-only reference or
 * evaluator output.
 * @throws Error when `input.reference` is null (the LLM judge needs a reference)
 */
export function buildReproductionMessages(input: ReproductionInput): SimpleMessage[] {
  const ref = input.reference;
  if (!ref) throw new Error("the LLM reproduction judge needs a reference (node and category)");
  const node = input.source.graph.nodes.find((n) => n.id === ref.nodeId);
  const cat = ref.primaryCategory;
  const others = ref.categories.filter((c) => c !== cat);
  const user = [
    `Task: ${input.task}`,
    "",
    "Reference failure of the earlier execution:",
    `- failure node: ${ref.nodeId}${node ? ` (${node.type}${node.agent ? `, agent ${node.agent}` : ""})` : ""}`,
    `- primary category: ${cat} (${CATEGORY_MEANING[cat]})${others.length ? `; also: ${others.join(", ")}` : ""}`,
    ...(ref.rationale?.trim() ? [`- rationale: ${cut(ref.rationale, 1200)}`] : []),
    ...(ref.evidence?.length ? [`- evidence: ${ref.evidence.slice(0, 5).map((q) => JSON.stringify(cut(q, 300))).join("; ")}`] : []),
    ...(node ? [`- content of the failure node: ${isTaskNode(node) ? "(the task)" : cut(nodeText(node), JUDGE_EVENT_CHARS)}`] : []),
    "",
    "New execution trajectory:",
    renderTrajectory(input.attempt),
  ].join("\n");
  return [
    { role: "system", content: REPRODUCTION_JUDGE_SYSTEM_PROMPT },
    { role: "user", content: user },
  ];
}

/** The attempt bundle as an evaluator-contract command sees it: SYMTRACE_TASK = the original task. */
function withTask(b: ReplayBundle, task: string): ReplayBundle {
  return b.task.prompt === task ? b : { ...b, task: { ...b.task, prompt: task } };
}

/**
 * Run the command judge (module doc). Never throws.
 * @returns reproduced true (exit 0) / false (exit 1) / null with the command's reason (other exits)
 */
export async function commandReproductionJudge(command: string, input: ReproductionInput, o: { timeoutMs?: number } = {}): Promise<ReproductionVerdict> {
  let written: EvalFile | null = null;
  try {
    written = writeEvalFile("source.json", JSON.stringify(input.source));
    const out = await evaluateReplay(withTask(input.attempt, input.task), command, { timeoutMs: o.timeoutMs, env: { SYMTRACE_SOURCE_BUNDLE: written.path, SYMTRACE_REFERENCE: JSON.stringify(input.reference ?? null) }, thread: true });
    const details = out?.details;
    const said = details && typeof details === "object" ? ((details as { error?: unknown; reason?: unknown }).error ?? (details as { reason?: unknown }).reason) : details;
    const reason = typeof said === "string" && said ? said : out?.passed === true ? "judge command: reproduced (exit 0)" : out?.passed === false ? "judge command: not reproduced (exit 1)" : "judge command gave no verdict";
    return { reproduced: out?.passed ?? null, category: null, nodeId: null, reason: cut(reason, 500), judgeCalls: 0, judgeTokens: { ...ZERO_TOKENS } };
  } catch (e) {
    return { reproduced: null, category: null, nodeId: null, reason: `judge command failed: ${(e as Error).message}`, judgeCalls: 0, judgeTokens: { ...ZERO_TOKENS } };
  } finally {
    written?.remove();
  }
}

/**
 * Run the LLM judge (module doc): one chat-completions call, the reply parsed strictly. Never
 * throws for expected problems: no reference, an unreachable endpoint or a malformed reply give
 * `reproduced: null` with the reason (the malformed reply's problem named).
 * @param model the judge model (default "gpt-4o-mini" when null)
 */
export async function llmReproductionJudge(upstream: string, model: string | null, input: ReproductionInput, o: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ReproductionVerdict> {
  const none = (reason: string, calls = 0, tokens: TokenCounts = { ...ZERO_TOKENS }): ReproductionVerdict => ({ reproduced: null, category: null, nodeId: null, reason, judgeCalls: calls, judgeTokens: tokens });
  if (!input.reference) return none("no reference label for this case: the LLM reproduction judge cannot compare");
  let reply: { text: string; tokens: TokenCounts };
  try {
    reply = await chatOnce(upstream, { model: model ?? "gpt-4o-mini", messages: buildReproductionMessages(input), temperature: 0 }, { signal: o.signal, timeoutMs: o.timeoutMs ?? 120_000 });
  } catch (e) {
    if (e instanceof ChatCallError) return none(`reproduction judge: ${e.message}`, 1);
    throw e;
  }
  try {
    const v = parseReproductionVerdict(reply.text);
    return { ...v, judgeCalls: 1, judgeTokens: reply.tokens };
  } catch (e) {
    if (e instanceof ReproductionReplyError) return none(e.message, 1, reply.tokens);
    throw e;
  }
}

/**
 * The configured judge on one attempt.
 * @returns null when no judge is configured; else the verdict (never throws except for an abort of `o.signal`)
 */
export async function judgeReproduction(judge: ReproductionJudgeSetting | null, input: ReproductionInput, o: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ReproductionVerdict | null> {
  if (!judge) return null;
  return judge.kind === "command" ? commandReproductionJudge(judge.command, input, o) : llmReproductionJudge(judge.upstream, judge.model, input, o);
}
