/**
 * Trace Construction (seeds/000 §3.1, Algorithm 1): turns boundary events, in the order they
 * cross the proxy, into graph nodes, dependency edges, the observed order and boundary records.
 * Used by snapshot (record) mode for the whole run and by selective replay for the live suffix.
 *
 * Nodes per event (ids `<type>_<nnnn>`, 4 digits, counted per type):
 *   LLM request  -> llm_call (record node)      -> agent_action (the assistant message it produced)
 *   tool request -> tool_call (record node)     -> tool_result (the observation)
 *   run end      -> final_result (`{ final }` from the command's stdout JSON, if any)
 *   task prompt  -> task_0000 (message, agent "User"), when a task is given
 * Edges:
 *   data    from content (edges.ts): every earlier agent_action / tool_result the request carries
 *           (its history, its tool results, an answer pasted into its prompt), reduced to the
 *           latest; a tool_result not yet consumed -> the next llm_call of the same agent (or one
 *           that carries it); a request carrying nothing recognisable -> the same agent's last
 *           agent_action, else the last agent_action, else the task (the rule before issue 21);
 *           llm_call -> its agent_action; llm_call whose tool_calls named a tool -> that tool_call;
 *           tool_call -> tool_result; last agent_action / unconsumed tool_results -> final_result
 *   control agent_action -> each tool_call it named (order of action then call); the last
 *           agent_action (or task) -> a tool_call no assistant message named
 * In-process tools (issue 21 item 3; tools the framework runs itself, never through the gateway):
 * a tool call named by a response (chat `tool_calls[].id`, Responses `function_call.call_id`,
 * Anthropic `tool_use.id`) whose result comes back in a later request (`tool_call_id` /
 * `call_id` / `tool_use_id`) and that no gateway call served becomes, when that request arrives,
 * a tool_call node (content `{ tool, arguments }`, agent = the caller's) and a tool_result node
 * (content = the output as carried), before the request's llm_call:
 *           llm_call (named it) -> tool_call (data); its agent_action -> tool_call (control);
 *           tool_call -> tool_result -> the llm_call of the request carrying it (data).
 *   They have no boundary record: the result is part of the next LLM request, so a changed result
 *   is a request-hash divergence there ("tool result differs").
 * Agents: every llm_call gets one (agents.ts rule); tool nodes take their caller's.
 * Every edge goes from an earlier node to a later one, so `order` (append order) is a linear
 * extension of G (spec §Validation 3).
 */
import { canonicalJson, hashContent, type BundleEdge, type NodeType, type RecordDraft, type NodeDraft } from "../bundle";
import { AgentLanes, agentEvidence } from "./agents";
import { ContentEdges, MIN_CONTAINED } from "./edges";
import { assistantOf, namedToolCalls, type AssistantMessage } from "./openai";
import { protocolAdapter, type OutputView, type ProtocolName } from "./protocols";

/** Identifies the recorder's node conventions in `config.replay.recorder`; replay checks node hashes only for these bundles. */
export const RECORDER_ID = "symtrace-proxy/v1";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** How a live boundary ended, as the proxy saw it. */
export interface BoundaryOutcome {
  /** The body the MAS received (parsed JSON, or `{ stream: true, events }` for a stream). */
  response: unknown;
  /** HTTP status returned to the MAS (default 200). */
  httpStatus?: number;
  latencyMs?: number;
  /** Set when the boundary failed (upstream unreachable, non-2xx). */
  error?: { type: string; message: string } | null;
}

/**
 * `content` of an llm_call node: what the request was and how the call ended (never the full
 * prompt). A record of another protocol than chat also names it (`protocol`); chat content is
 * exactly as before protocols existed (so old bundles' node hashes still verify).
 */
export function llmCallContent(request: unknown, requestHash: string, outcome: BoundaryOutcome, protocol?: string | null): unknown {
  const r = isRec(request) ? request : {};
  const httpStatus = outcome.httpStatus ?? 200;
  if (protocol && protocol !== "openai-chat") {
    const ad = protocolAdapter(protocol);
    return {
      protocol,
      model: typeof r.model === "string" ? r.model : null,
      messageCount: ad.messageCount(request),
      stream: r.stream === true,
      requestHash,
      finishReason: ad.output(outcome.response)?.finishReason ?? null,
      ...(httpStatus !== 200 ? { httpStatus } : {}),
    };
  }
  const a = assistantOf(outcome.response);
  return {
    model: typeof r.model === "string" ? r.model : null,
    messageCount: Array.isArray(r.messages) ? r.messages.length : 0,
    stream: r.stream === true,
    requestHash,
    finishReason: a?.finishReason ?? null,
    ...(httpStatus !== 200 ? { httpStatus } : {}),
  };
}

