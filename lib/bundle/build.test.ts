import { describe, expect, test } from "vitest";
import { buildBundle, hashContent } from "./index";

describe("buildBundle", () => {
  test("hashes content and requests", () => {
    const b = buildBundle({
      id: "t/1",
      task: { prompt: "p" },
      config: {},
      nodes: [{ id: "a", type: "llm_call", content: { x: 1 } }],
      edges: [],
      records: [{ nodeId: "a", boundary: "llm", request: { m: [] }, response: {} }],
    });
    expect(b.graph.nodes[0].contentHash).toBe(hashContent({ x: 1 }));
    expect(b.records[0].seq).toBe(0);
  });
});
