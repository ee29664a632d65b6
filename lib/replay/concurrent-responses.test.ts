/**
 * Issue 21 item 4 over the OpenAI Responses API (the Vercel AI SDK's default), in the pure core:
 * an orchestrator whose two sub-agents (weather, guide) run in parallel through tools, the guide's
 * tool embedding through /v1/embeddings — recorded in the interleaving the AI SDK example produced
 * (examples/ai-sdk, seed 101 of its jitter test):
 *
 *   seq 0 O1 [0-1]  1 W1 [2-5]  2 G1 [3-4]  3 E1 [6-7]  4 W2 [8-10]  5 E2 [9-11]  6 G2 [12-13]  7 O2 [14-15]
 *
 * Before the fix, a Responses request matching no ready record was taken for the target whenever
 * the target was the only ready LLM record (the request's agent was read from chat messages only):
 * replaying from W2, the guide's second request (waiting for W2, its recorded predecessor) got the
 * weather target's guidance. Data edges read chat messages only, so nothing joined at O2.
 */
import { describe, expect, test } from "vitest";
import type { ReplayBundle } from "../bundle";
import { RecordSession, ReplaySession, type BoundaryCall, type Step } from "./session";

const TASK = "Plan a day in Lisbon for tomorrow.";
const sys = (text: string) => ({ role: "system", content: text });
const user = (text: string) => ({ role: "user", content: [{ type: "input_text", text }] });
const fcall = (callId: string, name: string, args: unknown) => ({ type: "function_call", call_id: callId, name, arguments: JSON.stringify(args) });
const fout = (callId: string, output: string) => ({ type: "function_call_output", call_id: callId, output });
const resp = (id: string, output: unknown[]) => ({ id, object: "response", status: "completed", output });
const msg = (id: string, text: string) => ({ type: "message", id, status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
const outCall = (callId: string, name: string, args: unknown) => ({ ...fcall(callId, name, args), id: `fc_${callId}`, status: "completed" });

const O = "You plan trips. Delegate research to your subagents (call them in parallel), then write a short plan from their findings.";
const W = "You are a weather researcher. Use the forecast tool and report the forecast in one sentence.";
const G = "You are a travel guide researcher. Search the guides and summarise the best tips in one sentence.";
const FORECAST = JSON.stringify({ city: "Lisbon", forecast: "sunny", highCelsius: 24 });
const TIPS = JSON.stringify(["Lisbon: ride tram 28 through Alfama.", "Lisbon: the Gulbenkian museum and its gardens."]);
const W_ANSWER = "Tomorrow Lisbon is sunny with a high of 24 degrees.";
const G_ANSWER = "Ride tram 28 through Alfama, then visit the Gulbenkian gardens.";

const llm = (input: unknown[]) => ({ boundary: "llm" as const, protocol: "openai-responses" as const, request: { model: "gpt-4o", input, tool_choice: "auto" } });
const embed = (input: string[]) => ({ boundary: "llm" as const, protocol: "openai-embeddings" as const, request: { model: "text-embedding-3-small", input, encoding_format: "float" } });
const vectors = (n: number) => ({ object: "list", data: Array.from({ length: n }, (_, i) => ({ object: "embedding", index: i, embedding: [i, 1] })) });

/** The MAS's requests, by recorded seq. */
const CALLS: BoundaryCall[] = [
  llm([sys(O), user(TASK)]),
  llm([sys(W), user(TASK)]),
  llm([sys(G), user(TASK)]),
  embed(["Lisbon: ride tram 28 through Alfama.", "Lisbon: the Gulbenkian museum and its gardens."]),
  llm([sys(W), user(TASK), fcall("call_f", "forecast", { city: "Lisbon" }), fout("call_f", FORECAST)]),
  embed([TASK]),
  llm([sys(G), user(TASK), fcall("call_s", "searchGuides", { query: TASK }), fout("call_s", TIPS)]),
  llm([sys(O), user(TASK), fcall("call_w", "researchWeather", { task: TASK }), fcall("call_g", "researchSights", { task: TASK }), fout("call_w", W_ANSWER), fout("call_g", G_ANSWER)]),
];
const RESPONSES: unknown[] = [
  resp("resp_o1", [outCall("call_w", "researchWeather", { task: TASK }), outCall("call_g", "researchSights", { task: TASK })]),
  resp("resp_w1", [outCall("call_f", "forecast", { city: "Lisbon" })]),
  resp("resp_g1", [outCall("call_s", "searchGuides", { query: TASK })]),
  vectors(2),
  resp("resp_w2", [msg("msg_w2", W_ANSWER)]),
  vectors(1),
  resp("resp_g2", [msg("msg_g2", G_ANSWER)]),
  resp("resp_o2", [msg("msg_o2", "Plan: a sunny day on tram 28 and in the Gulbenkian gardens.")]),
];

function record(): ReplayBundle {
  const s = new RecordSession({ id: "test/responses-parallel", task: { prompt: TASK } });
  const tickets: number[] = [];
  const begin = (i: number) => {
    const step = s.begin(CALLS[i]);
    if (step.kind !== "live") throw new Error("record: not live");
    tickets[i] = step.ticket;
  };
  const end = (i: number) => s.complete(tickets[i], { response: RESPONSES[i], httpStatus: 200 });
  // O1 [0-1] W1 [2-5] G1 [3-4] E1 [6-7] W2 [8-10] E2 [9-11] G2 [12-13] O2 [14-15]
  const script: [(i: number) => void, number][] = [[begin, 0], [end, 0], [begin, 1], [begin, 2], [end, 2], [end, 1], [begin, 3], [end, 3], [begin, 4], [begin, 5], [end, 4], [end, 5], [begin, 6], [end, 6], [begin, 7], [end, 7]];
  for (const [f, i] of script) f(i);
  return s.toBundle({ final: "Plan" });
}

const bundle = record();
const nodeOf = (seq: number) => bundle.records[seq].nodeId;
const agentOf = (seq: number) => bundle.graph.nodes.find((n) => n.id === nodeOf(seq))!.agent;
const actionOf = (b: ReplayBundle, nodeId: string) => b.graph.edges.find((e) => e.from === nodeId && e.kind === "data" && e.to.startsWith("agent_action"))!.to;
const dataInto = (b: ReplayBundle, nodeId: string) => b.graph.edges.filter((e) => e.to === nodeId && e.kind === "data").map((e) => e.from).sort();
function reaches(b: ReplayBundle, from: string, to: string): boolean {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === to) return true;
    for (const e of b.graph.edges) {
      if (e.kind !== "data" || e.from !== n || seen.has(e.to)) continue;
      seen.add(e.to);
      stack.push(e.to);
    }
  }
  return false;
}
const GUIDANCE = "Prefer indoor options.";
const carries = (step: Step) => step.kind === "live" && JSON.stringify(step.forward).includes(GUIDANCE);
const serve = (s: ReplaySession, seqs: number[]) => {
  for (const i of seqs) expect(s.begin(CALLS[i]), `seq ${i}`).toMatchObject({ kind: "recorded", seq: i });
};

