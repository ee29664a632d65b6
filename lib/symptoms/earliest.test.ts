import { describe, expect, test } from "vitest";
import { detectSymptoms } from "./detect";
import { EarliestCheckError, earliestNodeWarnings } from "./earliest";
import { trace, type N } from "./test-helpers";

const TASK: N = ["task_0000", "message", { role: "user", text: "Find the price." }, { agent: "User" }];
// tool_result_0000 fails (C3.failed-status / C3.http-error / C3.tool-error); agent_action_0000 follows it.
const bundle = trace([
  TASK,
  ["tool_call_0000", "tool_call", { tool: "http_get", arguments: { url: "https://shop.test/api/price" } }],
  ["tool_result_0000", "tool_result", { status: "error", http_status: 503, error: { type: "HTTPError", message: "Service Unavailable" } }],
  ["agent_action_0000", "agent_action", { text: "The price is 12 dollars." }],
  ["final_result", "final_result", { answer: "12" }],
]);
const detection = detectSymptoms(bundle);
const graph = bundle.graph;

describe("earliestNodeWarnings", () => {
  test("a rule of a chosen category on an ancestor warns, naming the ancestor, the rule and its evidence", () => {
    const w = earliestNodeWarnings({ graph, detection, chosenNode: "agent_action_0000", categories: ["C3"] });
    const up = w.filter((x) => x.kind === "upstream-rule");
    expect(up.length).toBeGreaterThan(0);
    expect(up.every((x) => x.nodeId === "tool_result_0000" && x.category === "C3")).toBe(true);
    expect(up.map((x) => x.ruleId)).toContain("C3.http-error");
    const http = up.find((x) => x.ruleId === "C3.http-error")!;
    expect(http.kind === "upstream-rule" && http.evidence[0]).toEqual({ path: "$.content.http_status", quote: "503" });
  });

  test("no warning when the rule's category was not chosen", () => {
    expect(earliestNodeWarnings({ graph, detection, chosenNode: "agent_action_0000", categories: ["C1", "C2"] })).toEqual([]);
  });

  test("no upstream warning when the failing node itself is chosen (its rules are not upstream)", () => {
    expect(earliestNodeWarnings({ graph, detection, chosenNode: "tool_result_0000", categories: ["C3"] })).toEqual([]);
  });

  test("an evidence quote in a node downstream of the chosen node warns; one upstream does not", () => {
    const w = earliestNodeWarnings({
      graph,
      detection,
      chosenNode: "tool_result_0000",
      categories: [],
      evidence: [
        { nodeId: "agent_action_0000", quote: "The price is 12 dollars." },
        { nodeId: "tool_call_0000", quote: "http_get" },
      ],
    });
    expect(w).toEqual([{ kind: "downstream-evidence", nodeId: "agent_action_0000", quote: "The price is 12 dollars." }]);
  });

  test("ancestry follows edges, not observed order: a node earlier in O but not upstream does not warn", () => {
    // two branches from the task: a failing tool_result on one, the chosen agent_action on the other
    const b = trace(
      [TASK, ["tool_result_0000", "tool_result", { status: "error", error: { message: "boom" } }], ["agent_action_0000", "agent_action", { text: "ok" }]],
      {},
    );
    const g = { nodes: b.graph.nodes, edges: b.graph.edges.filter((e) => e.to !== "agent_action_0000").concat([{ from: "task_0000", to: "agent_action_0000", kind: "data" as const }]) };
    expect(earliestNodeWarnings({ graph: g, detection: detectSymptoms(b), chosenNode: "agent_action_0000", categories: ["C3"] })).toEqual([]);
    expect(earliestNodeWarnings({ graph: b.graph, detection: detectSymptoms(b), chosenNode: "agent_action_0000", categories: ["C3"] }).length).toBeGreaterThan(0);
  });

  test("an unknown chosen node is a clear error", () => {
    expect(() => earliestNodeWarnings({ graph, detection, chosenNode: "nope", categories: ["C3"] })).toThrow(EarliestCheckError);
    expect(() => earliestNodeWarnings({ graph, detection, chosenNode: "nope", categories: ["C3"] })).toThrow(/"nope" is not a node/);
  });
});
