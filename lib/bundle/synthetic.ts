/**
 * Synthetic replay bundles shaped like real multi-agent-system traces, for benchmarks and tests
 * (the 4,002-node trace of the measurements notes). Pure and deterministic: all text comes
 * from a seeded PRNG (no Math.random, no clock), so the same options give the same bundle and the
 * same canonical hash.
 *
 * Shape (T = `turns`, agents round-robin, turn t is run by `agents[t % agents.length]`):
 *
 *   task_0000 (message, agent "User")                         -- omitted when `taskNode: false`
 *   for t in 0..T-1:
 *     llm_call_<t> -> agent_action_<t> -> tool_call_<t> -> tool_result_<t>
 *   final_result (final_result)
 *
 * Node count: 1 + 4T + 1 (with the task node; T=1000 gives 4,002) or 4T + 1 without it
 * (T=1000, `taskNode: false` gives 4,001).
 *
 * Edges (in this order, per turn):
 *   - task_0000 -> llm_call_0000 (data; only with the task node)
 *   - llm_call_t -> agent_action_t, agent_action_t -> tool_call_t, tool_call_t -> tool_result_t (data)
 *   - for t > 0: tool_result_{t-1} -> llm_call_t (control) and agent_action_{t-1} -> llm_call_t (data,
 *     the conversation history)
 *   - tool_result_{T-1} -> final_result (control) and agent_action_{T-1} -> final_result (data)
 * Edge count: 3T + 2(T-1) + 2 (+1 with the task node); T=1000 gives 5,001 (5,000 without task).
 *
 * Records (2 per turn, seq in order): for each turn an `llm` record on llm_call_t
 * (request `{model, messages:[...], temperature: 0}`) then a `tool` record on tool_call_t
 * (request `{name, arguments}`). Record count: 2T.
 *
 * Every 17th turn (t % 17 == 16) the tool fails: tool_result_t has status "error" and
 * error `{type, message}`, and the tool record's response carries the same error.
 */
import { buildBundle, type BundleDraft, type NodeDraft, type RecordDraft } from "./build";
import type { BundleEdge, ReplayBundle } from "./schema";

export interface SyntheticBundleOptions {
  /** Bundle id (must be unique in a database). */
  id: string;
  /** Number of agent turns (>= 1); each turn is 4 nodes. */
  turns: number;
  /** Agents taking turns round-robin; default ["Orchestrator", "WebSurfer", "Coder", "FileSurfer"]. */
  agents?: string[];
  /** PRNG seed for all generated text; default 1. */
  seed?: number;
  /** Emit the leading task message node `task_0000`; default true. */
  taskNode?: boolean;
}

export const DEFAULT_AGENTS = ["Orchestrator", "WebSurfer", "Coder", "FileSurfer"] as const;
const MODEL = "deepseek-v4-flash";
/** Every FAIL_EVERY-th turn's tool call fails. */
export const FAIL_EVERY = 17;
/** How many previous turns an llm request carries as history (keeps requests a realistic size). */
const HISTORY_TURNS = 3;

/** mulberry32: small, fast, deterministic 32-bit PRNG returning floats in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the page shows a table of results with prices and opening hours for each store near the park " +
  "I will check the second link first because it mentions ready salads under fifteen dollars " +
  "search returned several listings including delivery options reviews addresses and a map " +
  "next step is to open the official site verify the address and confirm the distance in blocks " +
  "the request timed out so retry with a narrower query about the deli section and current menu"
).split(" ");
const TOOLS = ["web_search", "browse", "run_python", "read_file"] as const;
const HOSTS = ["en.wikipedia.org", "w.potashmarkets.com", "maps.example.org", "docs.python.org", "github.com"];

/** The parts of a synthetic bundle, produced turn by turn (see {@link syntheticParts}). */
export interface SyntheticParts {
  header: Pick<BundleDraft, "id" | "task" | "initialState" | "config" | "outcome">;
  /** One item per turn (plus a first one for the task node and a last one for the final node). */
  chunks: Generator<{ nodes: NodeDraft[]; edges: BundleEdge[]; records: RecordDraft[] }>;
}