describe("parallel sub-agents over the Responses API (issue 21 item 4)", () => {
  test("the recording: agents by instructions, observed spans as interleaved", () => {
    expect(bundle.records.map((r, i) => agentOf(i))).toEqual(["You plan trips. Delegate", "Weather Researcher", "Travel Guide Researcher", "embeddings", "Weather Researcher", "embeddings", "Travel Guide Researcher", "You plan trips. Delegate"]);
    expect(bundle.records.map((r) => r.meta?.observed)).toEqual([
      { start: 0, end: 1 },
      { start: 2, end: 5 },
      { start: 3, end: 4 },
      { start: 6, end: 7 },
      { start: 8, end: 10 },
      { start: 9, end: 11 },
      { start: 12, end: 13 },
      { start: 14, end: 15 },
    ]);
  });

  test("data edges from Responses content: each sub-agent's task comes from the orchestrator's call, the branches stay apart and join at the orchestrator's last call", () => {
    const o1 = actionOf(bundle, nodeOf(0));
    expect(dataInto(bundle, nodeOf(1))).toEqual([o1]); // the weather task is the argument of researchWeather
    expect(dataInto(bundle, nodeOf(2))).toEqual([o1]);
    const w1 = actionOf(bundle, nodeOf(1));
    const g1 = actionOf(bundle, nodeOf(2));
    // the second calls: their own history (the function call their first answer named) and the in-process tool result
    expect(dataInto(bundle, nodeOf(4)).filter((x) => x.startsWith("agent_action"))).toEqual([w1]);
    expect(dataInto(bundle, nodeOf(6)).filter((x) => x.startsWith("agent_action"))).toEqual([g1]);
    const w2 = actionOf(bundle, nodeOf(4));
    const g2 = actionOf(bundle, nodeOf(6));
    // the join: both answers come back as the orchestrator's function-call outputs
    expect(dataInto(bundle, nodeOf(7)).filter((x) => x.startsWith("agent_action"))).toEqual([w2, g2].sort());
    for (const w of [1, 4]) for (const g of [2, 6]) {
      expect(reaches(bundle, nodeOf(w), nodeOf(g)), `${w} -> ${g}`).toBe(false);
      expect(reaches(bundle, nodeOf(g), nodeOf(w)), `${g} -> ${w}`).toBe(false);
    }
  });

  test("an embeddings call whose input no earlier output holds hangs from the task, not from whichever agent acted last", () => {
    // E1 (seq 3) embeds the guide's tips; W1 (seq 1) was the last action to complete before it.
    const task = bundle.graph.nodes.find((n) => n.type === "message" && n.label === "task")!.id;
    expect(agentOf(3)).toBe("embeddings");
    expect(dataInto(bundle, nodeOf(3))).toEqual([task]);
    expect(reaches(bundle, nodeOf(1), nodeOf(3))).toBe(false);
    expect(reaches(bundle, nodeOf(2), nodeOf(3))).toBe(false);
  });

  test("replay from the weather sub-agent's second call: the guide's second request, waiting for it, is not taken for the target", () => {
    const s = new ReplaySession({ source: bundle, targetNodeId: nodeOf(4), guidance: GUIDANCE });
    serve(s, [0, 1, 2, 3]);
    // E2 began after the target in the recording: it waits for the target to go live.
    expect(s.begin(CALLS[5])).toEqual({ kind: "blocked", seq: 5, waitingFor: [4] });
    // G2 matches its own record, whose recorded predecessors W2 (the target) and E2 are not served yet: it waits.
    expect(s.begin(CALLS[6])).toEqual({ kind: "blocked", seq: 6, waitingFor: [4, 5] });
    const target = s.begin(CALLS[4]);
    expect(target).toMatchObject({ kind: "live", isTarget: true });
    expect(carries(target)).toBe(true);
    // After the target everything is live, without the guidance.
    const g2 = s.begin(CALLS[6]);
    expect(g2).toMatchObject({ kind: "live", isTarget: false });
    expect(g2.kind === "live" && g2.forward).toEqual(CALLS[6].request);
    expect(s.begin(CALLS[5])).toMatchObject({ kind: "live", isTarget: false });
    expect(s.verified).toBe(4);
    const out = s.toBundle({ id: "test/responses-parallel/replay-w2" });
    expect(out.records.slice(0, 4)).toEqual(bundle.records.slice(0, 4));
    expect(out.records.map((r) => r.meta?.guidance ?? null)).toEqual([null, null, null, null, GUIDANCE, null, null]);
  });

  test("a request matching no record is the target only when it is the target's agent", () => {
    const s = new ReplaySession({ source: bundle, targetNodeId: nodeOf(6), guidance: GUIDANCE });
    serve(s, [0, 1, 2, 3, 4, 5]);
    // The target (G2) is the only ready LLM record; an orchestrator request that matches nothing is not it.
    const other = s.begin(llm([sys(O), user("Something else")]));
    expect(other).toMatchObject({ kind: "diverged", report: { reason: "content", seq: 6 } });
    // The guide's own second request, even changed (a different tool result), is the target: it goes live with the guidance.
    const s2 = new ReplaySession({ source: bundle, targetNodeId: nodeOf(6), guidance: GUIDANCE });
    serve(s2, [0, 1, 2, 3, 4, 5]);
    const changed = llm([sys(G), user(TASK), fcall("call_s", "searchGuides", { query: TASK }), fout("call_s", "[]")]);
    const step = s2.begin(changed);
    expect(step).toMatchObject({ kind: "live", isTarget: true });
    expect(carries(step)).toBe(true);
  });

  test("the prefix is what the recording had before the target, whatever the arrival order of the sub-agents' first calls", () => {
    // Target G1 (seq 2); G1 arrives before W1 (seq 1, which began before it): the target waits for W1.
    const a = new ReplaySession({ source: bundle, targetNodeId: nodeOf(2), guidance: GUIDANCE });
    serve(a, [0]);
    expect(a.begin(CALLS[2])).toEqual({ kind: "blocked", seq: 2, waitingFor: [1] });
    serve(a, [1]);
    expect(carries(a.begin(CALLS[2]))).toBe(true);
    expect(a.verified).toBe(2);
    // Target W1 (seq 1); G1 (seq 2, began after it) arrives first: it waits for the target, then is live.
    const b = new ReplaySession({ source: bundle, targetNodeId: nodeOf(1), guidance: GUIDANCE });
    serve(b, [0]);
    expect(b.begin(CALLS[2])).toEqual({ kind: "blocked", seq: 2, waitingFor: [1] });
    expect(carries(b.begin(CALLS[1]))).toBe(true);
    const g1 = b.begin(CALLS[2]);
    expect(g1).toMatchObject({ kind: "live", isTarget: false });
    expect(carries(g1)).toBe(false);
    expect(b.verified).toBe(1);
    const out = b.toBundle({ id: "test/responses-parallel/replay-w1" });
    expect(out.records.slice(0, 1)).toEqual(bundle.records.slice(0, 1));
    expect(out.records.map((r) => r.meta?.guidance ?? null)).toEqual([null, GUIDANCE, null]);
    // When the caller's wait is over, the held calls proceed: the target goes live with W1 unserved,
    // and a later call is served from the recording (a valid reordering).
    const c = new ReplaySession({ source: bundle, targetNodeId: nodeOf(2), guidance: GUIDANCE });
    serve(c, [0]);
    expect(carries(c.begin({ ...CALLS[2], final: true }))).toBe(true);
    expect(c.verified).toBe(1);
    const d = new ReplaySession({ source: bundle, targetNodeId: nodeOf(1), guidance: GUIDANCE });
    serve(d, [0]);
    expect(d.begin({ ...CALLS[2], final: true })).toMatchObject({ kind: "recorded", seq: 2 });
  });

  test("a valid reordering of the concurrent agents verifies the whole recording", () => {
    const s = new ReplaySession({ source: bundle });
    serve(s, [0, 2, 1, 3, 5, 4, 6, 7]);
    expect(s.end()).toBeNull();
    expect(s.verified).toBe(8);
  });

  test("a content change still fails closed, against the same agent's record: tool result differs", () => {
    const s = new ReplaySession({ source: bundle });
    serve(s, [0]);
    // The guide's first request changed while both first calls are ready: the report names the guide's record, not the weather's.
    const g = s.begin(llm([sys(G), user("Plan a day in Porto.")]));
    expect(g).toMatchObject({ kind: "diverged", report: { reason: "content", seq: 2 } });
    const t = new ReplaySession({ source: bundle });
    serve(t, [0, 1, 2, 3, 4, 5, 6]);
    const o2 = t.begin(llm([sys(O), user(TASK), fcall("call_w", "researchWeather", { task: TASK }), fcall("call_g", "researchSights", { task: TASK }), fout("call_w", "Rain all day."), fout("call_g", G_ANSWER)]));
    expect(o2).toMatchObject({ kind: "diverged", report: { reason: "content", seq: 7, toolResult: { callId: "call_w", pointer: "/input/4/output" } } });
    if (o2.kind === "diverged") expect(o2.report.message).toMatch(/tool result differs \(call call_w\)/);
  });

  test("reordered vs skipped: another agent's predecessor is waited for, then reordered; the agent's own is a skip", () => {
    // G2 before W2 (W2 completed before G2 began in the recording): held, then reordered at W2.
    const s = new ReplaySession({ source: bundle });
    serve(s, [0, 1, 2, 3, 5]);
    expect(s.begin(CALLS[6])).toEqual({ kind: "blocked", seq: 6, waitingFor: [4] });
    const r = s.begin({ ...CALLS[6], final: true });
    expect(r).toMatchObject({ kind: "diverged", report: { reason: "reordered", seq: 4 } });
    if (r.kind === "diverged") expect(r.report.message).toMatch(/reordered: the llm request equals seq 6 .*Travel Guide Researcher.*began after seq 4 of agent Weather Researcher had completed/);
    // W2 while W1 (the weather agent's own earlier call) was never made: a skip, at once.
    const k = new ReplaySession({ source: bundle });
    serve(k, [0, 2]);
    const skip = k.begin(CALLS[4]);
    expect(skip).toMatchObject({ kind: "diverged", report: { reason: "missing-call", seq: 1 } });
    if (skip.kind === "diverged") expect(skip.report.message).toMatch(/skipped the recorded llm request of agent Weather Researcher; its request equals seq 4/);
    // An embeddings call names no agent: passing one is waited for (it may be another agent's), not called a skip.
    const e = new ReplaySession({ source: bundle });
    serve(e, [0, 1, 2]);
    expect(e.begin(CALLS[4])).toEqual({ kind: "blocked", seq: 4, waitingFor: [3] });
    expect(e.begin({ ...CALLS[4], final: true })).toMatchObject({ kind: "diverged", report: { reason: "reordered", seq: 3 } });
  });
  test("replay from the guide's first call: the weather agent's in-process tool, named by its served first response and answered in its live second request, is in the replay's graph", () => {
    const s = new ReplaySession({ source: bundle, targetNodeId: nodeOf(2), guidance: GUIDANCE });
    serve(s, [0, 1]);
    const live = (i: number) => {
      const step = s.begin(CALLS[i]);
      if (step.kind !== "live") throw new Error(`seq ${i}: ${step.kind}`);
      return step.ticket;
    };
    // after the target every call is live, answered as recorded (the same interleaving)
    const g1 = live(2);
    s.complete(g1, { response: RESPONSES[2], httpStatus: 200 });
    for (const i of [3, 4, 5, 6, 7]) s.complete(live(i), { response: RESPONSES[i], httpStatus: 200 });
    const out = s.toBundle({ id: "test/responses-parallel/replay-g1" });
    const tools = (b: ReplayBundle) => b.graph.nodes.filter((n) => n.type === "tool_call").map((n) => (n.content as { tool: string }).tool).sort();
    // the recording's in-process tools: forecast (weather), searchGuides (guide), researchWeather and researchSights (orchestrator)
    expect(tools(out)).toEqual(tools(bundle));
    expect(tools(out)).toEqual(["forecast", "researchSights", "researchWeather", "searchGuides"]);
    const forecast = out.graph.nodes.find((n) => n.type === "tool_call" && (n.content as { tool: string }).tool === "forecast")!;
    // named by the served W1 (a prefix node of the source), its result carried by the live W2
    expect(out.graph.edges.filter((e) => e.to === forecast.id).map((e) => [e.from, e.kind]).sort()).toEqual([
      [actionOf(bundle, nodeOf(1)), "control"],
      [nodeOf(1), "data"],
    ]);
    const result = out.graph.edges.find((e) => e.from === forecast.id && e.kind === "data")!.to;
    const w2 = out.records[4].nodeId;
    expect(out.graph.edges.some((e) => e.from === result && e.to === w2 && e.kind === "data")).toBe(true);
    expect(out.graph.nodes.find((n) => n.id === result)).toMatchObject({ type: "tool_result", agent: "Weather Researcher", content: FORECAST });
  });
});