/**
 * The agent a chat request names explicitly (before issue 21; kept for callers that want only an
 * explicit name): the system message's `name`, else its opening "You are [the|a|an] <Name>".
 * Recorded nodes use the full rule of agents.ts (`AgentLanes`), which always names an agent.
 * @returns the agent name, or null when the request does not say
 */
export function agentOfRequest(request: unknown): string | null {
  const msgs = isRec(request) && Array.isArray(request.messages) ? request.messages : [];
  const sys = msgs.find((m): m is Rec => isRec(m) && (m.role === "system" || m.role === "developer"));
  if (!sys) return null;
  if (typeof sys.name === "string" && sys.name.trim()) return sys.name.trim();
  const text = typeof sys.content === "string" ? sys.content : Array.isArray(sys.content) ? sys.content.map((p) => (isRec(p) && typeof p.text === "string" ? p.text : "")).join(" ") : "";
  const m = /^\s*You are (?:the |an? )?([A-Z][A-Za-z0-9_-]*)/.exec(text);
  return m ? m[1] : null;
}

/**
 * `content` of the agent_action node of an LLM response: the assistant message (chat), `{ role,
 * output }` (Responses), `{ role, content: blocks }` (Anthropic), or null if none (an error
 * body, an embeddings vector).
 */
export function agentActionContent(response: unknown, protocol?: string | null): AssistantMessage | null {
  if (protocol && protocol !== "openai-chat") return (protocolAdapter(protocol).output(response)?.content as AssistantMessage | undefined) ?? null;
  return assistantOf(response)?.message ?? null;
}

/** `content` of a tool_call node: the normalized tool request `{ tool, arguments }` (= the record request). */
export function toolCallContent(request: unknown): unknown {
  return request;
}

/** `content` of a tool_result node: the observation as the MAS received it. */
export function toolResultContent(outcome: BoundaryOutcome): unknown {
  return outcome.response ?? null;
}

function short(s: string, n = 80): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? one.slice(0, n - 1) + "…" : one;
}

interface PendingToolCall {
  llmNodeId: string;
  actionNodeId: string;
  name: string;
  args: unknown;
  argsCanon: string;
  /** Served by a gateway call, or materialized as an in-process tool. */
  used: boolean;
  group: string | null;
  /** The model's tool-call id, when the message gave one. */
  callId: string | null;
  /** The naming call's agent when that call is not one of this builder's nodes (a replay's prefix). */
  agent?: string | null;
}

/** Options of a TraceBuilder. */
export interface TraceBuilderOptions {
  /** First index per node type (replay: continue after the source's ids so live nodes are new). */
  startIndex?: Partial<Record<NodeType, number>>;
  /** Dependencies of the first llm_call (replay: the source's edges into the target, re-pointed). */
  firstLlmDeps?: { from: string; kind: "data" | "control" }[];
  /** Node to depend on before any agent_action exists (replay: the last prefix agent_action). */
  lastAction?: string | null;
  /** Agent name put on every node (optional). */
  agent?: string;
  /** First observed-order tick (replay: after the source's last; lib/replay/order.ts). */
  startTick?: number;
}

/** A boundary event begun but not completed yet. */
export interface OpenEvent {
  boundary: "llm" | "tool";
  nodeId: string;
  /** Index of the record in `records`. */
  recordIndex: number;
}

/**
 * Incremental builder of nodes, edges, order and records (no hashes: `buildBundle` adds them).
 * Not thread-safe by design: the proxy calls it from one event loop.
 */