/**
 * The synthetic bundle's header and a generator of its nodes, edges and records, turn by turn,
 * so that a bundle of any size can be written without holding it (`writeSyntheticBundleFile`).
 * Same PRNG draws in the same order as {@link syntheticBundle}, which collects them.
 * @param opts.historyTurns previous turns an llm request carries (default 3; 0 for lighter records)
 */
export function syntheticParts(opts: SyntheticBundleOptions & { historyTurns?: number }): SyntheticParts {
  const turns = Math.floor(opts.turns);
  if (!(turns >= 1)) throw new Error(`syntheticBundle: turns must be >= 1, got ${opts.turns}`);
  const agents = opts.agents && opts.agents.length ? opts.agents : [...DEFAULT_AGENTS];
  const withTask = opts.taskNode ?? true;
  const historyTurns = opts.historyTurns ?? HISTORY_TURNS;
  const rand = prng(opts.seed ?? 1);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const sentence = (minWords: number, maxWords: number): string => {
    const n = minWords + Math.floor(rand() * (maxWords - minWords + 1));
    const w: string[] = [];
    for (let i = 0; i < n; i++) w.push(pick(WORDS));
    const s = w.join(" ");
    return s[0].toUpperCase() + s.slice(1) + ".";
  };
  const pad = (t: number) => String(t).padStart(4, "0");

  const prompt = `Synthetic task ${opts.id}: ${sentence(18, 30)}`;
  const system = `You are the ${agents.join(", ")} team solving web tasks. Answer precisely; cite the page you used.`;
  // The answer is drawn after all turns: the header's task.reference and outcome are filled then.
  const header: SyntheticParts["header"] = {
    id: opts.id,
    task: { id: `synthetic-${opts.seed ?? 1}`, benchmark: "synthetic", split: "bench", prompt, startUrls: [], reference: { expected: [] as string[] } },
    initialState: {},
    config: { mas: "synthetic", masVersion: "1", model: MODEL, temperature: 0, replay: { normalization: "openai-chat-v1" } },
    outcome: { passed: (opts.seed ?? 1) % 3 === 0, evaluator: "synthetic", details: {} },
  };

  function* chunks(): Generator<{ nodes: NodeDraft[]; edges: BundleEdge[]; records: RecordDraft[] }> {
    const history: Array<{ role: string; name?: string; content: string }> = [];
    if (withTask) {
      yield { nodes: [{ id: "task_0000", type: "message", agent: "User", label: "task", content: { role: "user", text: prompt } }], edges: [], records: [] };
    }
    let prevAction: string | null = null;
    let prevResult: string | null = null;
    let lastAgent = agents[0];
    for (let t = 0; t < turns; t++) {
      const nodes: NodeDraft[] = [];
      const edges: BundleEdge[] = [];
      const records: RecordDraft[] = [];
      const agent = agents[t % agents.length];
      lastAgent = agent;
      const p = pad(t);
      const llmId = `llm_call_${p}`;
      const actId = `agent_action_${p}`;
      const callId = `tool_call_${p}`;
      const resId = `tool_result_${p}`;

      // llm_call: the request carries the system prompt, the task and the last few turns.
      const thought = sentence(25, 45);
      const messages = [
        { role: "system", content: system },
        { role: "user", content: prompt },
        ...(historyTurns > 0 ? history.slice(-2 * historyTurns) : []),
      ];
      const llmResponse = { choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: thought } }] };
      nodes.push({
        id: llmId,
        type: "llm_call",
        agent,
        label: `${agent} thinks`,
        content: { model: MODEL, messageCount: messages.length, response: thought, usage: { promptTokens: 180 + 40 * messages.length, completionTokens: 60 } },
      });
      records.push({
        nodeId: llmId,
        boundary: "llm",
        request: { model: MODEL, messages, temperature: 0 },
        response: llmResponse,
        meta: { latencyMs: 400 + Math.floor(rand() * 1200), model: MODEL },
      });

      // agent_action: what the agent decided.
      const tool = pick(TOOLS);
      const host = pick(HOSTS);
      const args: Record<string, unknown> =
        tool === "web_search"
          ? { query: sentence(5, 9).slice(0, -1).toLowerCase(), maxResults: 5 }
          : tool === "browse"
            ? { url: `https://${host}/${pick(WORDS)}/${pick(WORDS)}-${t}` }
            : tool === "run_python"
              ? { code: `rows = load("${pick(WORDS)}.csv")\nprint(len([r for r in rows if r.price < 15]))  # turn ${t}` }
              : { path: `/workspace/${pick(WORDS)}_${t}.txt` };
      const actionText = `${agent}: ${sentence(12, 24)} Calling ${tool}.`;
      nodes.push({
        id: actId,
        type: "agent_action",
        agent,
        label: actionText.slice(0, 60),
        content: { text: actionText, plan: [sentence(4, 8), sentence(4, 8)], nextTool: tool },
      });

      // tool_call / tool_result.
      const failed = t % FAIL_EVERY === FAIL_EVERY - 1;
      nodes.push({ id: callId, type: "tool_call", agent, label: tool, content: { name: tool, arguments: args } });
      const error = failed ? { type: "ToolTimeoutError", message: `${tool} did not answer within 30 s (${host})` } : null;
      const observation = failed
        ? { status: "error", error }
        : {
            status: "success",
            http_status: 200,
            url: `https://${host}/`,
            title: sentence(3, 7),
            text: `${sentence(30, 50)} ${sentence(20, 35)}`,
          };
      nodes.push({
        id: resId,
        type: "tool_result",
        agent,
        label: failed ? "error" : "success",
        content: observation,
        status: failed ? "error" : "success",
        ...(failed ? { error } : {}),
      });
      records.push({ nodeId: callId, boundary: "tool", request: { name: tool, arguments: args }, response: observation });

      // Edges of this turn, then the ones linking it to the previous turn.
      if (t === 0 && withTask) edges.push({ from: "task_0000", to: llmId, kind: "data" });
      if (prevResult && prevAction) {
        edges.push({ from: prevResult, to: llmId, kind: "control" });
        edges.push({ from: prevAction, to: llmId, kind: "data" });
      }
      edges.push({ from: llmId, to: actId, kind: "data" });
      edges.push({ from: actId, to: callId, kind: "data" });
      edges.push({ from: callId, to: resId, kind: "data" });

      if (historyTurns > 0) {
        history.push({ role: "assistant", name: agent, content: thought });
        history.push({ role: "user", name: `${tool}_result`, content: JSON.stringify(observation).slice(0, 400) });
        if (history.length > 4 * historyTurns) history.splice(0, history.length - 2 * historyTurns);
      }
      prevAction = actId;
      prevResult = resId;
      yield { nodes, edges, records };
    }

    const answer = sentence(10, 20);
    (header.task.reference as { expected: string[] }).expected.push(answer);
    yield {
      nodes: [{ id: "final_result", type: "final_result", agent: lastAgent, label: "final answer", content: { answer, turns } }],
      edges: [
        { from: prevResult as string, to: "final_result", kind: "control" },
        { from: prevAction as string, to: "final_result", kind: "data" },
      ],
      records: [],
    };
  }
  return { header, chunks: chunks() };
}