describe("two agents started together from the task (chat): no edge between them in arrival order", () => {
  const chat = (system: string, userText: string) => ({ boundary: "llm" as const, request: { model: "gpt-4o", messages: [{ role: "system", content: system }, { role: "user", content: userText }] } });
  const answer = (text: string) => ({ choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] });
  const A = "You are Alpha, you check the stock.";
  const B = "You are Beta, you check the prices.";
  /** A's first call completes before B's first call begins (B listed its tools first, say). */
  function run(bUser: string): ReplayBundle {
    const s = new RecordSession({ id: "test/task-siblings", task: { prompt: TASK } });
    const a = s.begin(chat(A, TASK));
    if (a.kind !== "live") throw new Error("not live");
    s.complete(a.ticket, { response: answer("Alpha: 12 bikes in stock."), httpStatus: 200 });
    const b = s.begin(chat(B, bUser));
    if (b.kind !== "live") throw new Error("not live");
    s.complete(b.ticket, { response: answer("Beta: 300 EUR each."), httpStatus: 200 });
    return s.toBundle({ final: "done" });
  }

  test("the second agent's first request carries the task and nothing of the first: it hangs from the task", () => {
    const b = run(TASK);
    const task = b.graph.nodes.find((n) => n.type === "message" && n.label === "task")!.id;
    expect(dataInto(b, b.records[0].nodeId)).toEqual([task]);
    expect(dataInto(b, b.records[1].nodeId)).toEqual([task]);
    expect(reaches(b, b.records[0].nodeId, b.records[1].nodeId)).toBe(false);
  });

  test("replay from the joining agent's first call: its live second call, carrying the conversation, depends on its latest turn only (not on the prefix answers the target already carried)", () => {
    const J = "You are Gamma, you combine the findings.";
    const joined = "Alpha: 12 bikes in stock. Beta: 300 EUR each.";
    const j1 = chat(J, joined);
    const j2 = { boundary: "llm" as const, request: { model: "gpt-4o", messages: [{ role: "system", content: J }, { role: "user", content: joined }, { role: "assistant", content: "12 bikes at 300 EUR." }, { role: "user", content: "Shorter, please." }] } };
    const s = new RecordSession({ id: "test/join", task: { prompt: TASK } });
    const live = (sess: RecordSession | ReplaySession, c: BoundaryCall, text: string) => {
      const st = sess.begin(c);
      if (st.kind !== "live") throw new Error(`not live: ${st.kind}`);
      sess.complete(st.ticket, { response: answer(text), httpStatus: 200 });
    };
    live(s, chat(A, TASK), "Alpha: 12 bikes in stock.");
    live(s, chat(B, TASK), "Beta: 300 EUR each.");
    live(s, j1, "12 bikes at 300 EUR.");
    live(s, j2, "12 x 300 EUR.");
    const src = s.toBundle({ final: "done" });
    const [a1, b1] = [0, 1].map((i) => actionOf(src, src.records[i].nodeId));
    expect(dataInto(src, src.records[2].nodeId)).toEqual([a1, b1].sort());
    expect(dataInto(src, src.records[3].nodeId)).toEqual([actionOf(src, src.records[2].nodeId)]);
    const r = new ReplaySession({ source: src, targetNodeId: src.records[2].nodeId, guidance: GUIDANCE });
    for (const c of [chat(A, TASK), chat(B, TASK)]) expect(r.begin(c)).toMatchObject({ kind: "recorded" });
    live(r, j1, "12 bikes at 300 EUR.");
    live(r, j2, "12 x 300 EUR.");
    const out = r.toBundle({ id: "test/join/replay" });
    expect(dataInto(out, out.records[2].nodeId)).toEqual([a1, b1].sort());
    expect(dataInto(out, out.records[3].nodeId)).toEqual([actionOf(out, out.records[2].nodeId)]);
  });

  test("an MCP tool listing made while another agent acted hangs from the task and is used by the first request offering its tools, whose agent it gets", () => {
    const s = new RecordSession({ id: "test/mcp-list", task: { prompt: TASK } });
    const live = (c: BoundaryCall, response: unknown) => {
      const st = s.begin(c);
      if (st.kind !== "live") throw new Error(`not live: ${st.kind}`);
      s.complete(st.ticket, { response, httpStatus: 200 });
    };
    live(chat(A, TASK), answer("Alpha: 12 bikes in stock."));
    live({ boundary: "tool", request: { mcp: "tools/list" } }, { result: { tools: [{ name: "check_price", inputSchema: { type: "object" } }] } });
    const withTools = { boundary: "llm" as const, request: { ...chat(B, TASK).request, tools: [{ type: "function", function: { name: "check_price", parameters: { type: "object" } } }] } };
    live(withTools, answer("Beta: 300 EUR each."));
    const b = s.toBundle({ final: "done" });
    const task = b.graph.nodes.find((n) => n.type === "message" && n.label === "task")!.id;
    const list = b.records[1].nodeId;
    const result = b.graph.edges.find((e) => e.from === list && e.kind === "data")!.to;
    expect(b.graph.edges.filter((e) => e.to === list).map((e) => [e.from, e.kind])).toEqual([[task, "control"]]);
    expect(dataInto(b, b.records[2].nodeId)).toEqual([result, task].sort());
    expect([list, result].map((id) => b.graph.nodes.find((n) => n.id === id)!.agent)).toEqual(["Beta", "Beta"]);
    const final = b.graph.nodes.find((n) => n.type === "final_result")!.id;
    expect(dataInto(b, final)).not.toContain(result);
  });

  test("without the task's text (started by whoever acted last, e.g. a hand-off with a new instruction) it still hangs from the last action", () => {
    const b = run("Now price what Alpha found.");
    expect(dataInto(b, b.records[1].nodeId)).toEqual([actionOf(b, b.records[0].nodeId)]);
  });
});

