import { describe, expect, test } from "vitest";
import { buildBundle, type ReplayBundle } from "../bundle";
import { alignSuffix, finalAnswer, finalAnswerText, interventionNodeId, resolveOutcomes, summarizeContent } from "./compare";

type N = { id: string; type: "llm_call" | "agent_action" | "tool_call" | "tool_result" | "message" | "final_result"; agent?: string; content: unknown };
const n = (id: string, type: N["type"], agent: string, content: unknown): N => ({ id, type, agent, content });

// Source: prefix (llm 0, action 0), boundary llm_call_0001, then a suffix of 5 nodes.
const sourceNodes: N[] = [
  n("llm_call_0000", "llm_call", "Planner", { model: "m", messageCount: 2 }),
  n("agent_action_0000", "agent_action", "Planner", { role: "assistant", content: "Plan: search, fetch, compute." }),
  n("llm_call_0001", "llm_call", "Coder", { model: "m", messageCount: 3 }),
  n("agent_action_0001", "agent_action", "Coder", { role: "assistant", content: null, tool_calls: [{ function: { name: "calculator" } }] }),
  n("tool_call_0000", "tool_call", "Coder", { tool: "calculator", arguments: { expression: "2*6+3*3" } }),
  n("tool_result_0000", "tool_result", "Coder", 21),
  n("agent_action_0002", "agent_action", "Coder", { role: "assistant", content: "TOTAL = 21" }),
  n("final_result_0000", "final_result", "Orchestrator", { final: "Total €21.00\n  (adult €6.00, child €3.00)" }),
];
const source = buildBundle({
  id: "src",
  task: { prompt: "What does entry cost?" },
  config: {},
  nodes: sourceNodes,
  edges: [],
  records: [
    { nodeId: "llm_call_0000", boundary: "llm", request: { m: 0 }, response: {} },
    { nodeId: "llm_call_0001", boundary: "llm", request: { m: 1 }, response: {} },
  ],
});

// Replay: same prefix; the boundary call runs live as llm_call_0002 (record seq 1), then 3 nodes.
const replayNodes: N[] = [
  sourceNodes[0],
  sourceNodes[1],
  n("llm_call_0002", "llm_call", "Coder", { model: "m", messageCount: 4 }),
  n("agent_action_0003", "agent_action", "Coder", { role: "assistant", content: null, tool_calls: [{ function: { name: "calculator" } }] }),
  n("tool_call_0001", "tool_call", "Analyst", { tool: "calculator", arguments: { expression: "16" } }),
  n("final_result_0001", "final_result", "Orchestrator", { final: "Family ticket: €16.00\n\tSaturday 09:00–18:00" }),
];
const replay = buildBundle({
  id: "src~replay-1",
  parent: { bundleId: "src", targetNodeId: "llm_call_0001", guidance: "Check the family ticket.", mode: "selective", boundarySeq: 1 } as ReplayBundle["parent"],
  task: { prompt: "What does entry cost?" },
  config: {},
  nodes: replayNodes,
  edges: [],
  records: [
    { nodeId: "llm_call_0000", boundary: "llm", request: { m: 0 }, response: {} },
    { nodeId: "llm_call_0002", boundary: "llm", request: { m: 1, g: "Check the family ticket." }, response: {} },
  ],
});

describe("interventionNodeId", () => {
  test("the replay's node at the parent's boundarySeq (the live boundary call), else the boundary id", () => {
    expect(interventionNodeId(replay, "llm_call_0001")).toBe("llm_call_0002");
    expect(interventionNodeId({ ...replay, parent: null }, "llm_call_0001")).toBe("llm_call_0001");
  });
});