/**
 * Build a valid synthetic bundle (see the module comment for the exact shape and counts).
 * @throws Error when turns < 1 or agents is empty; BundleValidationError would mean a bug here
 */
export function syntheticBundle(opts: SyntheticBundleOptions): ReplayBundle {
  const { header, chunks } = syntheticParts(opts);
  const nodes: NodeDraft[] = [];
  const edges: BundleEdge[] = [];
  const records: RecordDraft[] = [];
  for (const c of chunks) {
    nodes.push(...c.nodes);
    edges.push(...c.edges);
    records.push(...c.records);
  }
  return buildBundle({ ...header, nodes, edges, records });
}

/**
 * A bundle the size of a gold case: 3 turns with the task node = 14 nodes, 16 edges, 6 records;
 * id `bench/gold-sized/<i>`, seeded by i so every one differs.
 */
export function goldSizedBundle(i: number): ReplayBundle {
  return syntheticBundle({ id: `bench/gold-sized/${i}`, turns: 3, seed: i + 1, agents: ["Orchestrator", "WebSurfer"] });
}

export interface FanOutBundleOptions {
  /** Bundle id (must be unique in a database). */
  id: string;
  /** Number of parallel calls the dispatcher starts (>= 1); default 2,000. */
  width?: number;
  /** Worker agents the calls are spread over (round-robin); default 4 (`Worker-0`…`Worker-3`). */
  workers?: number;
}