export class TraceBuilder {
  readonly nodes: NodeDraft[] = [];
  readonly edges: BundleEdge[] = [];
  readonly records: RecordDraft[] = [];
  private readonly index: Partial<Record<NodeType, number>>;
  private lastAction: string | null;
  private unconsumed: string[] = [];
  /** tool_result of an MCP `tools/list` -> the tool names it listed (consumed by the first request offering them). */
  private readonly listedTools = new Map<string, string[]>();
  private pending: PendingToolCall[] = [];
  private firstLlmDeps: TraceBuilderOptions["firstLlmDeps"];
  private taskNode: string | null = null;
  /** The task's text (its node's `text`), looked for in a new agent's first request. */
  private taskText: string | null = null;
  private llmCount = 0;
  private readonly byId = new Map<string, NodeDraft>();
  /** Earlier outputs by what later requests carry (data edges from content, edges.ts). */
  private readonly content = new ContentEdges();
  private readonly lastActionByAgent = new Map<string, string>();
  /** tool_call node -> the model's tool-call id it answers. */
  private readonly callIdOf = new Map<string, string>();
  /** Observed-order clock: advances at every boundary begin and end (`meta.observed`, order.ts). */
  private tick: number;
  private readonly lanes = new AgentLanes();

  constructor(private readonly opts: TraceBuilderOptions = {}) {
    this.tick = opts.startTick ?? 0;
    this.index = { ...(opts.startIndex ?? {}) };
    this.lastAction = opts.lastAction ?? null;
    this.firstLlmDeps = opts.firstLlmDeps;
  }

  private nextId(type: NodeType, base = type as string): string {
    const i = this.index[type] ?? 0;
    this.index[type] = i + 1;
    return `${base}_${String(i).padStart(4, "0")}`;
  }

  private add(n: NodeDraft): NodeDraft {
    if (this.opts.agent && n.agent === undefined) n.agent = this.opts.agent;
    this.nodes.push(n);
    this.byId.set(n.id as string, n);
    return n;
  }

  private edge(from: string, to: string, kind: "data" | "control"): void {
    if (!this.edges.some((e) => e.from === from && e.to === to)) this.edges.push({ from, to, kind });
  }

  /**
   * Make earlier outputs (a replay's prefix agent_action / tool_result nodes, in order) known to
   * the content edges, so live requests that carry them depend on them.
   * @param edges the source graph's edges: the data edges into the nodes give the content parents
   *   (llm_call -> agent_action, its dependencies -> llm_call), so a live request carrying a prefix
   *   conversation depends on its latest turn only (the reduction), as when it was recorded
   */
  seedOutputs(nodes: readonly { id: string; type: NodeType; agent?: string | null; content: unknown }[], edges: readonly BundleEdge[] = []): void {
    const into = new Map<string, string[]>();
    for (const e of edges) if (e.kind === "data") (into.get(e.to) ?? into.set(e.to, []).get(e.to)!).push(e.from);
    const llm = new Set(nodes.filter((n) => n.type === "llm_call").map((n) => n.id));
    const task = nodes.find((n) => n.type === "message" && n.agent === "User" && isRec(n.content) && typeof n.content.text === "string");
    if (task && !this.taskNode) {
      this.taskNode = task.id;
      this.taskText = (task.content as Rec).text as string;
    }
    for (const n of nodes) {
      const from = into.get(n.id) ?? [];
      if (n.type === "llm_call") this.content.setDeps(n.id, from);
      else if (n.type === "agent_action" && isRec(n.content)) {
        const parent = from.find((f) => llm.has(f)) ?? null;
        const view = storedActionView(n.content);
        if (view) this.content.addAction(n.id, parent, { role: "assistant", content: view.text, tool_calls: view.toolCalls.flatMap((c) => (c.callId ? [{ id: c.callId, function: { name: c.name, arguments: "" } }] : [])) }, view.refIds ?? [], view.toolCalls.flatMap((c) => stringLeaves(c.args)));
        else this.content.addAction(n.id, parent, n.content as unknown as AssistantMessage, [], namedToolCalls(n.content as unknown as AssistantMessage).flatMap((c) => stringLeaves(c.args)));
        if (n.agent) this.lastActionByAgent.set(n.agent, n.id);
      } else if (n.type === "tool_result") this.content.addToolResult(n.id, from[0] ?? null, null, n.content);
    }
    this.seedPendingCalls(nodes, edges, into, llm);
  }

