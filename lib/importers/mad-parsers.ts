/**
 * Per-MAS trace splitters for the MAST/MAD importer (./mad.ts).
 *
 * A MAD record holds its whole execution log as ONE string (`trace`) whose format depends on
 * the multi-agent system (the mast_mad dataset notes (SOURCE.md), "Record format" and "Mapping to
 * an event-dependency graph"). Each splitter turns that string into an ordered list of node
 * drafts (type, agent, label, content) plus the task facts the trace shows (prompt, task id,
 * evaluator-only reference, pass/fail).
 *
 * Invariants every splitter keeps (tested in ./mad.test.ts):
 *  - plain-text logs (ChatDev, Magentic-One, AppWorld, OpenManus, generic): each node's
 *    `content.text` is an exact slice of the trace and the slices are contiguous, so
 *    `nodes.map(n => n.content.text).join("") + (reference.evaluationText ?? "") === trace`;
 *  - MetaGPT (JSON with a `content` log): the same property holds for the `content` string;
 *  - AG2 / HyperAgent (JSON with a `trajectory` array): every trajectory item becomes one node
 *    that keeps the item's original fields, and the non-trajectory fields are kept in
 *    `traceFields` / `reference` / `legacyNote`, so the parsed JSON can be rebuilt exactly.
 *
 * Pure module: no I/O, never throws for a string input (a parse problem of a JSON-based format
 * falls back to the generic splitter and says so in `notes`).
 */
import type { NodeType, NodeStatus } from "../bundle";

/** One node as a splitter sees it (ids, edges and hashes are added by mad.ts). */
export interface ParsedNode {
  type: NodeType;
  agent: string | null;
  /** Short single-line label (<= 80 chars). */
  label: string;
  /** Node content: always has `text` (the full, untruncated text of the node). */
  content: { text: string } & Record<string, unknown>;
  status?: NodeStatus;
  /** Index (in `nodes`) of a node this one consumes as data (tool_call/agent_action -> tool_result). */
  dataFrom?: number;
}

/** Result of splitting one MAD trace. */
export interface ParsedTrace {
  /** Which splitter produced the nodes: "ag2" | "metagpt" | "chatdev" | ... | "generic". */
  splitter: string;
  nodes: ParsedNode[];
  /** Task text shown by the trace, or null (mad.ts then writes a short description). */
  prompt: string | null;
  /** Native task id shown by the trace (AppWorld task id, AG2 instance_id), or null. */
  taskId: string | null;
  /** Evaluator-only material found in the trace (AG2 other_data, AppWorld Evaluation), or null. */
  reference: Record<string, unknown> | null;
  /** Pass/fail as the trace's own evaluator says (AG2 other_data.correct, AppWorld success), else null. */
  passed: boolean | null;
  /** Model alias when the trace names it (ChatDev ModelType), else null. */
  model: string | null;
  /** Non-split, non-evaluator top-level fields of a JSON trace (AG2 instance_id, MetaGPT run_id...). */
  traceFields: Record<string, unknown> | null;
  /** AG2 `note`: an older single-annotator yes/no label set (22 pre-MAST categories). */
  legacyNote: unknown;
  /** Quirks met while splitting, in plain words. */
  notes: string[];
}

// ---------------------------------------------------------------------------------------------
// helpers

/** Collapse whitespace and cut to `max` chars (with an ellipsis). */
export function oneLine(s: string, max = 80): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length <= max ? t : t.slice(0, max - 1).trimEnd() + "…";
}

function firstNonEmptyLine(s: string): string {
  for (const l of s.split("\n")) if (l.trim() !== "") return l.trim();
  return "";
}

/** Text after the first line (the header) of a slice. */
function bodyAfterHeader(slice: string): string {
  const i = slice.indexOf("\n");
  return i < 0 ? "" : slice.slice(i + 1);
}