describe("alignSuffix", () => {
  test("source of 5 suffix nodes vs replay of 3 → 5 aligned rows, the last 2 padded on the replay side", () => {
    const a = alignSuffix(source, replay, "llm_call_0001");
    expect(a.sourceAnchor).toBe("llm_call_0001");
    expect(a.replayAnchor).toBe("llm_call_0002");
    expect(a.rows).toHaveLength(5);
    expect(a.rows.map((r) => [r.index, r.source?.id ?? null, r.replay?.id ?? null, r.marker])).toEqual([
      [1, "agent_action_0001", "agent_action_0003", "same"],
      [2, "tool_call_0000", "tool_call_0001", "differs"],
      [3, "tool_result_0000", "final_result_0001", "differs"],
      [4, "agent_action_0002", null, "source-only"],
      [5, "final_result_0000", null, "source-only"],
    ]);
    expect(a.rows[1].differences).toEqual(["agent", "content"]);
    expect(a.rows[2].differences).toEqual(["agent", "type", "content"]);
    expect(a.rows[0].differences).toEqual([]);
    expect(a.rows[1].source).toMatchObject({ agent: "Coder", type: "tool_call", summary: 'calculator({"expression":"2*6+3*3"})' });
    expect(a.rows[2].replay).toMatchObject({ agent: "Orchestrator", summary: "Family ticket: €16.00 Saturday 09:00–18:00" });
  });
  test("a longer replay pads the source side; swapping roles gives replay-only rows", () => {
    const a = alignSuffix(replay, { ...source, parent: { ...replay.parent!, boundarySeq: 1 } }, "llm_call_0002");
    expect(a.rows.map((r) => r.marker)).toEqual(["same", "differs", "differs", "replay-only", "replay-only"]);
    expect(a.rows[4]).toMatchObject({ source: null, replay: { id: "final_result_0000" } });
  });
  test("a transcript continuation (no boundarySeq, the target not kept): the replay's side starts after its first new node", () => {
    // lib/services/replay-exec.ts transcript shape: prefix before the target, then llm_call → agent_action → final_result, fresh ids.
    const cont = buildBundle({
      id: "src~replay-t",
      parent: { bundleId: "src", targetNodeId: "agent_action_0001", guidance: "g", mode: "transcript" },
      task: { prompt: "What does entry cost?" },
      config: {},
      nodes: [...sourceNodes.slice(0, 3), n("llm_call_0002", "llm_call", "Coder", { model: "m", messageCount: 1 }), n("agent_action_0003", "agent_action", "Coder", { role: "assistant", content: "€16.00" }), n("final_result_0001", "final_result", "Coder", { final: "€16.00" })],
      edges: [],
      records: [
        { nodeId: "llm_call_0000", boundary: "llm", request: { m: 0 }, response: {} },
        { nodeId: "llm_call_0001", boundary: "llm", request: { m: 1 }, response: {} },
        { nodeId: "llm_call_0002", boundary: "llm", request: { t: 1 }, response: {} },
      ],
    });
    const a = alignSuffix(source, cont, "agent_action_0001");
    expect(a.replayAnchor).toBe("llm_call_0002");
    expect(a.rows.map((r) => [r.source?.id ?? null, r.replay?.id ?? null, r.marker])).toEqual([
      ["tool_call_0000", "agent_action_0003", "differs"],
      ["tool_result_0000", "final_result_0001", "differs"],
      ["agent_action_0002", null, "source-only"],
      ["final_result_0000", null, "source-only"],
    ]);
  });
  test("concurrent agents: a sibling's node observed after the boundary but served in the replay's prefix is not in the source suffix", () => {
    // Source: A's and B's calls start together; A's answer arrives after B's call (the target) began.
    const src = buildBundle({
      id: "conc",
      task: { prompt: "Plan a trip" },
      config: {},
      nodes: [
        n("llm_call_0000", "llm_call", "Weather", { model: "m", messageCount: 1 }),
        n("llm_call_0001", "llm_call", "Hotels", { model: "m", messageCount: 1 }),
        n("agent_action_0000", "agent_action", "Weather", { role: "assistant", content: "Sunny" }),
        n("agent_action_0001", "agent_action", "Hotels", { role: "assistant", content: "Hotel Azul, 140 EUR" }),
        n("final_result_0000", "final_result", "Planner", { final: "Sunny; Hotel Azul" }),
      ],
      edges: [],
      records: [
        { nodeId: "llm_call_0000", boundary: "llm", request: { a: 0 }, response: {} },
        { nodeId: "llm_call_0001", boundary: "llm", request: { b: 0 }, response: {} },
      ],
    });
    // Replay from llm_call_0001: the prefix served A's call and answer; B's call runs live.
    const rep = buildBundle({
      id: "conc~replay-1",
      parent: { bundleId: "conc", targetNodeId: "llm_call_0001", guidance: "Under 100 EUR.", mode: "selective", boundarySeq: 1 } as ReplayBundle["parent"],
      task: { prompt: "Plan a trip" },
      config: {},
      nodes: [
        n("llm_call_0000", "llm_call", "Weather", { model: "m", messageCount: 1 }),
        n("agent_action_0000", "agent_action", "Weather", { role: "assistant", content: "Sunny" }),
        n("llm_call_0002", "llm_call", "Hotels", { model: "m", messageCount: 1 }),
        n("agent_action_0002", "agent_action", "Hotels", { role: "assistant", content: "Hostel Sol, 80 EUR" }),
        n("final_result_0001", "final_result", "Planner", { final: "Sunny; Hostel Sol" }),
      ],
      edges: [],
      records: [
        { nodeId: "llm_call_0000", boundary: "llm", request: { a: 0 }, response: {} },
        { nodeId: "llm_call_0002", boundary: "llm", request: { b: 0, g: 1 }, response: {} },
      ],
    });
    const a = alignSuffix(src, rep, "llm_call_0001");
    expect(a.replayAnchor).toBe("llm_call_0002");
    expect(a.rows.map((r) => [r.source?.id ?? null, r.replay?.id ?? null, r.source?.agent ?? null, r.replay?.agent ?? null])).toEqual([
      ["agent_action_0001", "agent_action_0002", "Hotels", "Hotels"],
      ["final_result_0000", "final_result_0001", "Planner", "Planner"],
    ]);
  });
  test("an intervention node absent from the observed order is a clear error naming it", () => {
    expect(() => alignSuffix(source, replay, "llm_call_9999")).toThrow(/llm_call_9999.*source.*order/);
  });
});

