/**
 * Transcript continuation: imported transcripts (Who&When, MAD, Langfuse …) have no runner to
 * restart: the recorded conversation up to (not including) the target node is rebuilt as chat
 * messages and continued live by one chat-completions call with the same model; the continuation
 * is one assistant message. Prefix node hashes are recomputed (the "verified" prefix). Outcomes:
 * completed, prefix-verified (no upstream), cancelled, failed. Entry point: ./execute.ts.
 * Substitution (`spec.substitution`, issue 14 item 4): the continuation is the proposed correction
 * itself (no model call, no upstream needed), recorded with `meta.substituted: true` and
 * `parent.substitution`; `liveCalls` 0.
 */
import { performance } from "node:perf_hooks";
import { buildBundle, canonicalJson, hashJson, type BundleEdge, type BundleNode, type NodeDraft, type NodeType, type RecordDraft, type ReplayBundle } from "../../bundle";
import { DEFAULT_NORMALIZATION, TargetError, agentActionContent, assistantOf, llmCallContent, normalizeRequest, substitutedResponse } from "../../replay";
import { DEFAULT_TRANSCRIPT_MODEL, defaultId, isRec, limitOf, oneLine, str, trimSlash, type ProgressEmitter, type Rec } from "./helpers";
import type { ReplayFailureKind, ReplayRunDetails, ReplayRunOptions, ReplayRunResult, ReplayRunSpec } from "./types";

/** A chat message of the rebuilt transcript. */
export interface TranscriptMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

const GENERIC_ROLES = new Set(["user", "assistant", "system", "tool", "function", "developer", "human"]);
const HUMAN = new Set(["human", "user"]);

function canon(v: unknown): string {
  try {
    return canonicalJson(v);
  } catch {
    return JSON.stringify(v) ?? String(v);
  }
}

/** Text of an OpenAI-style message (string content, text parts, tool calls). */
function messageText(m: unknown): string {
  if (!isRec(m)) return typeof m === "string" ? m : canon(m);
  const parts: string[] = [];
  if (typeof m.content === "string") parts.push(m.content);
  else if (Array.isArray(m.content)) parts.push(m.content.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : canon(p))).join(""));
  if (Array.isArray(m.tool_calls)) {
    for (const tc of m.tool_calls) {
      const fn = isRec(tc) && isRec(tc.function) ? tc.function : isRec(tc) ? tc : {};
      parts.push(`→ ${String(fn.name ?? "tool")}(${typeof fn.arguments === "string" ? fn.arguments : canon(fn.arguments ?? null)})`);
    }
  }
  return parts.join("\n");
}

/**
 * The full text a node carries, never truncated: `content.text` (Who&When, MAD), a string content,
 * `content.content`, the output messages of an LLM span (Langfuse/OTLP), `content.final`,
 * `content.output`, a span's `input` (or "" for a span without either), else the canonical JSON of
 * the content.
 */
export function nodeText(node: BundleNode): string {
  const c = node.content;
  if (typeof c === "string") return c;
  if (!isRec(c)) return c === null || c === undefined ? "" : canon(c);
  if (typeof c.text === "string") return c.text;
  if (typeof c.content === "string" || Array.isArray(c.content) || Array.isArray(c.tool_calls)) return messageText(c);
  if (isRec(c.messages) && Array.isArray(c.messages.output) && c.messages.output.length > 0) return c.messages.output.map(messageText).join("\n");
  if (typeof c.finalAnswer === "string") return c.finalAnswer;
  if ("final" in c) return typeof c.final === "string" ? c.final : canon(c.final ?? null);
  if ("output" in c && c.output !== undefined && c.output !== null) return typeof c.output === "string" ? c.output : canon(c.output);
  // A span (Langfuse/OTLP) without output: its input, else nothing (span metadata is not conversation text).
  if ("spanId" in c) return c.input === undefined || c.input === null ? "" : typeof c.input === "string" ? c.input : canon(c.input);
  return canon(c);
}

