import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { hashContent, validateBundle, type ReplayBundle } from "../bundle";
import {
  RecordSession,
  ReplaySession,
  TargetError,
  appendGuidance,
  assembleStream,
  resolveOutputTarget,
  substitutedResponse,
  normalizeRequest,
  pointerDiff,
  resolveTarget,
  type BoundarySession,
  type DivergenceReport,
  type Step,
} from "./index";

// A tiny in-memory MAS: an agent loop over a scripted model and scripted tools, driving a session
// exactly as the proxy would (plain in-memory requests, no HTTP).
type Msg = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };
interface Turn {
  content?: string;
  calls?: { name: string; args: unknown }[];
}
interface MasOptions {
  task: string;
  /** The scripted model: the n-th live LLM request gets turns[n] (or a function of the request). */
  model: (req: { messages: Msg[] }, n: number) => Turn;
  tool?: (name: string, args: unknown) => unknown;
  /** Reorder the tool calls of one assistant message before issuing them (parallel calls). */
  order?: (calls: number[]) => number[];
  /** Change the request at a given LLM call index (to provoke a divergence). */
  mutate?: (req: Record<string, unknown>, llmIndex: number) => void;
  maxTurns?: number;
  stream?: boolean;
}
interface MasRun {
  steps: Step[];
  liveRequests: unknown[];
  final: string | null;
  stoppedBy: Step | null;
}

