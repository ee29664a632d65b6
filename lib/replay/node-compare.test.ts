import { describe, expect, test } from "vitest";
import { buildBundle, type ReplayBundle } from "../bundle";
import { compareReplay } from "./node-compare";

const node = (id: string, type: "llm_call" | "agent_action", content: unknown) => ({ id, type, content });

describe("compareReplay", () => {
  const source = buildBundle({
    id: "s",
    task: { prompt: "t" },
    config: {},
    nodes: [node("llm_call_0000", "llm_call", { a: 1 }), node("agent_action_0000", "agent_action", { text: "x" }), node("llm_call_0001", "llm_call", { a: 2 }), node("agent_action_0001", "agent_action", { text: "old" })],
    edges: [],
    records: [
      { nodeId: "llm_call_0000", boundary: "llm", request: { m: 1 }, response: {} },
      { nodeId: "llm_call_0001", boundary: "llm", request: { m: 2 }, response: {} },
    ],
  });
  const replay = buildBundle({
    id: "r",
    parent: { bundleId: "s", targetNodeId: "llm_call_0001", guidance: "g", mode: "selective", boundarySeq: 1 } as ReplayBundle["parent"],
    task: { prompt: "t" },
    config: {},
    nodes: [node("llm_call_0000", "llm_call", { a: 1 }), node("agent_action_0000", "agent_action", { text: "x" }), node("llm_call_0002", "llm_call", { a: 3 }), node("agent_action_0002", "agent_action", { text: "new" })],
    edges: [],
    records: [
      { nodeId: "llm_call_0000", boundary: "llm", request: { m: 1 }, response: {} },
      { nodeId: "llm_call_0002", boundary: "llm", request: { m: 2, g: "g" }, response: {} },
    ],
  });
  test("verified prefix, the live intervention node paired with the source boundary, the new suffix, and the replaced source suffix", () => {
    const rows = compareReplay(source, replay, "llm_call_0001");
    expect(rows.map((r) => [r.kind, r.source?.id ?? null, r.replay?.id ?? null])).toEqual([
      ["prefix", "llm_call_0000", "llm_call_0000"],
      ["prefix", "agent_action_0000", "agent_action_0000"],
      ["intervention", "llm_call_0001", "llm_call_0002"],
      ["new", null, "agent_action_0002"],
      ["source-only", "agent_action_0001", null],
    ]);
    expect(rows[2].diff).toEqual([{ path: "/a", op: "replace", expected: 2, actual: 3 }]);
  });
});