function label(head: string, body: string): string {
  const b = firstNonEmptyLine(body);
  return oneLine(b ? `${head}: ${b}` : head);
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

interface Header<K> {
  /** Offset of the header line's first char. */
  start: number;
  kind: K;
  m: RegExpExecArray;
}

/** All matches of a multiline, global regex, as headers. */
function findHeaders<K>(text: string, re: RegExp, kindOf: (m: RegExpExecArray) => K | null): Header<K>[] {
  const out: Header<K>[] = [];
  const r = new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g");
  let m: RegExpExecArray | null;
  while ((m = r.exec(text)) !== null) {
    const kind = kindOf(m);
    if (kind !== null) out.push({ start: m.index, kind, m });
    if (m[0].length === 0) r.lastIndex++;
  }
  return out;
}

/**
 * Cut `text[0:end]` at the header offsets. Returns the preamble (text before the first header)
 * and one slice per header. A whitespace-only preamble is glued to the first slice so that no
 * text is lost and no empty node is made.
 */
function cut<K>(text: string, headers: Header<K>[], end = text.length): { preamble: string; slices: string[] } {
  if (headers.length === 0) return { preamble: text.slice(0, end), slices: [] };
  const slices = headers.map((h, i) => text.slice(h.start, i + 1 < headers.length ? headers[i + 1].start : end));
  let preamble = text.slice(0, headers[0].start);
  if (preamble !== "" && preamble.trim() === "") {
    slices[0] = preamble + slices[0];
    preamble = "";
  }
  return { preamble, slices };
}

function preambleNode(preamble: string, agent: string | null = null): ParsedNode {
  return {
    type: "message",
    agent,
    label: oneLine(`Preamble: ${firstNonEmptyLine(preamble)}`),
    content: { kind: "preamble", text: preamble },
  };
}

function emptyParsed(splitter: string): ParsedTrace {
  return {
    splitter,
    nodes: [],
    prompt: null,
    taskId: null,
    reference: null,
    passed: null,
    model: null,
    traceFields: null,
    legacyNote: undefined,
    notes: [],
  };
}

// ---------------------------------------------------------------------------------------------
// generic

/** Unknown MAS: the whole trace as one `message` node. */
export function splitGeneric(trace: string): ParsedTrace {
  const p = emptyParsed("generic");
  p.nodes.push({
    type: "message",
    agent: null,
    label: oneLine(`Trace: ${firstNonEmptyLine(trace)}`),
    content: { kind: "whole-trace", text: trace },
  });
  return p;
}

// ---------------------------------------------------------------------------------------------
// AG2 (json: {instance_id, problem_statement, other_data, trajectory: [{content, role, name}], note})

const AG2_CODE = /```\s*(python|py|sh|bash)\b/i;
const AG2_BOXED = /\\boxed\{/;

/**
 * AG2 (MathChat) trace: `JSON.parse(trace).trajectory`, one node per item. Roles are inverted in
 * the source: role "assistant"/name "mathproxyagent" is the code-executing proxy (its first item
 * is the task message -> `message`; later items -> `tool_result`), role "user"/name "assistant"
 * is the LLM solver (-> `agent_action`; the last one -> `final_result` when it gives a `\boxed{}`
 * answer). A solver item with a code block feeds the next proxy item (data edge).
 * `other_data` (gold answer, `correct`) is evaluator-only -> `reference`; `note` -> `legacyNote`.
 * @throws Error when the trace is not JSON with a `trajectory` array (mad.ts falls back to generic)
 */
export function splitAg2(trace: string): ParsedTrace {
  const j = JSON.parse(trace) as unknown;
  if (!isRec(j) || !Array.isArray(j.trajectory)) throw new Error("AG2 trace is not a JSON object with a trajectory array");
  const p = emptyParsed("ag2");
  const { trajectory, other_data, note, ...rest } = j;
  p.traceFields = rest;
  if (other_data !== undefined) p.reference = { otherData: other_data };
  if (isRec(other_data) && typeof other_data.correct === "boolean") p.passed = other_data.correct;
  if (note !== undefined) p.legacyNote = note;
  if (typeof j.instance_id === "string") p.taskId = j.instance_id;
  if (Array.isArray(j.problem_statement) && j.problem_statement.every((s) => typeof s === "string")) {
    p.prompt = (j.problem_statement as string[]).join("\n");
  } else if (typeof j.problem_statement === "string") p.prompt = j.problem_statement;

  const items = trajectory as unknown[];
  let seenProxy = false;
  items.forEach((raw, i) => {
    const it = isRec(raw) ? raw : { content: raw };
    const role = typeof it.role === "string" ? it.role : null;
    const name = typeof it.name === "string" ? it.name : null;
    const c = it.content;
    const text = Array.isArray(c) ? c.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join("\n") : typeof c === "string" ? c : JSON.stringify(c ?? null);
    const isProxy = name !== null ? /proxy/i.test(name) : role === "assistant";
    const agent = name ?? role;
    const { content: _c, role: _r, name: _n, ...other } = it;
    void _c; void _r; void _n;
    const content: ParsedNode["content"] = { role, name, text, ...(Array.isArray(c) ? { lines: c } : { raw: c ?? null }), ...(Object.keys(other).length ? { other } : {}) };
    let node: ParsedNode;
    if (isProxy && !seenProxy && i === 0) {
      node = { type: "message", agent, label: oneLine(`${agent} (task): ${lastMeaningful(text)}`), content };
    } else if (isProxy) {
      node = { type: "tool_result", agent, label: label(agent ?? "proxy", text), content };
      const prev = p.nodes[i - 1];
      if (prev && (prev.type === "agent_action") && AG2_CODE.test(prev.content.text)) node.dataFrom = i - 1;
    } else {
      node = { type: "agent_action", agent, label: label(agent ?? "solver", text), content };
    }
    if (isProxy) seenProxy = true;
    p.nodes.push(node);
  });
  const last = p.nodes[p.nodes.length - 1];
  if (last && last.type === "agent_action" && AG2_BOXED.test(last.content.text)) last.type = "final_result";
  return p;
}

/** Last non-empty line (the AG2 task message ends with the problem). */
function lastMeaningful(s: string): string {
  const ls = s.split("\n").filter((l) => l.trim() !== "");
  return ls[ls.length - 1] ?? "";
}

// ---------------------------------------------------------------------------------------------
// MetaGPT (json: {run_id, prompt, content: "<log>", timestamp, cost, log_file})

const METAGPT_HEADER = /^.*\| INFO\s*\| \S+ - ([^\s()]+)\(([^)\s]+)\): to do (\w+)(?:\((\w+)\))?.*$/gm;

/**
 * MetaGPT trace: `JSON.parse(trace).content` is a log cut at every
 * `<ts> | INFO | <module> - Name(Role): to do Action(Action)` line -> one `agent_action` per line
 * (agent "Name(Role)"), its text running to the next such line. Text before the first line, if
 * any, becomes a `message` node. `prompt` -> task prompt; other fields -> `traceFields`.
 * @throws Error when the trace is not JSON with a string `content` (mad.ts falls back to generic)
 */
export function splitMetaGpt(trace: string): ParsedTrace {
  const j = JSON.parse(trace) as unknown;
  if (!isRec(j) || typeof j.content !== "string") throw new Error("MetaGPT trace is not a JSON object with a string content");
  const p = emptyParsed("metagpt");
  const { content: log, ...rest } = j;
  p.traceFields = rest;
  if (typeof j.prompt === "string" && j.prompt.trim() !== "") p.prompt = j.prompt;
  const text = log as string;
  const hs = findHeaders(text, METAGPT_HEADER, (m) => m);
  const { preamble, slices } = cut(text, hs);
  if (preamble !== "") p.nodes.push(preambleNode(preamble));
  hs.forEach((h, i) => {
    const [, name, role, action] = h.m;
    const agent = `${name}(${role})`;
    p.nodes.push({
      type: "agent_action",
      agent,
      label: oneLine(`${agent}: ${action}`),
      content: { name, role, action, text: slices[i] },
    });
  });
  if (p.nodes.length === 0) p.nodes.push({ type: "message", agent: null, label: "MetaGPT log (empty)", content: { kind: "whole-log", text } });
  return p;
}

// ---------------------------------------------------------------------------------------------
// ChatDev (plain-text log)

const CHATDEV_HEADER =
  /^\[([^\]\n]+) INFO\] (?:([^:\n*]+): \*\*([^*\n]+?)<->([^*\n]+?) on : ([^,*\n]+), turn (\d+)\*\*|System: \*\*\[chatting\]\*\*)[ \t]*$/gm;

/**
 * ChatDev trace: a log of `[<timestamp> INFO] ...` entries (timestamps are `2025-17-01`, day and
 * month swapped; kept verbatim). Nodes start at
 *  - `[ts INFO] Speaker: **A<->B on : Phase, turn N**` -> `agent_action` (agent = Speaker), and
 *  - `[ts INFO] System: **[chatting]**` (a phase starts: phase parameters, role prompts and the
 *    instructing role's `[Start Chat]` message) -> `message` (agent "System");
 * every other log entry (HTTP lines, `[Seminar Conclusion]`, `[Update Codes]`, `[Software Info]`,
 * `[Post Info]`, the "flask app.py did not start" noise) stays inside the node before it.
 * The `[Preprocessing]` block before the first header is the preamble `message`; its
 * `**task_prompt**:` line is the task prompt; `**model_type** | ModelType.X` gives the model.
 */
export function splitChatDev(trace: string): ParsedTrace {
  const p = emptyParsed("chatdev");
  const hs = findHeaders(trace, CHATDEV_HEADER, (m) => (m[2] !== undefined ? "turn" : "phase"));
  const { preamble, slices } = cut(trace, hs);
  if (preamble !== "") p.nodes.push(preambleNode(preamble));
  hs.forEach((h, i) => {
    const s = slices[i];
    const ts = h.m[1];
    if (h.kind === "turn") {
      const [, , speaker, assistantRole, userRole, phase, turn] = h.m;
      p.nodes.push({
        type: "agent_action",
        agent: speaker.trim(),
        label: oneLine(`${speaker.trim()} — ${phase.trim()}, turn ${turn}`),
        content: { timestamp: ts, speaker: speaker.trim(), assistantRole, userRole, phase: phase.trim(), turn: Number(turn), text: s },
      });
    } else {
      const phaseName = /\| \*\*phase_name\*\* \| ([^|\n]*?) \|/.exec(s)?.[1] ?? null;
      const aRole = /\| \*\*assistant_role_name\*\* \| ([^|\n]*?) \|/.exec(s)?.[1] ?? null;
      const uRole = /\| \*\*user_role_name\*\* \| ([^|\n]*?) \|/.exec(s)?.[1] ?? null;
      p.nodes.push({
        type: "message",
        agent: "System",
        label: oneLine(`Phase ${phaseName ?? "?"}${aRole && uRole ? ` (${uRole} -> ${aRole})` : ""}`),
        content: { timestamp: ts, kind: "phase-start", phase: phaseName, assistantRole: aRole, userRole: uRole, text: s },
      });
    }
  });
  if (p.nodes.length === 0) return splitGeneric(trace);
  const tp = /^\*\*task_prompt\*\*: (.+)$/m.exec(preamble || trace);
  if (tp) p.prompt = tp[1].trim();
  const mt = /\*\*model_type\*\* \| ModelType\.(\w+)/.exec(trace);
  if (mt) p.model = mt[1].toLowerCase().replace(/_/g, "-");
  return p;
}

// ---------------------------------------------------------------------------------------------
// Magentic-One (plain-text log)

const MAGENTIC_HEADER = /^---------- (.+?) ----------[ \t]*$/gm;
const MAGENTIC_TOOL_AGENTS = new Set(["WebSurfer", "FileSurfer", "ComputerTerminal"]);

/**
 * Magentic-One trace: cut at `---------- AgentName ----------` separators. Section "user" ->
 * `message` (its text is the task prompt); WebSurfer / FileSurfer / ComputerTerminal output ->
 * `tool_result` (data edge from the orchestrator instruction right before it); other agents
 * (MagenticOneOrchestrator, Assistant) -> `agent_action`; the section carrying `FINAL ANSWER:` ->
 * `final_result`. The RUN.SH / pip-install log before the first separator is the preamble.
 */
export function splitMagentic(trace: string): ParsedTrace {
  const p = emptyParsed("magentic-one");
  const hs = findHeaders(trace, MAGENTIC_HEADER, (m) => m[1].trim());
  if (hs.length === 0) return splitGeneric(trace);
  const { preamble, slices } = cut(trace, hs);
  if (preamble !== "") p.nodes.push(preambleNode(preamble));
  hs.forEach((h, i) => {
    const agent = h.kind;
    const s = slices[i];
    const body = bodyAfterHeader(s);
    const content = { speaker: agent, text: s };
    if (/^user$/i.test(agent)) {
      p.nodes.push({ type: "message", agent, label: label(agent, body), content });
      if (p.prompt === null && body.trim() !== "") p.prompt = body.trim();
    } else if (MAGENTIC_TOOL_AGENTS.has(agent)) {
      const node: ParsedNode = { type: "tool_result", agent, label: label(agent, body), content };
      const prevIdx = p.nodes.length - 1;
      const prev = p.nodes[prevIdx];
      if (prev && prev.type === "agent_action") node.dataFrom = prevIdx;
      p.nodes.push(node);
    } else {
      const fa = /^FINAL ANSWER:(.*)$/m.exec(body);
      if (fa) {
        p.nodes.push({ type: "final_result", agent, label: oneLine(`${agent}: FINAL ANSWER:${fa[1]}`), content: { ...content, finalAnswer: fa[1].trim() } });
      } else {
        p.nodes.push({ type: "agent_action", agent, label: label(agent, body), content });
      }
    }
  });
  return p;
}

// ---------------------------------------------------------------------------------------------
// AppWorld (plain-text log)

const APPWORLD_HEADER =
  /^( *)(?:Response from (.+?) Agent|Code Execution Output|Message to (.+?) Agent|Reply from (.+?) Agent to (.+?)|Response from (.+?) API)[ \t]*$/gm;
const APPWORLD_EVAL = /^Evaluation[ \t]*\n(?=[{[])/m;
const APPWORLD_TASK = /^\*+ Task (\S+) \(([^)\s]+)\)\s*\*+[ \t]*$/m;

type AppWorldKind = "response" | "code-output" | "message-to" | "reply" | "api-response";

/**
 * AppWorld trace: cut at the indented section headers of the supervisor/app-agent log:
 * `Response from X Agent` -> `agent_action` (agent X); `Code Execution Output` -> `tool_result`
 * (data edge from the response right before it); `Message to X Agent` -> `message` (input handed
 * to agent X: a delegated request or the output of X's own code); `Reply from X Agent to Y` ->
 * `message` (agent X); `Response from X API` -> `tool_result` (data edge from the reply right
 * before it). `Entering/Exiting ... message loop` lines stay in the node before them; the header's
 * indentation is kept as `content.depth` (0 = supervisor, 1 = nested app agent).
 * The `******** Task i/n (id) ********` banner and the task text before the first header are the
 * preamble (task id and prompt). The trailing `Evaluation` JSON is the benchmark's evaluator
 * output: it is NOT a node; it goes to the evaluator-only `reference` (`evaluationText` keeps its
 * exact text, `evaluation` the parsed JSON) and its `success` gives `passed`.
 */
export function splitAppWorld(trace: string): ParsedTrace {
  const p = emptyParsed("appworld");
  const ev = APPWORLD_EVAL.exec(trace);
  const end = ev ? ev.index : trace.length;
  const hs = findHeaders(trace.slice(0, end), APPWORLD_HEADER, (m): AppWorldKind => {
    if (m[2] !== undefined) return "response";
    if (m[3] !== undefined) return "message-to";
    if (m[4] !== undefined) return "reply";
    if (m[6] !== undefined) return "api-response";
    return "code-output";
  });
  if (hs.length === 0 && !ev) return splitGeneric(trace);
  const { preamble, slices } = cut(trace, hs, end);
  if (preamble !== "") p.nodes.push(preambleNode(preamble));
  const tb = APPWORLD_TASK.exec(preamble);
  if (tb) {
    p.taskId = tb[2];
    const after = preamble.slice(tb.index + tb[0].length).trim();
    if (after !== "") p.prompt = after;
  } else if (preamble.trim() !== "") p.prompt = preamble.trim();
  hs.forEach((h, i) => {
    const s = slices[i];
    const depth = Math.floor(h.m[1].length / 4);
    const head = s.slice(0, s.indexOf("\n") < 0 ? s.length : s.indexOf("\n")).trim();
    const body = bodyAfterHeader(s);
    const prevIdx = p.nodes.length - 1;
    const prev = p.nodes[prevIdx];
    const prevKind = prev?.content.section as AppWorldKind | undefined;
    switch (h.kind) {
      case "response": {
        const agent = h.m[2].trim();
        p.nodes.push({ type: "agent_action", agent, label: label(agent, body), content: { section: h.kind, header: head, depth, text: s } });
        break;
      }
      case "code-output": {
        const node: ParsedNode = { type: "tool_result", agent: "code execution", label: label("Code Execution Output", body), content: { section: h.kind, header: head, depth, text: s } };
        if (/Execution failed\. Traceback/.test(body)) node.status = "error";
        if (prevKind === "response") node.dataFrom = prevIdx;
        p.nodes.push(node);
        break;
      }
      case "message-to": {
        const to = h.m[3].trim();
        p.nodes.push({ type: "message", agent: null, label: label(`To ${to}`, body), content: { section: h.kind, header: head, depth, to, text: s } });
        break;
      }
      case "reply": {
        const agent = h.m[4].trim();
        const to = h.m[5].trim();
        p.nodes.push({ type: "message", agent, label: label(`${agent} -> ${to}`, body), content: { section: h.kind, header: head, depth, to, text: s } });
        break;
      }
      case "api-response": {
        const api = h.m[6].trim();
        const node: ParsedNode = { type: "tool_result", agent: `${api} API`, label: label(`${api} API`, body), content: { section: h.kind, header: head, depth, api, text: s } };
        if (prevKind === "reply") node.dataFrom = prevIdx;
        p.nodes.push(node);
        break;
      }
    }
  });
  if (ev) {
    const evaluationText = trace.slice(ev.index);
    let evaluation: unknown = null;
    try {
      evaluation = JSON.parse(trace.slice(ev.index + ev[0].length));
    } catch {
      p.notes.push("AppWorld Evaluation block is not valid JSON; kept as text only");
    }
    p.reference = { evaluationText, evaluation };
    if (isRec(evaluation) && typeof evaluation.success === "boolean") p.passed = evaluation.success;
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// OpenManus (plain-text loguru log)

const OM_LOG = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \| [A-Z]+\s*\| `;
const OM_PLAN = new RegExp(`^${OM_LOG}app\\.flow\\.planning:_create_initial_plan:\\d+ - Creating initial plan`);
const OM_STEP = new RegExp(`^${OM_LOG}app\\.agent\\.base:run:\\d+ - Executing step (\\d+)/(\\d+)`);
const OM_TOOL = new RegExp(`^${OM_LOG}app\\.agent\\.toolcall:act:\\d+ - \\S* ?Tool '([^']+)' completed its mission!`);
const OM_MARKED = new RegExp(`^${OM_LOG}app\\.flow\\.planning:_mark_step_completed:\\d+ - `);
const OM_TOKENS = new RegExp(`^${OM_LOG}app\\.llm:update_token_count:\\d+ - `);
const OM_DONE = new RegExp(`^${OM_LOG}__main__:run_flow:\\d+ - Request processed in`);

type OmKind = "plan" | "step" | "tool" | "summary" | "final";

/**
 * OpenManus trace (loguru lines `<ts> | LEVEL | module:func:line - msg` plus raw stdout). Nodes:
 *  - `app.flow.planning:_create_initial_plan - Creating initial plan` -> `agent_action`
 *    (agent "PlanningFlow": the plan LLM call and the printed plan);
 *  - `app.agent.base:run - Executing step i/n` -> `agent_action` (agent from
 *    "✨ <Agent>'s thoughts", default "Manus": thoughts, selected tools, tool arguments);
 *  - `app.agent.toolcall:act - 🎯 Tool 'X' completed its mission! Result: ...` -> `tool_result`
 *    (agent X; data edge from the step before it; status "error" when it reports
 *    `'success': False`);
 *  - an `app.llm:update_token_count` line right after a `_mark_step_completed` line (the flow's
 *    closing LLM call, whose streamed summary follows as raw stdout) -> `agent_action`
 *    (agent "PlanningFlow");
 *  - `__main__:run_flow - Request processed in ...` (the result printed for the user) ->
 *    `final_result`.
 * Bookkeeping lines (`Marked step k as completed`, browser_use setup lines) stay in the node before
 * them. The text before the plan ("Enter your prompt: ... Processing your request...") is the
 * preamble; the log does not echo the user's prompt, so `prompt` stays null.
 */
export function splitOpenManus(trace: string): ParsedTrace {
  const p = emptyParsed("openmanus");
  const hs: Header<OmKind>[] = [];
  let off = 0;
  let prevLine = "";
  for (const line of trace.split("\n")) {
    let kind: OmKind | null = null;
    let m: RegExpExecArray | null = null;
    if ((m = OM_STEP.exec(line))) kind = "step";
    else if ((m = OM_TOOL.exec(line))) kind = "tool";
    else if ((m = OM_PLAN.exec(line))) kind = "plan";
    else if ((m = OM_DONE.exec(line))) kind = "final";
    else if (OM_MARKED.test(prevLine) && (m = OM_TOKENS.exec(line))) kind = "summary";
    if (kind && m) hs.push({ start: off, kind, m });
    off += line.length + 1;
    prevLine = line;
  }
  if (hs.length === 0) return splitGeneric(trace);
  const { preamble, slices } = cut(trace, hs);
  if (preamble !== "") p.nodes.push(preambleNode(preamble));
  hs.forEach((h, i) => {
    const s = slices[i];
    const prevIdx = p.nodes.length - 1;
    const prev = p.nodes[prevIdx];
    switch (h.kind) {
      case "plan": {
        const title = /^Plan: (.+)$/m.exec(s)?.[1];
        p.nodes.push({ type: "agent_action", agent: "PlanningFlow", label: oneLine(`Create plan${title ? `: ${title}` : ""}`), content: { section: h.kind, text: s } });
        break;
      }
      case "step": {
        const agent = /✨ (\S+?)'s thoughts/.exec(s)?.[1] ?? "Manus";
        const thought = /'s thoughts: ?(.*)$/m.exec(s)?.[1]?.trim();
        const tools = /Tools being prepared: (\[.*\])/.exec(s)?.[1];
        const nSel = /selected (\d+) tools/.exec(s)?.[1];
        const what = thought ? thought : tools ? `tools ${tools}` : nSel === "0" ? "no tool" : "";
        p.nodes.push({
          type: "agent_action",
          agent,
          label: oneLine(`Step ${h.m[1]}/${h.m[2]}${what ? `: ${what}` : ""}`),
          content: { section: h.kind, step: Number(h.m[1]), maxSteps: Number(h.m[2]), text: s },
        });
        break;
      }
      case "tool": {
        const tool = h.m[1];
        const res = /completed its mission! Result: ?(.*)$/m.exec(s)?.[1] ?? "";
        const after = bodyAfterHeader(s);
        const node: ParsedNode = {
          type: "tool_result",
          agent: tool,
          label: label(`Tool ${tool}`, firstNonEmptyLine(after) || res),
          content: { section: h.kind, tool, text: s },
        };
        if (/'success': False/.test(s)) node.status = "error";
        if (prev && prev.type === "agent_action" && prev.content.section === "step") node.dataFrom = prevIdx;
        p.nodes.push(node);
        break;
      }
      case "summary":
        p.nodes.push({ type: "agent_action", agent: "PlanningFlow", label: label("Plan summary", bodyAfterHeader(s)), content: { section: h.kind, text: s } });
        break;
      case "final": {
        const secs = /Request processed in ([\d.]+) seconds/.exec(s)?.[1];
        p.nodes.push({ type: "final_result", agent: "PlanningFlow", label: oneLine(`Result${secs ? ` (request processed in ${secs} s)` : ""}`), content: { section: h.kind, text: s } });
        break;
      }
    }
  });
  return p;
}

// ---------------------------------------------------------------------------------------------
// HyperAgent (json: {..., trajectory: ["HyperAgent_<id> - INFO - ...", ...]}) — not in the sample

const HYPER_ROLE = /\b(Planner|Navigator|Editor|Executor)\b/;

/**
 * HyperAgent trace (SOURCE.md: `trajectory` is a list of log lines "HyperAgent_<id> - INFO - ...",
 * grouped by Planner/Navigator/Editor/Executor). One `agent_action` per maximal run of lines
 * attributed to the same role (a line naming no role joins the current run). Written from the
 * SOURCE.md description only: the sample holds no HyperAgent record.
 * @throws Error when the trace is not JSON with a trajectory array of strings
 */
export function splitHyperAgent(trace: string): ParsedTrace {
  const j = JSON.parse(trace) as unknown;
  if (!isRec(j) || !Array.isArray(j.trajectory) || !j.trajectory.every((l) => typeof l === "string")) {
    throw new Error("HyperAgent trace is not a JSON object with a trajectory array of strings");
  }
  const p = emptyParsed("hyperagent");
  const { trajectory, ...rest } = j;
  p.traceFields = rest;
  const groups: Array<{ role: string | null; lines: string[] }> = [];
  for (const line of trajectory as string[]) {
    const role = HYPER_ROLE.exec(line)?.[1] ?? null;
    const cur = groups[groups.length - 1];
    if (cur && (role === null || role === cur.role || cur.role === null)) {
      if (cur.role === null) cur.role = role;
      cur.lines.push(line);
    } else groups.push({ role, lines: [line] });
  }
  for (const g of groups) {
    const text = g.lines.join("\n");
    p.nodes.push({ type: "agent_action", agent: g.role, label: label(g.role ?? "HyperAgent", text), content: { lines: g.lines, text } });
  }
  if (p.nodes.length === 0) return splitGeneric(trace);
  return p;
}

// ---------------------------------------------------------------------------------------------
// dispatch

/** The splitters by MAS slug (config.mas). */
export const SPLITTERS: Record<string, (trace: string) => ParsedTrace> = {
  ag2: splitAg2,
  metagpt: splitMetaGpt,
  chatdev: splitChatDev,
  "magentic-one": splitMagentic,
  appworld: splitAppWorld,
  openmanus: splitOpenManus,
  hyperagent: splitHyperAgent,
};

/**
 * Split a trace with the splitter of `masSlug`; unknown MAS -> generic (one node). When a
 * JSON-based splitter cannot parse the trace, falls back to generic with a note.
 * Never throws.
 */
export function splitTrace(masSlug: string, trace: string): ParsedTrace {
  const f = SPLITTERS[masSlug];
  if (!f) {
    const g = splitGeneric(trace);
    g.notes.push(`no splitter for MAS "${masSlug}": whole trace imported as one message node`);
    return g;
  }
  try {
    return f(trace);
  } catch (err) {
    const g = splitGeneric(trace);
    g.notes.push(`${masSlug} splitter failed (${err instanceof Error ? err.message : String(err)}): whole trace imported as one message node`);
    return g;
  }
}