  /**
   * Tool calls named by a seeded agent_action that no seeded tool_call answers become pending, as
   * if their response had been live: a live request that carries such a call's result back gets
   * its in-process tool_call / tool_result nodes (`inProcessTools`), and a gateway call for it its
   * edges from the naming call. (A concurrent agent whose call was served from the prefix and whose
   * next request — carrying the tool's result — runs live after the target: its in-process tool
   * was missing from the replay's graph.)
   */
  private seedPendingCalls(nodes: readonly { id: string; type: NodeType; agent?: string | null; content: unknown }[], edges: readonly BundleEdge[], into: ReadonlyMap<string, string[]>, llm: ReadonlySet<string>): void {
    const seeded = new Map(nodes.map((n) => [n.id, n]));
    // The seeded tool_call nodes each action named (control edge action -> tool_call), by tool name and arguments.
    const answered = new Map<string, string[]>();
    for (const e of edges) {
      const t = e.kind === "control" ? seeded.get(e.to) : undefined;
      if (t?.type !== "tool_call" || !seeded.has(e.from) || !isRec(t.content)) continue;
      const key = `${String(t.content.tool ?? "")}\u0000${safeCanon(t.content.arguments ?? null)}`;
      (answered.get(e.from) ?? answered.set(e.from, []).get(e.from)!).push(key);
    }
    for (const n of nodes) {
      if (n.type !== "agent_action" || !isRec(n.content)) continue;
      const calls = storedActionView(n.content)?.toolCalls ?? protocolAdapter("openai-chat").output({ choices: [{ message: n.content }] })?.toolCalls ?? [];
      if (!calls.length) continue;
      const llmNodeId = (into.get(n.id) ?? []).find((f) => llm.has(f));
      if (!llmNodeId) continue;
      const done = answered.get(n.id) ?? [];
      for (const c of calls) {
        const argsCanon = safeCanon(c.args);
        const k = done.indexOf(`${c.name}\u0000${argsCanon}`);
        if (k >= 0) {
          done.splice(k, 1);
          continue;
        }
        this.pending.push({ llmNodeId, actionNodeId: n.id, name: c.name, args: c.args, argsCanon, used: false, group: calls.length > 1 ? llmNodeId : null, callId: c.callId, agent: seeded.get(llmNodeId)?.agent ?? n.agent ?? null });
      }
    }
  }

  /** The task node (`task_0000`, type message, agent "User", content `{ role: "user", text }`). */
  addTask(prompt: string): string {
    const id = this.nextId("message", "task");
    this.add({ id, type: "message", agent: "User", label: "task", content: taskNodeContent(prompt) });
    this.taskNode = id;
    this.taskText = prompt;
    return id;
  }

  /** Whether a request's text contains the task's (at least MIN_CONTAINED characters of it, whole). */
  private carriesTask(request: unknown, protocol: string | null): boolean {
    const t = this.taskText;
    if (!this.taskNode || !t || t.length < MIN_CONTAINED) return false;
    return protocolAdapter(protocol).turns(request).some((x) => x.text.includes(t));
  }

