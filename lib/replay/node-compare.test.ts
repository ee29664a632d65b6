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

// Issue 22 item 4: a Who&When transcript continuation keeps msg_0000..msg_0004 and continues with
// new nodes; the boundary msg_0005 is not in the result, so the page focused a node that is not
// there ("no node msg_0005 in this case"). The intervention is the first live node.
describe("compareReplay of a transcript continuation", () => {
  const msg = (i: number, text: string) => ({ id: `msg_000${i}`, type: "agent_action" as const, content: { role: "A", name: null, text } });
  const source = buildBundle({
    id: "who_and_when/hand-crafted/1",
    task: { prompt: "t" },
    config: {},
    nodes: [0, 1, 2, 3, 4, 5, 6].map((i) => msg(i, `m${i}`)),
    edges: [],
    records: [],
  });
  const replay = buildBundle({
    id: "who_and_when/hand-crafted/1/replay",
    parent: { bundleId: source.id, targetNodeId: "msg_0005", guidance: "g", mode: "transcript" } as ReplayBundle["parent"],
    task: { prompt: "t" },
    config: {},
    nodes: [
      ...[0, 1, 2, 3, 4].map((i) => msg(i, `m${i}`)),
      { id: "llm_call_0000", type: "llm_call" as const, content: { model: "m" } },
      { id: "agent_action_0000", type: "agent_action" as const, content: { role: "assistant", content: "continued" } },
      { id: "final_result_0000", type: "final_result" as const, content: { final: "continued" } },
    ],
    edges: [],
    records: [{ nodeId: "llm_call_0000", boundary: "llm", request: { m: 1 }, response: {} }],
  });
  test("the first live node is the intervention, paired with the source boundary; every row names a node of its side", () => {
    const rows = compareReplay(source, replay, "msg_0005");
    expect(rows.map((r) => [r.kind, r.source?.id ?? null, r.replay?.id ?? null])).toEqual([
      ...[0, 1, 2, 3, 4].map((i) => ["prefix", `msg_000${i}`, `msg_000${i}`]),
      ["intervention", "msg_0005", "llm_call_0000"],
      ["new", null, "agent_action_0000"],
      ["new", null, "final_result_0000"],
      ["source-only", "msg_0006", null],
    ]);
    const replayIds = new Set(replay.order);
    for (const r of rows) if (r.replay) expect(replayIds.has(r.replay.id)).toBe(true);
  });
});