/**
 * A wide fan-out: one dispatcher starts `width` parallel tool calls whose results all feed one
 * join (issue 10 item 9, the inspector's worst case for edges: one node with `width` out-edges,
 * one with `width` in-edges). Deterministic.
 *
 *   task_0000 (message, User) -> dispatcher (agent_action, Dispatcher)
 *   dispatcher -> call_<i> (tool_call, Worker-<i % workers>)        for i in 0..width-1 (data)
 *   call_<i> -> result_<i> (tool_result, same worker)                 (data)
 *   result_<i> -> join (final_result, Dispatcher)                     (data)
 *
 * Observed order: task, dispatcher, all calls, all results, join. One `tool` record per call.
 * Counts: nodes = 2·width + 3 (4,003 for 2,000), edges = 3·width + 1 (6,001), records = width.
 * @throws Error when width < 1
 */
export function fanOutBundle(opts: FanOutBundleOptions): ReplayBundle {
  const width = opts.width ?? 2000;
  const workers = opts.workers ?? 4;
  if (!(width >= 1) || !(workers >= 1)) throw new Error("fanOutBundle: width and workers must be >= 1");
  const pad = (i: number) => String(i).padStart(4, "0");
  const worker = (i: number) => `Worker-${i % workers}`;
  const nodes: NodeDraft[] = [
    { id: "task_0000", type: "message", agent: "User", label: "task", content: { role: "user", text: `check ${width} sources in parallel` } },
    { id: "dispatcher", type: "agent_action", agent: "Dispatcher", label: `dispatch ${width} calls`, content: { text: `starting ${width} parallel lookups` } },
  ];
  const edges: BundleEdge[] = [
    { from: "task_0000", to: "dispatcher", kind: "data" },
  ];
  const records: RecordDraft[] = [];
  for (let i = 0; i < width; i++) {
    const args = { url: `https://example.org/source/${i}` };
    nodes.push({ id: `call_${pad(i)}`, type: "tool_call", agent: worker(i), label: `fetch #${i}`, content: { name: "fetch", arguments: args } });
    edges.push({ from: "dispatcher", to: `call_${pad(i)}`, kind: "data" });
    records.push({ nodeId: `call_${pad(i)}`, boundary: "tool", request: { name: "fetch", arguments: args }, response: { status: 200, length: 1000 + i } });
  }
  for (let i = 0; i < width; i++) {
    nodes.push({ id: `result_${pad(i)}`, type: "tool_result", agent: worker(i), label: `result #${i}`, content: { status: 200, length: 1000 + i } });
    edges.push({ from: `call_${pad(i)}`, to: `result_${pad(i)}`, kind: "data" });
  }
  nodes.push({ id: "join", type: "final_result", agent: "Dispatcher", label: "join", content: { answer: `${width} sources checked` } });
  for (let i = 0; i < width; i++) edges.push({ from: `result_${pad(i)}`, to: "join", kind: "data" });
  return buildBundle({
    id: opts.id,
    task: { prompt: `check ${width} sources in parallel` },
    config: { mas: "synthetic-fan-out" },
    nodes,
    edges,
    records,
  });
}