  /**
   * An LLM request crossed the boundary: adds the in-process tool nodes whose results it carries
   * back (module doc), the llm_call node, its dependencies and a record (response filled by
   * `completeLlm`).
   * @param request the normalized request as stored (guidance already appended at a target)
   * @param meta record meta (e.g. `{ guidance }`; `protocol` for a non-chat record)
   * @param opts.agent the `x-symtrace-agent` header, if the MAS sent one
   */
  beginLlm(request: unknown, meta: Rec = {}, opts: { agent?: string | null } = {}): OpenEvent {
    const protocol = typeof meta.protocol === "string" ? (meta.protocol as ProtocolName) : null;
    const inProcess = this.inProcessTools(request, protocol);
    const id = this.nextId("llm_call");
    const r = isRec(request) ? request : {};
    const fallback = protocol === "openai-embeddings" ? "embeddings" : protocol === "unknown-route" ? "unknown-route" : "assistant";
    const lane = this.lanes.assign(agentEvidence(request, protocol, opts.agent), fallback);
    if (lane.rename) for (const n of this.nodes) if (n.agent === lane.rename.from) n.agent = lane.rename.to;
    const agent = lane.agent;
    this.add({ id, type: "llm_call", agent, label: typeof r.model === "string" ? `${r.model} call` : protocol === "unknown-route" ? `unknown route ${String(r.method ?? "")} ${String(r.path ?? "")}`.trim() : "LLM call", content: null });
    for (const t of inProcess) this.edge(t, id, "data");
    if (this.llmCount === 0 && this.firstLlmDeps) {
      for (const d of this.firstLlmDeps) this.edge(d.from, id, d.kind);
      // Its content parents, so a later request carrying its history is reduced to its latest turn.
      this.content.setDeps(id, this.firstLlmDeps.filter((d) => d.kind === "data").map((d) => d.from));
    } else {
      const deps = this.content.depsOf(request, protocol);
      const left: string[] = [];
      const offered = this.listedTools.size ? requestToolNames(request) : null;
      for (const t of this.unconsumed) {
        if (deps.includes(t) || (this.byId.get(t)?.agent ?? null) === (agent ?? null)) this.edge(t, id, "data");
        else if (offered && this.listedTools.get(t)?.some((n) => offered.has(n))) {
          // An MCP tool listing no response asked for: the first request offering its tools uses it (and names its agent).
          this.edge(t, id, "data");
          if (agent) for (const n of [t, ...this.edges.filter((e) => e.to === t && this.byId.get(e.from)?.type === "tool_call").map((e) => e.from)]) {
            const node = this.byId.get(n);
            if (node && !node.agent) node.agent = agent;
          }
        } else left.push(t);
      }
      this.unconsumed = left;
      for (const d of deps) this.edge(d, id, "data");
      if (deps.length === 0) {
        // No content dependency: the agent's own last action, else the last action of any agent
        // (a new agent was started by whoever acted last) — except for an embeddings call, which
        // is made from inside some agent's tool and names no agent: under concurrency "whoever
        // acted last" is arrival order, not a dependency, so it hangs from the task alone.
        // A new agent whose request carries the task's text (and nothing of another agent's) was
        // given the task, not another agent's output: it hangs from the task too (two agents
        // started together from the task were chained in arrival order).
        const own = agent ? this.lastActionByAgent.get(agent) : undefined;
        const fromTask = protocol === "openai-embeddings" || (own === undefined && this.carriesTask(request, protocol));
        const prev = own ?? (fromTask ? this.taskNode : (this.lastAction ?? this.taskNode));
        if (prev) this.edge(prev, id, "data");
      }
      this.content.setDeps(id, deps);
    }
    if (this.llmCount === 0 && this.firstLlmDeps) this.unconsumed = [];
    this.llmCount++;
    this.records.push({ nodeId: id, boundary: "llm", request, response: null, meta: { ...meta, observed: { start: this.tick++ } } });
    return { boundary: "llm", nodeId: id, recordIndex: this.records.length - 1 };
  }

  /** The LLM response arrived: fills the llm_call content and the record, adds the agent_action (none when `outcome.error`: a failed call). */
  completeLlm(ev: OpenEvent, requestHash: string, outcome: BoundaryOutcome): void {
    const rec = this.records[ev.recordIndex];
    rec.response = outcome.response;
    rec.meta = { ...ended(rec.meta, this.tick++), ...outcomeMeta(outcome) };
    const node = this.byId.get(ev.nodeId)!;
    const m = rec.meta as Rec | undefined;
    const protocol = typeof m?.protocol === "string" ? m.protocol : null;
    node.content = llmCallContent(rec.request, requestHash, outcome, protocol);
    if (outcome.error) {
      node.status = "error";
      node.error = outcome.error;
      // A failed call produced no message for the MAS (its SDK threw, or it closed the stream):
      // no agent_action, even when the partial stream or the error body reads as one.
      return;
    }
    node.status = "success";
    const view = protocolAdapter(protocol).output(outcome.response);
    const message = view?.content ?? null;
    if (!view || message === null) return;
    const aid = this.nextId("agent_action");
    const calls = view.toolCalls;
    const label = view.text ? short(view.text) : calls.length ? `calls ${calls.map((c) => c.name).join(", ")}` : "(empty message)";
    const agent = this.byId.get(ev.nodeId)?.agent;
    this.add({ id: aid, type: "agent_action", ...(agent ? { agent } : {}), label, content: message });
    this.edge(ev.nodeId, aid, "data");
    this.lastAction = aid;
    if (typeof agent === "string" && agent) this.lastActionByAgent.set(agent, aid);
    // content edges read the protocol-neutral view: the text and the call ids the response produced
    this.content.addAction(aid, ev.nodeId, { role: "assistant", content: view.text, tool_calls: calls.flatMap((c) => (c.callId ? [{ id: c.callId, function: { name: c.name, arguments: "" } }] : [])) }, view.refIds ?? [], calls.flatMap((c) => stringLeaves(c.args)));
    const group = calls.length > 1 ? ev.nodeId : null;
    for (const c of calls) {
      this.pending.push({ llmNodeId: ev.nodeId, actionNodeId: aid, name: c.name, args: c.args, argsCanon: safeCanon(c.args), used: false, group, callId: c.callId });
    }
  }