function completion(turn: Turn, n: number) {
  const tool_calls = turn.calls?.map((c, i) => ({ id: `call_${n}_${i}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  return {
    id: `cmpl-${n}`,
    object: "chat.completion",
    choices: [{ index: 0, finish_reason: tool_calls ? "tool_calls" : "stop", message: { role: "assistant", content: turn.content ?? null, ...(tool_calls ? { tool_calls } : {}) } }],
  };
}

function streamOf(turn: Turn, n: number) {
  const events = [{ data: JSON.stringify({ id: `c${n}`, object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }) }];
  const text = turn.content ?? "";
  for (let i = 0; i < text.length; i += 4) events.push({ data: JSON.stringify({ id: `c${n}`, object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: text.slice(i, i + 4) } }] }) });
  turn.calls?.forEach((c, i) => {
    events.push({ data: JSON.stringify({ id: `c${n}`, choices: [{ index: 0, delta: { tool_calls: [{ index: i, id: `call_${n}_${i}`, type: "function", function: { name: c.name, arguments: "" } }] } }] }) });
    events.push({ data: JSON.stringify({ id: `c${n}`, choices: [{ index: 0, delta: { tool_calls: [{ index: i, function: { arguments: JSON.stringify(c.args) } }] } }] }) });
  });
  events.push({ data: JSON.stringify({ id: `c${n}`, choices: [{ index: 0, delta: {}, finish_reason: turn.calls ? "tool_calls" : "stop" }] }) });
  events.push({ data: "[DONE]" });
  return { stream: true as const, events };
}

function runMas(session: BoundarySession, o: MasOptions): MasRun {
  const run: MasRun = { steps: [], liveRequests: [], final: null, stoppedBy: null };
  const messages: Msg[] = [
    { role: "system", content: "You are a careful agent. ".repeat(4) },
    { role: "user", content: o.task },
  ];
  let live = 0;
  const tool = o.tool ?? ((name: string, args: unknown) => ({ status: "success", tool: name, echo: args }));
  for (let t = 0, llmIndex = 0; t < (o.maxTurns ?? 10); t++, llmIndex++) {
    const req: Record<string, unknown> = { model: "m", messages: structuredClone(messages), temperature: 0, user: `run-${Math.random()}`, stream_options: { include_usage: true }, ...(o.stream ? { stream: true } : {}) };
    o.mutate?.(req, llmIndex);
    const step = session.begin({ boundary: "llm", request: req });
    run.steps.push(step);
    let response: unknown;
    if (step.kind === "recorded" || step.kind === "substituted") response = step.response;
    else if (step.kind === "live") {
      run.liveRequests.push(step.forward);
      const turn = o.model(step.forward as { messages: Msg[] }, live);
      response = o.stream ? streamOf(turn, live) : completion(turn, live);
      live++;
      session.complete(step.ticket, { response, latencyMs: 1 });
    } else {
      run.stoppedBy = step;
      return run;
    }
    const msg = (response as { stream?: boolean }).stream ? assembleStream((response as ReturnType<typeof streamOf>).events).message : (response as ReturnType<typeof completion>).choices[0].message;
    messages.push({ role: "assistant", content: msg.content ?? null, ...(msg.tool_calls ? { tool_calls: msg.tool_calls } : {}) });
    const calls = (msg.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[];
    if (calls.length === 0) {
      run.final = msg.content ?? null;
      return run;
    }
    const idx = o.order ? o.order(calls.map((_, i) => i)) : calls.map((_, i) => i);
    const results: Msg[] = [];
    for (const i of idx) {
      const c = calls[i];
      const ts = session.begin({ boundary: "tool", request: { tool: c.function.name, arguments: JSON.parse(c.function.arguments) } });
      run.steps.push(ts);
      let obs: unknown;
      if (ts.kind === "recorded") obs = ts.response;
      else if (ts.kind === "live") {
        obs = tool(c.function.name, JSON.parse(c.function.arguments));
        session.complete(ts.ticket, { response: obs });
      } else {
        run.stoppedBy = ts;
        return run;
      }
      results[i] = { role: "tool", tool_call_id: c.id, content: JSON.stringify(obs) };
    }
    messages.push(...results);
  }
  return run;
}

// Source model: search, then fetch two pages in parallel, then a calculation, then answer.
const SOURCE_TURNS: Turn[] = [
  { content: "I will search first.", calls: [{ name: "search", args: { q: "parks near Portland" } }] },
  { calls: [{ name: "fetch", args: { path: "a" } }, { name: "fetch", args: { path: "b" } }] },
  { calls: [{ name: "calc", args: { expr: "1+2" } }] },
  { content: "The answer is 3." },
];
const sourceModel = (_req: unknown, n: number) => SOURCE_TURNS[n];
const TASK = "Find the closest park and compute its distance.";

function record(o: Partial<MasOptions> = {}): { bundle: ReplayBundle; run: MasRun } {
  const s = new RecordSession({ id: "test/source", task: { prompt: TASK }, config: { mas: "in-memory", model: "m" } });
  const run = runMas(s, { task: TASK, model: sourceModel, ...o });
  const bundle = s.toBundle({ final: run.final, runner: { command: ["node", "mas.js"] } });
  return { bundle, run };
}

const nodeIds = (b: ReplayBundle) => b.graph.nodes.map((n) => n.id);
const lastMsg = (req: unknown) => (req as { messages: Msg[] }).messages.at(-1);

describe("snapshot mode (record)", () => {
  test("writes a valid bundle v1 with llm/tool nodes, data and control edges, records and a final_result", () => {
    const { bundle } = record();
    expect(validateBundle(JSON.parse(JSON.stringify(bundle))).ok).toBe(true);
    expect(bundle.records.map((r) => `${r.boundary}:${r.nodeId}`)).toEqual([
      "llm:llm_call_0000",
      "tool:tool_call_0000",
      "llm:llm_call_0001",
      "tool:tool_call_0001",
      "tool:tool_call_0002",
      "llm:llm_call_0002",
      "tool:tool_call_0003",
      "llm:llm_call_0003",
    ]);
    const types = new Map(bundle.graph.nodes.map((n) => [n.id, n.type]));
    expect(types.get("task_0000")).toBe("message");
    expect(types.get("agent_action_0003")).toBe("agent_action");
    expect(types.get("tool_result_0003")).toBe("tool_result");
    expect(types.get("final_result_0000")).toBe("final_result");
    const has = (from: string, to: string, kind: string) => bundle.graph.edges.some((e) => e.from === from && e.to === to && e.kind === kind);
    expect(has("llm_call_0000", "tool_call_0000", "data")).toBe(true); // its tool_calls named the tool
    expect(has("tool_result_0000", "llm_call_0001", "data")).toBe(true); // consumed by the next LLM call
    expect(has("agent_action_0000", "tool_call_0000", "control")).toBe(true);
    expect(has("tool_result_0001", "llm_call_0002", "data") && has("tool_result_0002", "llm_call_0002", "data")).toBe(true);
    expect(bundle.graph.nodes.find((n) => n.id === "final_result_0000")?.content).toEqual({ final: "The answer is 3." });
    // Records are stored normalized: no user id, no stream_options.
    expect(Object.keys(bundle.records[0].request as object).sort()).toEqual(["messages", "model", "temperature"]);
    // Parallel tool calls of one assistant message share a group.
    expect(bundle.records[3].meta?.parallelGroup).toBe("llm_call_0001");
    expect(bundle.records[4].meta?.parallelGroup).toBe("llm_call_0001");
    expect(bundle.config.replay).toEqual({ normalization: "openai-chat-v1", recorder: "symtrace-proxy/v1" });
    expect(bundle.config.runner?.command).toEqual(["node", "mas.js"]);
  });
});

describe("selective replay (Algorithm 2)", () => {
  test("exact prefix reconstruction: recorded responses served, every prefix node hash equal, suffix live", () => {
    const { bundle } = record();
    const toolLive: string[] = [];
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0002", guidance: "Double-check the arithmetic." });
    const run = runMas(session, {
      task: TASK,
      model: () => ({ content: "Checked: 3." }),
      tool: (n) => {
        toolLive.push(n);
        return { live: true };
      },
    });
    expect(run.steps.slice(0, 5).map((s) => s.kind)).toEqual(["recorded", "recorded", "recorded", "recorded", "recorded"]);
    expect(run.steps.slice(0, 5).map((s) => (s.kind === "recorded" ? s.seq : -1))).toEqual([0, 1, 2, 3, 4]);
    expect(toolLive).toEqual([]); // the recorded tool results were served, not live ones
    expect(run.steps[5]).toMatchObject({ kind: "live", isTarget: true });
    expect(session.verified).toBe(5);
    expect(session.checkedNodes).toBe(10); // 5 records x (record node + companion)
    const out = session.toBundle({ id: "test/replay-1", final: run.final });
    expect(validateBundle(JSON.parse(JSON.stringify(out))).ok).toBe(true);
    const tpos = bundle.order.indexOf("llm_call_0002");
    const src = new Map(bundle.graph.nodes.map((n) => [n.id, n.contentHash]));
    const prefix = out.order.slice(0, tpos);
    expect(prefix).toEqual(bundle.order.slice(0, tpos));
    for (const id of prefix) expect(out.graph.nodes.find((n) => n.id === id)?.contentHash).toBe(src.get(id));
    expect(out.records.slice(0, 5)).toEqual(bundle.records.slice(0, 5));
    // Live suffix: new node ids, never colliding with the source's.
    const live = out.order.slice(tpos);
    expect(live[0]).toBe("llm_call_0004");
    for (const id of live) expect(src.has(id)).toBe(false);
    expect(out.parent).toMatchObject({ bundleId: "test/source", targetNodeId: "llm_call_0002", guidance: "Double-check the arithmetic.", mode: "selective" });
    // The target's dependencies on prefix nodes are kept (tool results it consumes).
    expect(out.graph.edges.some((e) => e.from === "tool_result_0001" && e.to === "llm_call_0004" && e.kind === "data")).toBe(true);
    expect(out.graph.nodes.find((n) => n.type === "final_result")?.content).toEqual({ final: "Checked: 3." });
  });

  test("guidance is present in the first live request and absent before", () => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0001", guidance: "Fetch only page a." });
    const run = runMas(session, { task: TASK, model: (_r, n) => (n === 0 ? { calls: [{ name: "fetch", args: { path: "a" } }] } : { content: "done" }) });
    expect(lastMsg(run.liveRequests[0])).toEqual({ role: "user", content: "Fetch only page a." });
    expect(JSON.stringify(run.liveRequests.slice(1))).not.toContain("Fetch only page a.");
    for (const r of bundle.records.slice(0, 2)) expect(JSON.stringify(r.request)).not.toContain("Fetch only page a.");
    const out = session.toBundle({ id: "test/replay-g", final: run.final });
    const target = out.records[2];
    expect(lastMsg(target.request)).toEqual({ role: "user", content: "Fetch only page a." });
    expect(target.meta?.guidance).toBe("Fetch only page a.");
  });

  test("divergence at the right seq when the MAS changes a request: content, JSON-pointer diff, neighbours, then stopped", () => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003", guidance: "g" });
    const run = runMas(session, {
      task: TASK,
      model: () => ({ content: "x" }),
      mutate: (req, i) => {
        if (i === 2) (req.messages as Msg[])[1].content = "Find the FARTHEST park.";
      },
    });
    expect(run.stoppedBy?.kind).toBe("diverged");
    const r = (run.stoppedBy as { report: DivergenceReport }).report;
    expect(r).toMatchObject({ seq: 5, nodeId: "llm_call_0002", reason: "content", verified: 5, expectedHash: bundle.records[5].requestHash });
    expect(r.actualHash).not.toBe(r.expectedHash);
    expect(r.diff).toEqual([{ op: "replace", path: "/messages/1/content", expected: TASK, actual: "Find the FARTHEST park." }]);
    expect(r.message).toContain("seq 5 (llm_call_0002, llm)");
    expect(r.message).toContain("/messages/1/content: expected");
    expect(r.neighbours.previous).toMatchObject({ seq: 4, nodeId: "tool_call_0002", boundary: "tool", what: "fetch" });
    expect(r.neighbours.next).toMatchObject({ seq: 6, nodeId: "tool_call_0003", what: "calc" });
    // Fail-closed: even the correct next request is refused afterwards.
    expect(session.begin({ boundary: "tool", request: bundle.records[6].request }).kind).toBe("diverged");
    expect(() => session.toBundle({ id: "x" })).toThrow(/diverged/);
  });

  test("a recorded tool result is served instead of a live one during the prefix", () => {
    const { bundle } = record({ tool: () => ({ status: "success", recorded: "yes" }) });
    let liveTools = 0;
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003" });
    const run = runMas(session, { task: TASK, model: () => ({ content: "ok" }), tool: () => (liveTools++, { status: "success", recorded: "no" }) });
    expect(liveTools).toBe(0);
    const toolSteps = run.steps.filter((s) => s.kind === "recorded" && s.nodeId.startsWith("tool_call"));
    expect(toolSteps.length).toBe(4);
    for (const s of toolSteps) expect(s.kind === "recorded" && s.response).toEqual({ status: "success", recorded: "yes" });
  });

  test("parallel tool calls from one assistant message are matched as a set, in any order", () => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003", guidance: "g" });
    const run = runMas(session, { task: TASK, model: () => ({ content: "ok" }), order: (ix) => ix.reverse() });
    expect(run.stoppedBy).toBeNull();
    const served = run.steps.filter((s) => s.kind === "recorded").map((s) => (s.kind === "recorded" ? s.seq : -1));
    expect(served).toEqual([0, 1, 2, 4, 3, 5, 6]);
    expect(validateBundle(JSON.parse(JSON.stringify(session.toBundle({ id: "t/par", final: run.final })))).ok).toBe(true);
  });

  test("a parallel call with different arguments fails closed (content) at the first unserved member", () => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003" });
    const model = (_r: unknown, n: number) => SOURCE_TURNS[n];
    // Serve seq 0..2 normally, then send fetch{path:"z"} inside the group.
    expect(runMas(new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003" }), { task: TASK, model }).stoppedBy).toBeNull();
    for (let k = 0; k < 3; k++) {
      const r = bundle.records[k];
      const req = r.boundary === "llm" ? { ...(r.request as object), user: "someone" } : r.request;
      expect(session.begin({ boundary: r.boundary, request: req }).kind).toBe("recorded");
    }
    expect(session.begin({ boundary: "tool", request: { tool: "fetch", arguments: { path: "b" } } }).kind).toBe("recorded");
    const step = session.begin({ boundary: "tool", request: { tool: "fetch", arguments: { path: "z" } } });
    expect(step).toMatchObject({ kind: "diverged", report: { seq: 3, reason: "content", diff: [{ path: "/arguments/path", expected: "a", actual: "z" }] } });
  });

  test.each([
    ["extra call: a tool request where an LLM request is recorded", "extra-call"],
    ["missing call: the MAS skips a recorded call", "missing-call"],
  ])("%s", (_name, reason) => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003" });
    session.begin({ boundary: "llm", request: bundle.records[0].request });
    session.begin({ boundary: "tool", request: bundle.records[1].request });
    const step =
      reason === "extra-call"
        ? session.begin({ boundary: "tool", request: { tool: "search", arguments: { q: "again" } } })
        : session.begin({ boundary: "tool", request: bundle.records[3].request }); // skips seq 2 (an llm call)
    expect(step).toMatchObject({ kind: "diverged", report: { seq: 2, nodeId: "llm_call_0001", reason } });
    if (step.kind === "diverged") expect(step.report.message).toMatch(reason === "extra-call" ? /extra call: the recording expects a llm request here but the MAS made a tool request/ : /missing call.*equals seq 3/);
  });

  test("recording exhausted, and a MAS that ends before the target (missing call)", () => {
    const { bundle } = record();
    const all = new ReplaySession({ source: bundle });
    for (const r of bundle.records) expect(all.begin({ boundary: r.boundary, request: r.request }).kind).toBe("recorded");
    expect(all.end()).toBeNull();
    const again = new ReplaySession({ source: bundle });
    for (const r of bundle.records) again.begin({ boundary: r.boundary, request: r.request });
    expect(again.begin({ boundary: "llm", request: bundle.records[0].request })).toMatchObject({ kind: "diverged", report: { seq: 8, nodeId: null, reason: "recording-exhausted", expectedHash: null } });
    const early = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003" });
    early.begin({ boundary: "llm", request: bundle.records[0].request });
    expect(early.end()).toMatchObject({ seq: 1, nodeId: "tool_call_0000", reason: "missing-call" });
  });

  test("no upstream: the prefix is verified and the session stops at the target", () => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "tool_result_0002", stopAtTarget: true });
    expect(session.target).toMatchObject({ boundaryNodeId: "llm_call_0002", seq: 5, exact: false });
    const run = runMas(session, { task: TASK, model: sourceModel });
    expect(run.stoppedBy).toMatchObject({ kind: "stopped", status: "prefix-verified", verified: 5 });
  });

  test("a tampered node content (hash recomputed, bundle still valid) is a node-hash divergence", () => {
    const { bundle } = record();
    const b = structuredClone(bundle) as ReplayBundle;
    const n = b.graph.nodes.find((x) => x.id === "tool_result_0000")!;
    n.content = { status: "success", edited: true };
    n.contentHash = hashContent(n.content);
    expect(validateBundle(b).ok).toBe(true);
    const run = runMas(new ReplaySession({ source: b, targetNodeId: "llm_call_0003" }), { task: TASK, model: sourceModel });
    expect(run.stoppedBy).toMatchObject({ kind: "diverged", report: { seq: 1, reason: "node-hash", nodeId: "tool_call_0000" } });
    expect((run.stoppedBy as { report: DivergenceReport }).report.message).toContain("tool_result_0000");
  });

  test("replay of a replay: the earlier guidance is re-applied at its boundary, the prefix matches", () => {
    const { bundle } = record();
    const s1 = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0001", guidance: "Fetch only page a." });
    const model1 = (_r: unknown, n: number): Turn => (n === 0 ? { calls: [{ name: "fetch", args: { path: "a" } }] } : { content: "a is enough" });
    const r1 = runMas(s1, { task: TASK, model: model1 });
    const b1 = s1.toBundle({ id: "test/replay-1", final: r1.final });
    const target = b1.records.at(-1)!.nodeId; // the last LLM call of replay 1
    const s2 = new ReplaySession({ source: b1, targetNodeId: target, guidance: "Now also check b." });
    const r2 = runMas(s2, { task: TASK, model: () => ({ content: "checked" }) });
    expect(r2.stoppedBy).toBeNull();
    expect(s2.verified).toBe(b1.records.length - 1);
    const b2 = s2.toBundle({ id: "test/replay-2", final: r2.final });
    expect(validateBundle(JSON.parse(JSON.stringify(b2))).ok).toBe(true);
    expect(b2.parent).toMatchObject({ bundleId: "test/replay-1", targetNodeId: target });
    expect(b2.records.slice(0, -1).map((r) => r.requestHash)).toEqual(b1.records.slice(0, -1).map((r) => r.requestHash));
  });

  test("streamed responses are stored as ordered raw events and replayed unchanged", () => {
    const { bundle } = record({ stream: true });
    const resp = bundle.records[0].response as { stream: boolean; events: { data: string }[] };
    expect(resp.stream).toBe(true);
    expect(resp.events.length).toBeGreaterThan(4);
    expect(resp.events.at(-1)).toEqual({ data: "[DONE]" });
    expect(bundle.graph.nodes.find((n) => n.id === "agent_action_0000")?.content).toMatchObject({ content: "I will search first.", tool_calls: [{ function: { name: "search" } }] });
    const session = new ReplaySession({ source: bundle, targetNodeId: "llm_call_0003" });
    const run = runMas(session, { task: TASK, model: () => ({ content: "ok" }), stream: true });
    expect(run.stoppedBy).toBeNull();
    expect(run.steps[0]).toMatchObject({ kind: "recorded", response: resp });
  });
});

describe("target mapping, normalization, diff", () => {
  const gold = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../shared/fixtures/bundles/gold-c2.bundle.json"), "utf8")) as ReplayBundle;

  test.each([
    ["llm_call_0002", "llm_call_0002", true],
    ["tool_result_0002", "llm_call_0003", false], // the next LLM call that consumes it
    ["agent_action_0001", "llm_call_0001", false], // the llm call that produced it (data edge)
    ["tool_call_0001", "llm_call_0002", false], // a tool_call: the first LLM call at or after it
    ["task_0000", "llm_call_0000", false],
    ["agent_action_0003", "llm_call_0003", false], // a trailing agent_action: its own call (no LLM call after it)
  ])("gold-c2: %s maps to %s", (target, boundary, exact) => {
    expect(resolveTarget(gold, target)).toMatchObject({ boundaryNodeId: boundary, exact });
  });

  test("an agent_action's rule text names its producing call; without a producing llm record (imported transcript) the first llm record at or after it", () => {
    expect(resolveTarget(gold, "agent_action_0001").rule).toBe('"agent_action_0001" is the output of the llm call seq 2 (llm_call_0001): guidance is applied to that call, which regenerates it');
    const imported = structuredClone(gold);
    imported.graph.edges = imported.graph.edges.filter((e) => !(e.kind === "data" && e.to.startsWith("agent_action_")));
    expect(resolveTarget(imported, "agent_action_0001")).toMatchObject({ boundaryNodeId: "llm_call_0002", seq: 4, exact: false, rule: expect.stringMatching(/no producing llm call; the first llm record at or after it/) });
    expect(() => resolveTarget(imported, "agent_action_0003")).toThrow(TargetError);
    // an agent_action carrying its own llm record (the paper's bundles, bundle-v1 rule 6) is its own boundary
    const paper = structuredClone(gold);
    paper.records = paper.records.map((r) => (r.nodeId === "llm_call_0002" ? { ...r, nodeId: "agent_action_0002" } : r));
    expect(resolveTarget(paper, "agent_action_0002")).toMatchObject({ boundaryNodeId: "agent_action_0002", seq: 4, exact: true });
    // resolveOutputTarget agrees on the boundary for an agent_action (only its rule text speaks of replacing)
    expect(resolveOutputTarget(gold, "agent_action_0001")).toMatchObject({ boundaryNodeId: "llm_call_0001", seq: 2, rule: expect.stringMatching(/its response is replaced/) });
    expect(resolveOutputTarget(imported, "agent_action_0001")).toEqual(resolveTarget(imported, "agent_action_0001"));
  });

  test("a target with no LLM boundary at or after it, or unknown, is refused", () => {
    expect(() => resolveTarget(gold, "final_result")).toThrow(TargetError);
    expect(() => resolveTarget(gold, "nope")).toThrow(/not a node/);
  });

  test("openai-chat-v1 drops per-run fields and keeps the rest; unknown normalization throws", () => {
    const req = { model: "m", messages: [{ role: "user", content: "x" }], temperature: 0, tools: [], user: "u1", stream_options: { include_usage: true }, metadata: { ts: 1 }, stream: true };
    expect(normalizeRequest("llm", req)).toEqual({ model: "m", messages: [{ role: "user", content: "x" }], temperature: 0, tools: [], stream: true });
    expect(normalizeRequest("tool", { tool: "t", arguments: { user: 1 } })).toEqual({ tool: "t", arguments: { user: 1 } });
    expect(() => normalizeRequest("llm", req, "bogus")).toThrow(/unknown request normalization/);
  });

  test("pointerDiff gives RFC 6901 pointers with expected and actual values", () => {
    const a = { messages: [{ role: "user", content: "a/b" }], t: 0 };
    const b = { messages: [{ role: "user", content: "a/c" }, { role: "user", content: "more" }], t: 1, x: true };
    expect(pointerDiff(a, b)).toEqual(
      expect.arrayContaining([
        { op: "replace", path: "/messages/0/content", expected: "a/b", actual: "a/c" },
        { op: "add", path: "/messages/1", actual: { role: "user", content: "more" } },
        { op: "replace", path: "/t", expected: 0, actual: 1 },
        { op: "add", path: "/x", actual: true },
      ]),
    );
    expect(pointerDiff(a, structuredClone(a))).toEqual([]);
    expect(() => appendGuidance({ prompt: "x" }, "g")).toThrow(/no messages array/);
  });

  test("nodeIds helper sanity", () => {
    expect(nodeIds(record().bundle)[0]).toBe("task_0000");
  });
});

describe("an agent_action target regenerates that action (recorded two-agent bundle: llm_call → agent_action data edge)", () => {
  // Worker: looks the price up, then reports it (wrong in the source); Reviewer: answers from the report.
  const WORKER = "You are the Worker. Report the unit price.";
  const REVIEWER = "You are the Reviewer. Give the final answer from the worker's report.";
  interface TwoAgentRun {
    steps: Step[];
    live: { messages: Msg[] }[];
    final: string | null;
  }
  function twoAgents(session: BoundarySession, model: (req: { messages: Msg[] }) => Turn): TwoAgentRun {
    const out: TwoAgentRun = { steps: [], live: [], final: null };
    const call = (messages: Msg[], n: number): Msg => {
      const step = session.begin({ boundary: "llm", request: { model: "m", messages: structuredClone(messages), temperature: 0 } });
      out.steps.push(step);
      let response: unknown;
      if (step.kind === "recorded") response = step.response;
      else if (step.kind === "live") {
        out.live.push(step.forward as { messages: Msg[] });
        response = completion(model(step.forward as { messages: Msg[] }), n);
        session.complete(step.ticket, { response, latencyMs: 1 });
      } else throw new Error(`unexpected step ${step.kind}`);
      const m = (response as ReturnType<typeof completion>).choices[0].message;
      return { role: "assistant", content: m.content ?? null, ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}) };
    };
    const worker: Msg[] = [
      { role: "system", content: WORKER },
      { role: "user", content: "Price of item K-1?" },
    ];
    const a0 = call(worker, 0);
    worker.push(a0);
    const tc = (a0.tool_calls as { id: string; function: { name: string; arguments: string } }[])[0];
    const ts = session.begin({ boundary: "tool", request: { tool: tc.function.name, arguments: JSON.parse(tc.function.arguments) } });
    out.steps.push(ts);
    let obs: unknown;
    if (ts.kind === "recorded") obs = ts.response;
    else if (ts.kind === "live") {
      obs = { status: "success", tiers: { "1-9": 7, "10+": 5 } };
      session.complete(ts.ticket, { response: obs });
    } else throw new Error(`unexpected step ${ts.kind}`);
    worker.push({ role: "tool", tool_call_id: tc.id, content: JSON.stringify(obs) });
    const report = call(worker, 1).content;
    out.final = call(
      [
        { role: "system", content: REVIEWER },
        { role: "user", content: `Worker's report: ${report}` },
      ],
      2,
    ).content;
    return out;
  }
  const GUIDANCE = "The order is for 12 units: use the 10+ tier.";
  const sourceTurns = (req: { messages: Msg[] }): Turn => {
    const sys = req.messages[0].content;
    if (sys === WORKER) return req.messages.some((m) => m.role === "tool") ? { content: "Unit price: 7 EUR." } : { calls: [{ name: "lookup", args: { sku: "K-1" } }] };
    return { content: `Final: ${/\d+/.exec(String(req.messages[1].content))?.[0]} EUR` };
  };

  function recordTwo(): ReplayBundle {
    const s = new RecordSession({ id: "test/two-agents", task: { prompt: "Price of item K-1?" }, config: { mas: "in-memory", model: "m" } });
    const r = twoAgents(s, sourceTurns);
    return s.toBundle({ final: r.final, runner: { command: ["node", "mas.js"] } });
  }

  test("the worker's agent_action maps to the worker's call that produced it, not to the reviewer's next call", () => {
    const b = recordTwo();
    expect(validateBundle(JSON.parse(JSON.stringify(b))).ok).toBe(true);
    expect(b.records.map((r) => `${r.seq}:${r.boundary}:${r.nodeId}`)).toEqual(["0:llm:llm_call_0000", "1:tool:tool_call_0000", "2:llm:llm_call_0001", "3:llm:llm_call_0002"]);
    expect(b.graph.edges).toContainEqual(expect.objectContaining({ from: "llm_call_0001", to: "agent_action_0001", kind: "data" }));
    expect(b.graph.nodes.find((n) => n.id === "agent_action_0001")?.content).toMatchObject({ content: "Unit price: 7 EUR." });
    expect(b.graph.nodes.find((n) => n.id === "llm_call_0001")?.agent).toBe("Worker");
    expect(b.graph.nodes.find((n) => n.id === "llm_call_0002")?.agent).toBe("Reviewer");
    expect(resolveTarget(b, "agent_action_0001")).toEqual({
      requestedNodeId: "agent_action_0001",
      boundaryNodeId: "llm_call_0001",
      seq: 2,
      exact: false,
      rule: '"agent_action_0001" is the output of the llm call seq 2 (llm_call_0001): guidance is applied to that call, which regenerates it',
    });
    expect(resolveOutputTarget(b, "agent_action_0001").boundaryNodeId).toBe("llm_call_0001");
    // other node types keep "the first llm record at or after it"
    expect(resolveTarget(b, "tool_result_0000").boundaryNodeId).toBe("llm_call_0001");
    expect(resolveTarget(b, "agent_action_0002").boundaryNodeId).toBe("llm_call_0002");
  });

  test("a selective replay from the agent_action regenerates it with the guidance appended to the producing call's request", () => {
    const b = recordTwo();
    const session = new ReplaySession({ source: b, targetNodeId: "agent_action_0001", guidance: GUIDANCE });
    expect(session.target).toMatchObject({ boundaryNodeId: "llm_call_0001", seq: 2 });
    const liveModel = (req: { messages: Msg[] }): Turn => {
      if (req.messages[0].content === WORKER) return { content: req.messages.at(-1)?.content === GUIDANCE ? "Unit price: 5 EUR." : "Unit price: 7 EUR." };
      return sourceTurns(req);
    };
    const run = twoAgents(session, liveModel);
    expect(run.steps.map((x) => x.kind)).toEqual(["recorded", "recorded", "live", "live"]);
    expect(run.steps[2]).toMatchObject({ kind: "live", isTarget: true });
    // the guidance goes into the WORKER's regenerated call, appended as the last message; the reviewer sees the new report, without it
    expect(run.live[0].messages[0].content).toBe(WORKER);
    expect(run.live[0].messages.at(-1)).toEqual({ role: "user", content: GUIDANCE });
    expect(run.live[0].messages.slice(0, -1)).toEqual((b.records[2].request as { messages: Msg[] }).messages);
    expect(run.live[1].messages).toEqual([
      { role: "system", content: REVIEWER },
      { role: "user", content: "Worker's report: Unit price: 5 EUR." },
    ]);
    expect(run.final).toBe("Final: 5 EUR");
    const out = session.toBundle({ id: "test/two-agents-replay", final: run.final });
    expect(validateBundle(JSON.parse(JSON.stringify(out))).ok).toBe(true);
    expect(out.parent).toMatchObject({ bundleId: b.id, targetNodeId: "agent_action_0001", guidance: GUIDANCE, mode: "selective", boundaryNodeId: "llm_call_0001", boundarySeq: 2 });
    expect(out.records.slice(0, 2)).toEqual(b.records.slice(0, 2));
    expect(out.records[2].meta?.guidance).toBe(GUIDANCE);
    // the regenerated action: the agent_action the live worker call produced (new node ids for live records)
    const regenerated = out.graph.edges.find((e) => e.from === out.records[2].nodeId && e.kind === "data" && e.to.startsWith("agent_action_"))!.to;
    expect(out.graph.nodes.find((n) => n.id === regenerated)?.content).toMatchObject({ content: "Unit price: 5 EUR." });
    expect(resolveTarget(out, regenerated)).toMatchObject({ boundaryNodeId: out.records[2].nodeId, seq: 2 });
  });
});