describe("finalAnswer", () => {
  test("the last final_result node in observed order, its text kept byte for byte (newlines, tabs, spaces)", () => {
    expect(finalAnswer(source)).toEqual({ nodeId: "final_result_0000", agent: "Orchestrator", text: "Total €21.00\n  (adult €6.00, child €3.00)" });
    expect(finalAnswer(replay)?.text).toBe("Family ticket: €16.00\n\tSaturday 09:00–18:00");
  });
  test("no final_result node → null", () => {
    expect(finalAnswer({ ...source, graph: { ...source.graph, nodes: source.graph.nodes.filter((x) => x.type !== "final_result") }, order: source.order.filter((id) => !id.startsWith("final")) })).toBeNull();
  });
  test.each([
    ["a plain string", "  42  ", "  42  "],
    ["{ final }", { final: "a\nb" }, "a\nb"],
    ["{ answer }", { answer: "yes" }, "yes"],
    ["a structured value", { total: 21, hours: ["09:00", "18:00"] }, '{\n  "total": 21,\n  "hours": [\n    "09:00",\n    "18:00"\n  ]\n}'],
    ["null", null, "null"],
  ])("finalAnswerText of %s", (_name, content, text) => {
    expect(finalAnswerText(content)).toBe(text);
  });
});

describe("summarizeContent", () => {
  test.each([
    ["llm_call", { model: "gpt-x", messageCount: 3 }, "gpt-x · 3 messages"],
    ["agent_action", { role: "assistant", content: "  Plan:\n\nsearch  " }, "Plan: search"],
    ["agent_action", { role: "assistant", content: null, tool_calls: [{ function: { name: "fetch" } }, { function: { name: "fetch" } }] }, "→ fetch, fetch"],
    ["tool_result", "x".repeat(200), `${"x".repeat(119)}…`],
    ["message", { role: "user", text: "Hi" }, "Hi"],
    ["agent_action", { role: "assistant", output: [{ type: "function_call", name: "lookup_population", arguments: "{}", call_id: "c1" }] }, "→ lookup_population"],
    ["agent_action", { role: "assistant", output: [{ type: "message", content: [{ type: "output_text", text: "Oslo has\n 700k people." }] }] }, "Oslo has 700k people."],
    ["agent_action", { role: "assistant", content: [{ type: "text", text: "Let me check." }, { type: "tool_use", id: "t1", name: "stock_price", input: {} }] }, "Let me check."],
    ["agent_action", { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "stock_price", input: {} }] }, "→ stock_price"],
  ] as const)("%s %j", (type, content, summary) => {
    expect(summarizeContent(type, content)).toBe(summary);
  });
});

describe("resolveOutcomes", () => {
  const withOutcome = (b: ReplayBundle, outcome: ReplayBundle["outcome"]) => ({ ...b, outcome });
  test("dataset verdict for the source, evaluator verdict for the replay: failed → passed", () => {
    const o = resolveOutcomes(withOutcome(source, { passed: false, evaluator: "who_and_when" }), withOutcome(replay, { passed: true, evaluator: "node eval.mjs", details: null }));
    expect(o.source).toEqual({ verdict: "failed", via: "dataset", evaluator: "who_and_when", reason: null });
    expect(o.replay).toEqual({ verdict: "passed", via: "evaluator", evaluator: "node eval.mjs", reason: null });
  });
  test("no dataset verdict: the evaluator's verdict on the source's final answer (stored by the worker beside the replay's)", () => {
    const o = resolveOutcomes(source, withOutcome(replay, { passed: false, evaluator: "ev", details: null, sourceEvaluation: { passed: false, evaluator: "ev", details: null } }));
    expect(o.source).toEqual({ verdict: "failed", via: "evaluator", evaluator: "ev", reason: null });
    expect(o.replay.verdict).toBe("failed");
  });
  test("no evaluator configured: both unknown, with the reason and the setting to set", () => {
    const o = resolveOutcomes(source, replay);
    expect(o.source.verdict).toBe("unknown");
    expect(o.source.reason).toMatch(/no recorded verdict.*SYMTRACE_REPLAY_EVALUATOR/);
    expect(o.replay).toEqual({ verdict: "unknown", via: "none", evaluator: null, reason: expect.stringMatching(/no evaluator was configured.*SYMTRACE_REPLAY_EVALUATOR/) });
  });
  test("an evaluator error leaves the verdict unknown with its message; a dataset outcome without a verdict says so", () => {
    const o = resolveOutcomes(withOutcome(source, { passed: null, evaluator: "langfuse" }), withOutcome(replay, { passed: null, evaluator: "ev", details: { error: "evaluator exited with 7" } }));
    expect(o.replay).toEqual({ verdict: "unknown", via: "evaluator", evaluator: "ev", reason: "evaluator exited with 7" });
    expect(o.source.reason).toMatch(/langfuse.*no verdict/);
  });
  test("no result bundle yet → replay unknown", () => {
    expect(resolveOutcomes(source, null).replay.reason).toMatch(/no result/);
  });
});