  /**
   * In-process tools (module doc): for each tool result `request` carries back for a call named
   * by an earlier response and served by no gateway call, add its tool_call and tool_result nodes.
   * @returns the new tool_result ids (the caller's llm_call depends on them)
   */
  private inProcessTools(request: unknown, protocol: string | null): string[] {
    const out: string[] = [];
    for (const t of protocolAdapter(protocol).toolResults(request)) {
      const p = this.pending.find((x) => !x.used && x.callId !== null && x.callId === t.callId);
      if (!p) continue;
      p.used = true;
      const agent = this.byId.get(p.llmNodeId)?.agent ?? p.agent ?? undefined;
      const cid = this.nextId("tool_call");
      this.add({ id: cid, type: "tool_call", ...(agent ? { agent } : {}), label: short(`${p.name} ${p.argsCanon}`), content: toolCallContent({ tool: p.name, arguments: p.args }) });
      this.edge(p.llmNodeId, cid, "data");
      this.edge(p.actionNodeId, cid, "control");
      const rid = this.nextId("tool_result");
      const text = typeof t.output === "string" ? t.output : safeCanon(t.output);
      this.add({ id: rid, type: "tool_result", ...(agent ? { agent } : {}), label: t.isError ? "error (in-process)" : short(text || "(empty)"), content: t.output, status: t.isError ? "error" : "success", ...(t.isError ? { error: { type: "tool_error", message: short(text, 200) } } : {}) });
      this.edge(cid, rid, "data");
      out.push(rid);
    }
    return out;
  }

  /**
   * A tool request crossed the gateway: adds the tool_call node and its record. When an earlier
   * assistant message named this call (same tool name and arguments), the edges come from its
   * llm_call (data) and agent_action (control); calls named together by one message share
   * `meta.parallelGroup` (the llm_call id), which replay uses to match them as a set.
   * @param request normalized `{ tool, arguments }`
   */
  beginTool(request: unknown): OpenEvent {
    const r = isRec(request) ? request : {};
    const name = typeof r.tool === "string" ? r.tool : "tool";
    const id = this.nextId("tool_call");
    const label = r.mcp === "tools/list" ? "MCP tools/list" : short(`${r.mcp === "tools/call" ? "MCP " : ""}${name} ${safeCanon(r.arguments ?? null)}`);
    this.add({ id, type: "tool_call", label, content: toolCallContent(request) });
    const canon = safeCanon(r.arguments ?? null);
    const p = this.pending.find((x) => !x.used && x.name === name && x.argsCanon === canon) ?? this.pending.find((x) => !x.used && x.name === name);
    const meta: Rec = {};
    if (p) {
      p.used = true;
      const agent = this.byId.get(p.llmNodeId)?.agent ?? p.agent;
      if (agent) this.byId.get(id)!.agent = agent;
      this.edge(p.llmNodeId, id, "data");
      this.edge(p.actionNodeId, id, "control");
      if (p.group) meta.parallelGroup = p.group;
      if (p.callId) this.callIdOf.set(id, p.callId);
    } else if (r.mcp === "tools/list" && this.taskNode) {
      // An MCP client listing its tools: asked for by no response (under concurrency, not by whoever acted last).
      this.edge(this.taskNode, id, "control");
    } else if (this.lastAction ?? this.taskNode) {
      this.edge((this.lastAction ?? this.taskNode)!, id, "control");
    }
    this.records.push({ nodeId: id, boundary: "tool", request, response: null, meta: { ...meta, observed: { start: this.tick++ } } });
    return { boundary: "tool", nodeId: id, recordIndex: this.records.length - 1 };
  }