describe("canonicalJsonOfParsed (replay hot path: hashJson)", () => {
  test.each([
    ["gold bundle", JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../shared/fixtures/bundles/gold-c2.bundle.json"), "utf8"))],
    ["numbers", { a: [1e21, 1e-7, -0, 0.1 + 0.2, 123456789012345680000, 5e-324], z: null, b: true }],
    ["unicode keys and escapes", { "é": "\u0000\t\"\\/", "\u20ac": "😀", a: { c: [], b: {} }, "10": 1, "2": 2 }],
  ])("matches lib/bundle canonicalJson byte for byte: %s", async (_n, v) => {
    const { canonicalJson } = await import("../bundle");
    const { canonicalJsonOfParsed: fastCanonicalJson } = await import("../bundle");
    expect(fastCanonicalJson(v)).toBe(canonicalJson(v));
  });

  test("throws exactly when canonicalJson throws (lone surrogate, NaN, undefined)", async () => {
    const { canonicalJsonOfParsed: fastCanonicalJson } = await import("../bundle");
    expect(() => fastCanonicalJson({ a: "\ud800" })).toThrow(/surrogate/i);
    expect(() => fastCanonicalJson({ a: NaN })).toThrow();
    expect(() => fastCanonicalJson(undefined)).toThrow();
  });
});

describe("agentOfRequest (agent names of recorded nodes)", () => {
  test.each([
    [{ messages: [{ role: "system", content: "You are the Orchestrator of a team." }] }, "Orchestrator"],
    [{ messages: [{ role: "system", content: "You are a Researcher." }] }, "Researcher"],
    [{ messages: [{ role: "system", name: "WebSurfer", content: "Browse." }] }, "WebSurfer"],
    [{ messages: [{ role: "user", content: "You are the Judge" }] }, null],
    [{ messages: [{ role: "system", content: "be concise" }] }, null],
    [null, null],
  ])("%j -> %s", async (req, expected) => {
    const { agentOfRequest } = await import("./index");
    expect(agentOfRequest(req)).toBe(expected);
  });
});

describe("substitution: the proposed correction replaces a call's response (issue 14 item 4)", () => {
  const noModel = () => {
    throw new Error("the model must not be called for a substituted boundary");
  };

  test("text correction at an agent_action: the prefix up to its producing call is served, the call is NOT made, the correction is recorded and marked", () => {
    const { bundle } = record();
    const t = resolveOutputTarget(bundle, "agent_action_0002");
    expect([t.boundaryNodeId, t.seq]).toEqual(["llm_call_0002", 5]);
    expect(resolveTarget(bundle, "agent_action_0002")).toMatchObject({ boundaryNodeId: "llm_call_0002", seq: 5 }); // guidance regenerates the same call
    const session = new ReplaySession({ source: bundle, targetNodeId: "agent_action_0002", substitution: "The answer is 4." });
    const run = runMas(session, { task: TASK, model: noModel });
    expect(run.steps.map((x) => x.kind)).toEqual(["recorded", "recorded", "recorded", "recorded", "recorded", "substituted"]);
    expect(run.liveRequests).toEqual([]);
    expect(run.final).toBe("The answer is 4.");
    expect(session.verified).toBe(5);
    const out = session.toBundle({ id: "test/subst-1", final: run.final });
    expect(validateBundle(JSON.parse(JSON.stringify(out))).ok).toBe(true);
    expect(out.records.slice(0, 5)).toEqual(bundle.records.slice(0, 5));
    const sub = out.records[5];
    expect(sub.meta).toMatchObject({ substituted: true, latencyMs: 0 });
    expect(sub.response).toMatchObject({ id: "symtrace-substituted", model: "m", choices: [{ message: { role: "assistant", content: "The answer is 4." }, finish_reason: "stop" }], usage: { total_tokens: 0 } });
    expect(out.graph.nodes.find((n) => n.id === sub.nodeId)?.label).toMatch(/substituted/);
    expect(out.parent).toMatchObject({ bundleId: bundle.id, targetNodeId: "agent_action_0002", guidance: "", mode: "selective", boundaryNodeId: "llm_call_0002", boundarySeq: 5, substitution: { correction: "The answer is 4.", boundaryNodeId: "llm_call_0002", boundarySeq: 5 } });
    expect(out.graph.nodes.find((n) => n.type === "final_result")?.content).toEqual({ final: "The answer is 4." });
  });

  test("a JSON tool-call correction: the MAS acts on it and the rest of the run is live; a replay of that bundle serves the substituted record as recorded", () => {
    const { bundle } = record();
    const toolLive: string[] = [];
    const correction = JSON.stringify({ role: "assistant", content: null, tool_calls: [{ function: { name: "calc", arguments: { expr: "2+2" } } }] });
    const session = new ReplaySession({ source: bundle, targetNodeId: "tool_call_0003", substitution: correction });
    expect(session.target?.boundaryNodeId).toBe("llm_call_0002"); // the call that issued the tool call
    const run = runMas(session, {
      task: TASK,
      model: () => ({ content: "Four." }),
      tool: (n, a) => {
        toolLive.push(`${n}:${JSON.stringify(a)}`);
        return { status: "success", result: 4 };
      },
    });
    expect(run.steps.slice(5).map((x) => x.kind)).toEqual(["substituted", "live", "live"]);
    expect(toolLive).toEqual(['calc:{"expr":"2+2"}']);
    expect(run.final).toBe("Four.");
    const out = session.toBundle({ id: "test/subst-2", final: run.final });
    expect(out.records.map((r) => [r.boundary, r.meta?.substituted === true])).toEqual([...bundle.records.slice(0, 5).map((r) => [r.boundary, false]), ["llm", true], ["tool", false], ["llm", false]]);
    expect((out.records[5].response as { choices: { finish_reason: string }[] }).choices[0].finish_reason).toBe("tool_calls");
    // Replay of the replay at its last call: the substituted record is part of the verified prefix.
    const again = new ReplaySession({ source: out, targetNodeId: out.records[7].nodeId, guidance: "" });
    const run2 = runMas(again, { task: TASK, model: () => ({ content: "Four again." }), tool: () => ({ status: "success", result: 4 }) });
    expect(again.verified).toBe(7);
    expect(run2.final).toBe("Four again.");
  });

  test("a streamed request gets the correction as server-sent events (usage chunk only when asked)", () => {
    const { bundle } = record({ stream: true });
    const session = new ReplaySession({ source: bundle, targetNodeId: "agent_action_0002", substitution: "Streamed fix." });
    const run = runMas(session, { task: TASK, model: noModel, stream: true });
    expect(run.final).toBe("Streamed fix.");
    const resp = session.toBundle({ id: "test/subst-3", final: run.final }).records[5].response as { stream: true; events: { data: string }[] };
    expect(resp.stream).toBe(true);
    expect(assembleStream(resp.events).message.content).toBe("Streamed fix.");
    expect(resp.events.at(-1)?.data).toBe("[DONE]");
    expect(resp.events.some((e) => e.data.includes('"usage"'))).toBe(true); // the MAS sent include_usage
    const plain = substitutedResponse({ model: "m", stream: true, messages: [] }, "x") as { events: { data: string }[] };
    expect(plain.events.some((e) => e.data.includes('"usage"'))).toBe(false);
  });

  test("the matched control: same boundary (targetRule output), no guidance, the original request goes live", () => {
    const { bundle } = record();
    const session = new ReplaySession({ source: bundle, targetNodeId: "agent_action_0002", guidance: "", targetRule: "output" });
    const run = runMas(session, { task: TASK, model: () => ({ content: "Live again: 3." }) });
    expect(run.steps[5]).toMatchObject({ kind: "live", isTarget: true });
    expect(lastMsg(run.liveRequests[0])).toEqual(lastMsg(bundle.records[5].request)); // the original request, unchanged
    const out = session.toBundle({ id: "test/control", final: run.final });
    expect(out.parent).toMatchObject({ boundaryNodeId: "llm_call_0002", boundarySeq: 5, targetRule: "output", guidance: "" });
    expect(out.parent).not.toHaveProperty("substitution");
    expect(out.records[5].meta?.substituted).toBeUndefined();
  });

  test("bad input: substitution with guidance, a tool call without a name", () => {
    const { bundle } = record();
    expect(() => new ReplaySession({ source: bundle, targetNodeId: "agent_action_0002", substitution: "x", guidance: "y" })).toThrow(/no guidance/);
    expect(() => new ReplaySession({ source: bundle, targetNodeId: "agent_action_0002", substitution: '{"tool_calls":[{"function":{}}]}' })).toThrow(/tool_calls\[0\] has no function.name/);
  });
});