/** Who speaks in a node: a speaker-like `content.role` ("Orchestrator (-> WebSurfer)"), else the agent / name / role. */
function speakerOf(node: BundleNode): string | null {
  const c = isRec(node.content) ? node.content : {};
  const role = str(c.role);
  if (role && !GENERIC_ROLES.has(role.toLowerCase())) return role;
  return str(node.agent) ?? str(c.name) ?? role;
}

/** The message one node becomes, or null when the node carries no conversation text of its own. */
function nodeMessage(node: BundleNode): TranscriptMessage | null {
  const c = isRec(node.content) ? node.content : {};
  // An llm_call recorded by the symtrace proxy holds only call metadata; its agent_action holds the text.
  if (node.type === "llm_call" && "requestHash" in c && "messageCount" in c) return null;
  const text = nodeText(node);
  if (text === "" && "spanId" in c) return null;
  const role = str(c.role)?.toLowerCase() ?? null;
  if (role === "system" || role === "developer") return { role: "system", content: text };
  const speaker = speakerOf(node);
  if (node.type === "tool_result") return { role: "user", content: `[tool result from ${str(node.agent) ?? str(c.tool) ?? speaker ?? "tool"}] ${text}` };
  const who = (str(node.agent) ?? str(c.name) ?? role ?? "").toLowerCase();
  if (HUMAN.has(who) || node.id.startsWith("task_")) return { role: "user", content: text };
  return { role: "assistant", content: `[${speaker ?? node.type}] ${text}` };
}

/**
 * The chat a transcript continuation sends (before the model and temperature are added): a system
 * message saying what to do, every node before the target in the observed order as one message
 * (user for the task / human, `[tool result from X] …` as user for tool results, `[Agent] …` as
 * assistant for agent messages; text kept whole), the task prompt first when no node is a user
 * message, and the guidance as the final user message (omitted when "").
 * @throws Error when the target is not a node of the source
 */
export function transcriptMessages(source: ReplayBundle, targetNodeId: string, guidance: string): TranscriptMessage[] {
  const tpos = source.order.indexOf(targetNodeId);
  const byId = new Map(source.graph.nodes.map((n) => [n.id, n]));
  const target = byId.get(targetNodeId);
  if (tpos < 0 || !target) throw new TargetError(`target "${targetNodeId}" is not a node of bundle "${source.id}"`);
  const body: TranscriptMessage[] = [];
  for (const id of source.order.slice(0, tpos)) {
    const m = nodeMessage(byId.get(id)!);
    if (m) body.push(m);
  }
  const as = speakerOf(target);
  const system: TranscriptMessage = {
    role: "system",
    content:
      `You are continuing a recorded multi-agent run${source.config.mas ? ` (${source.config.mas})` : ""}. ` +
      "The messages below are the run so far, in order: agent messages are prefixed with [agent name], tool outputs with [tool result from <tool>]. " +
      `Write the next message of the run${as && !HUMAN.has(as.toLowerCase()) ? ` as ${as}` : ""}, following the last user instruction if there is one.`,
  };
  const hasUser = body.some((m) => m.role === "user");
  return [
    system,
    ...(!hasUser && source.task.prompt ? [{ role: "user" as const, content: source.task.prompt }] : []),
    ...body,
    ...(guidance ? [{ role: "user" as const, content: guidance }] : []),
  ];
}


function shortLabel(s: string, n = 80): string {
  const one = s.replace(/\s+/g, " ").trim();
  const cps = Array.from(one);
  return cps.length > n ? cps.slice(0, n - 1).join("") + "…" : one || "(empty message)";
}