  /** The observation arrived: fills the record and adds the tool_result node. */
  completeTool(ev: OpenEvent, outcome: BoundaryOutcome): string {
    const rec = this.records[ev.recordIndex];
    rec.response = outcome.response;
    rec.meta = { ...ended(rec.meta, this.tick++), ...outcomeMeta(outcome) };
    const id = this.nextId("tool_result");
    const failed = !!outcome.error || (outcome.httpStatus ?? 200) >= 400;
    this.add({
      id,
      type: "tool_result",
      label: failed ? `error ${outcome.httpStatus ?? ""}`.trim() : "success",
      content: toolResultContent(outcome),
      status: failed ? "error" : "success",
      ...(failed ? { error: outcome.error ?? { type: `http_${outcome.httpStatus}`, message: `tool returned HTTP ${outcome.httpStatus}` } } : {}),
    });
    const agent = this.byId.get(ev.nodeId)?.agent;
    if (agent) this.byId.get(id)!.agent = agent;
    this.edge(ev.nodeId, id, "data");
    this.unconsumed.push(id);
    if (isRec(rec.request) && rec.request.mcp === "tools/list" && !failed) {
      const names = listedToolNames(outcome.response);
      if (names.length) this.listedTools.set(id, names);
    }
    this.content.addToolResult(id, ev.nodeId, this.callIdOf.get(ev.nodeId) ?? null, outcome.response);
    return id;
  }

  /** The run ended: adds `final_result` (content `{ final }`, null when the command printed none). */
  finish(final: unknown): string | null {
    if (this.nodes.length === 0 && !this.lastAction) return null;
    const id = this.nextId("final_result", "final_result");
    this.add({ id, type: "final_result", label: final === undefined || final === null ? "no final result" : short(typeof final === "string" ? final : safeCanon(final)), content: { final: final ?? null } });
    if (this.lastAction) this.edge(this.lastAction, id, "data");
    for (const t of this.unconsumed) this.edge(t, id, "data");
    this.unconsumed = [];
    return id;
  }
}

/**
 * The protocol-neutral view of a stored Responses (`{ role, output }`) or Anthropic (`{ role,
 * content: blocks }`) agent_action content.
 * @returns null for any other content (a chat assistant message)
 */
function storedActionView(content: Rec): OutputView | null {
  if (Array.isArray(content.output)) return protocolAdapter("openai-responses").output({ output: content.output });
  if (Array.isArray(content.content) && content.tool_calls === undefined && content.content.some((b) => isRec(b) && typeof b.type === "string" && b.type !== "text")) {
    return protocolAdapter("anthropic-messages").output({ type: "message", content: content.content });
  }
  return null;
}

/** Tool names an MCP `tools/list` result lists (`{ result: { tools: [{ name }] } }`). */
function listedToolNames(response: unknown): string[] {
  const r = isRec(response) && isRec(response.result) ? response.result : null;
  return r && Array.isArray(r.tools) ? r.tools.flatMap((t) => (isRec(t) && typeof t.name === "string" ? [t.name] : [])) : [];
}

/** Tool names an LLM request offers the model (chat `tools[].function.name`; Responses and Anthropic `tools[].name`). */
function requestToolNames(request: unknown): Set<string> {
  const out = new Set<string>();
  const tools = isRec(request) && Array.isArray(request.tools) ? request.tools : [];
  for (const t of tools) {
    if (!isRec(t)) continue;
    const name = isRec(t.function) && typeof t.function.name === "string" ? t.function.name : typeof t.name === "string" ? t.name : null;
    if (name) out.add(name);
  }
  return out;
}

/** The string values inside a tool call's arguments (at any depth), for content edges. */
function stringLeaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out);
  else if (isRec(v)) for (const x of Object.values(v)) stringLeaves(x, out);
  return out;
}

/** Content of the task node. */
export function taskNodeContent(prompt: string): unknown {
  return { role: "user", text: prompt };
}

/** The record's `meta.observed` with its end tick (order.ts). */
function ended(meta: unknown, tick: number): Rec {
  const m = isRec(meta) ? meta : {};
  const o = isRec(m.observed) ? m.observed : {};
  return { ...m, observed: { ...o, end: tick } };
}

function outcomeMeta(o: BoundaryOutcome): Rec {
  const m: Rec = {};
  if (o.httpStatus !== undefined && o.httpStatus !== 200) m.httpStatus = o.httpStatus;
  if (o.latencyMs !== undefined) m.latencyMs = Math.round(o.latencyMs);
  if (o.error) m.error = o.error;
  return m;
}

function safeCanon(v: unknown): string {
  try {
    return canonicalJson(v);
  } catch {
    return String(v);
  }
}

/** Content hash of a derived node content (re-exported for the session's node checks). */
export const nodeHash = hashContent;
