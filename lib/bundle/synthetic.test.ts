import { describe, expect, test } from "vitest";
import { canonicalJson, sha256Tagged } from "./hash";
import { goldSizedBundle, syntheticBundle } from "./synthetic";
import { validateBundle } from "./validate";

const hashOf = (v: unknown) => sha256Tagged(canonicalJson(v));

describe("syntheticBundle", () => {
  test("turns=3: valid, 14 nodes, 16 edges, 6 records, MAS-trace shape", () => {
    const b = syntheticBundle({ id: "t/3", turns: 3, agents: ["A", "B"] });
    const res = validateBundle(JSON.parse(JSON.stringify(b)));
    expect(res.issues).toEqual([]);
    expect(b.graph.nodes).toHaveLength(14);
    expect(b.graph.edges).toHaveLength(16);
    expect(b.records).toHaveLength(6);
    expect(b.graph.nodes.map((n) => n.type)).toEqual([
      "message",
      ...Array(3).fill(["llm_call", "agent_action", "tool_call", "tool_result"]).flat(),
      "final_result",
    ]);
    expect(b.graph.nodes.filter((n) => n.type === "llm_call").map((n) => n.agent)).toEqual(["A", "B", "A"]);
    expect(b.records.map((r) => [r.nodeId, r.boundary])).toEqual([
      ["llm_call_0000", "llm"],
      ["tool_call_0000", "tool"],
      ["llm_call_0001", "llm"],
      ["tool_call_0001", "tool"],
      ["llm_call_0002", "llm"],
      ["tool_call_0002", "tool"],
    ]);
    expect(Object.keys(b.records[0].request as object).sort()).toEqual(["messages", "model", "temperature"]);
    expect(b.records[1].request).toEqual(b.graph.nodes.find((n) => n.id === "tool_call_0000")?.content);
    expect(b.graph.edges).toContainEqual({ from: "tool_result_0000", to: "llm_call_0001", kind: "control" });
    expect(b.graph.edges).toContainEqual({ from: "llm_call_0001", to: "agent_action_0001", kind: "data" });
    for (const n of b.graph.nodes) {
      const size = JSON.stringify(n.content).length;
      expect(size).toBeGreaterThan(20);
      expect(size).toBeLessThan(2000);
    }
  });

  test("turns=1000 with taskNode:false: 4,001 nodes, 5,000 edges, 2,000 records; failures every 17 turns", () => {
    const b = syntheticBundle({ id: "t/4001", turns: 1000, taskNode: false });
    expect(b.graph.nodes).toHaveLength(4001);
    expect(b.graph.edges).toHaveLength(5000);
    expect(b.records).toHaveLength(2000);
    expect(b.order).toHaveLength(4001);
    const failed = b.graph.nodes.filter((n) => n.status === "error");
    expect(failed).toHaveLength(Math.floor(1000 / 17));
    expect(failed[0]).toMatchObject({ id: "tool_result_0016", error: { type: expect.any(String), message: expect.any(String) } });
    expect(validateBundle(b).ok).toBe(true);
  });

  test("turns=1000 with the task node: 4,002 nodes, 5,001 edges (the measurements.md trace)", () => {
    const b = syntheticBundle({ id: "t/4002", turns: 1000 });
    expect(b.graph.nodes).toHaveLength(4002);
    expect(b.graph.edges).toHaveLength(5001);
  });

  test("deterministic: same seed, same canonical hash; other seed, other content", () => {
    const a = syntheticBundle({ id: "t/d", turns: 20, seed: 7 });
    const b = syntheticBundle({ id: "t/d", turns: 20, seed: 7 });
    const c = syntheticBundle({ id: "t/d", turns: 20, seed: 8 });
    expect(hashOf(a)).toBe(hashOf(b));
    expect(hashOf(a)).not.toBe(hashOf(c));
  });

  test("goldSizedBundle: valid, gold-case size, distinct ids", () => {
    const b = goldSizedBundle(5);
    expect(b.id).toBe("bench/gold-sized/5");
    expect(validateBundle(b).ok).toBe(true);
    expect(b.graph.nodes).toHaveLength(14);
    expect(goldSizedBundle(6).id).not.toBe(b.id);
    expect(hashOf(goldSizedBundle(5))).toBe(hashOf(b));
  });

  test("rejects turns < 1", () => {
    expect(() => syntheticBundle({ id: "x", turns: 0 })).toThrow(/turns/);
  });
});