/** Run a transcript continuation (see the module doc). Throws only for internal errors (the caller maps them to `failed`). */
export async function runTranscript(spec: ReplayRunSpec, opts: ReplayRunOptions, details: ReplayRunDetails, progress: ProgressEmitter): Promise<ReplayRunResult> {
  const s = spec.source;
  const failed = (kind: ReplayFailureKind, error: string): ReplayRunResult => {
    details.failure = kind;
    return { status: "failed", error, verified: progress.verified };
  };
  const substitution = spec.substitution ?? null;
  if (substitution !== null && spec.guidance) return failed("config", "substitution replaces the target's output: give no guidance with it");
  let messages: TranscriptMessage[];
  try {
    messages = transcriptMessages(s, spec.targetNodeId, spec.guidance);
  } catch (e) {
    return failed("target", oneLine(e));
  }
  // Only the instructions (and the guidance): nothing recorded would be continued.
  if (!messages.some((m, i) => i > 0 && m.content !== spec.guidance)) {
    return failed("target", `nothing recorded before ${spec.targetNodeId} carries conversation text (no task, message, output or tool result the importer could read): a continuation would start from an empty conversation; choose a later node`);
  }
  const tpos = s.order.indexOf(spec.targetNodeId);
  const prefixIds = s.order.slice(0, tpos);
  const byId = new Map(s.graph.nodes.map((n) => [n.id, n]));
  progress.prefixTotal = prefixIds.length;
  progress.boundaryNodeId = spec.targetNodeId;
  progress.emit("starting");

  // The prefix: every node's content hash recomputed and compared with the source's.
  const every = Math.max(1, Math.floor(prefixIds.length / 100));
  for (let i = 0; i < prefixIds.length; i++) {
    if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };
    const n = byId.get(prefixIds[i])!;
    const h = hashJson(n.content);
    if (h !== n.contentHash) return failed("config", `prefix node ${n.id}: content hash ${h} differs from the stored ${n.contentHash} (the source bundle is corrupt)`);
    progress.verified = i + 1;
    details.checkedNodes = i + 1;
    if ((i + 1) % every === 0 || i + 1 === prefixIds.length) progress.emit("prefix");
  }
  if (!spec.upstream && substitution === null) {
    progress.emit("finishing");
    return { status: "prefix-verified", mode: "transcript", verified: prefixIds.length, boundaryNodeId: spec.targetNodeId };
  }
  if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };

  const model = spec.model ?? s.config.model ?? DEFAULT_TRANSCRIPT_MODEL;
  const request = { model, messages, temperature: s.config.temperature ?? 0 };
  let status = 200;
  let text = "";
  let latencyMs = 0;
  let body: unknown;
  if (substitution !== null) {
    try {
      body = substitutedResponse(request, substitution);
    } catch (e) {
      return failed("config", oneLine(e));
    }
  } else {
  const upstream = spec.upstream ?? "";
    progress.liveCalls = 1;
  progress.emit("live");
  const limit = limitOf(spec.timeoutMs);
  const signals = [opts.signal, limit !== null ? AbortSignal.timeout(limit) : undefined].filter((x): x is AbortSignal => !!x);
  const apiKey = spec.env?.OPENAI_API_KEY || process.env.OPENAI_API_KEY;
  const t0 = performance.now();
  try {
    const res = await fetch(`${trimSlash(upstream)}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(request),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
    status = res.status;
    text = await res.text();
  } catch (e) {
    if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };
    if ((e as Error).name === "TimeoutError") return failed("timeout", `replay timed out after ${limit} ms waiting for ${spec.upstream}`);
    return failed("upstream", `upstream ${spec.upstream} unreachable: ${oneLine(e)}`);
  }
  latencyMs = Math.round(performance.now() - t0);
  if (opts.signal?.aborted) return { status: "cancelled", verified: progress.verified };
  try {
    body = JSON.parse(text);
  } catch {
    return failed("upstream", `upstream answered HTTP ${status} with a body that is not JSON: ${text.slice(0, 300)}`);
  }
  if (status >= 400) {
    const msg = isRec(body) && isRec(body.error) && typeof body.error.message === "string" ? body.error.message : text.slice(0, 300);
    return failed("upstream", `upstream answered HTTP ${status}: ${msg}`);
  }
  }
  const a = assistantOf(body);
  if (!a) return failed("upstream", `upstream answered HTTP ${status} without an assistant message: ${text.slice(0, 300)}`);
  const continuation = messageText(a.message);
  details.final = continuation;
  progress.emit("finishing");

  // The output bundle: prefix kept (ids, hashes, edges, records), then llm_call → agent_action → final_result.
  const all = new Set(s.graph.nodes.map((n) => n.id));
  const next: Partial<Record<NodeType, number>> = {};
  for (const n of s.graph.nodes) {
    const m = /_(\d+)$/.exec(n.id);
    if (m && n.id.startsWith(n.type)) next[n.type] = Math.max(next[n.type] ?? 0, Number(m[1]) + 1);
  }
  const newId = (type: NodeType): string => {
    for (;;) {
      const i = next[type] ?? 0;
      next[type] = i + 1;
      const id = `${type}_${String(i).padStart(4, "0")}`;
      if (!all.has(id)) {
        all.add(id);
        return id;
      }
    }
  };
  const normalization = DEFAULT_NORMALIZATION;
  const normalized = normalizeRequest("llm", request, normalization);
  const requestHash = hashJson(normalized);
  const target = byId.get(spec.targetNodeId)!;
  const agent = speakerOf(target) !== null && !HUMAN.has(speakerOf(target)!.toLowerCase()) ? (str(target.agent) ?? speakerOf(target)) : null;
  const llmId = newId("llm_call");
  const actionId = newId("agent_action");
  const finalId = newId("final_result");
  const prefix = new Set(prefixIds);
  const nodes: NodeDraft[] = [
    ...prefixIds.map((id) => byId.get(id)!),
    { id: llmId, type: "llm_call", label: substitution !== null ? "proposed correction (substituted; no model call)" : `${model} call (transcript continuation)`, content: llmCallContent(normalized, requestHash, { response: body, httpStatus: status }), status: "success" },
    { id: actionId, type: "agent_action", ...(agent ? { agent } : {}), label: shortLabel(continuation), content: agentActionContent(body) },
    { id: finalId, type: "final_result", ...(agent ? { agent } : {}), label: shortLabel(continuation), content: { final: continuation } },
  ];
  const edges: BundleEdge[] = s.graph.edges.filter((e) => prefix.has(e.from) && prefix.has(e.to));
  const addEdge = (from: string, to: string, kind: "data" | "control") => {
    if (!edges.some((e) => e.from === from && e.to === to)) edges.push({ from, to, kind });
  };
  // The continuation depends on what the target depended on, and on the transcript it continues.
  for (const e of s.graph.edges) if (e.to === spec.targetNodeId && prefix.has(e.from)) addEdge(e.from, llmId, e.kind);
  if (prefixIds.length) addEdge(prefixIds[prefixIds.length - 1], llmId, "data");
  addEdge(llmId, actionId, "data");
  addEdge(actionId, finalId, "data");
  const records: RecordDraft[] = [
    ...s.records.filter((r) => prefix.has(r.nodeId)).map((r) => ({ ...r })),
    {
      nodeId: llmId,
      boundary: "llm",
      request: normalized,
      response: body,
      meta: { latencyMs, mode: "transcript-continuation", ...(spec.guidance ? { guidance: spec.guidance } : {}), ...(substitution !== null ? { substituted: true } : {}) },
    },
  ];
  const { id: _id, format: _f, parent: _p, task, initialState, config: _c, graph: _g, order: _o, records: _r, outcome: _out, source: _src, referenceLabels: _rl, ...extra } = s as ReplayBundle & Rec;
  const bundle = buildBundle({
    id: spec.newBundleId ?? defaultId(s, spec.targetNodeId),
    parent: { bundleId: s.id, targetNodeId: spec.targetNodeId, guidance: spec.guidance, mode: "transcript", ...(substitution !== null ? { substitution: { correction: substitution, boundaryNodeId: spec.targetNodeId } } : {}) },
    task,
    initialState,
    config: { ...s.config, replay: { ...(s.config.replay ?? {}), normalization, mode: "transcript-continuation", model } },
    nodes,
    edges,
    order: [...prefixIds, llmId, actionId, finalId],
    records,
    extra,
  });
  return { status: "completed", mode: "transcript", bundle, boundaryNodeId: spec.targetNodeId, verified: prefixIds.length, liveCalls: substitution !== null ? 0 : 1 };
}
