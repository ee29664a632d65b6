import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { GraphNode, type GraphNodeLook } from "./graph-node";

const look: GraphNodeLook = { left: 10, top: 20, zoom: 0.5, agentColor: "#2563eb", selected: false, match: false };
const node = { id: "tool_result_0002", type: "tool_result", agent: "WebSurfer", label: '<img src=x onerror="alert(1)">', status: "error", orderIndex: 7 };

describe("GraphNode: one node box of the graph", () => {
  test("carries its id, row and state for tools; trace text is text, never HTML", () => {
    const html = renderToStaticMarkup(<GraphNode node={node} look={{ ...look, selected: true, cf: 0.7612, marks: ["A1", "anchor"] }} />);
    expect(html).toContain('data-testid="graph-node"');
    expect(html).toContain('data-node-id="tool_result_0002"');
    expect(html).toContain('data-order-index="7"');
    expect(html).toContain('data-selected="true"');
    expect(html).toContain('data-cf="0.761"');
    expect(html).not.toContain("data-match");
    expect(html).toContain('data-mark="A1"');
    expect(html).toContain('data-mark="anchor"');
    // the label is escaped text
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).not.toContain("<img");
    // placed by a transform at the screen position and zoom; failed: the status badge and a red outline
    expect(html).toContain("translate(10px, 20px) scale(0.5)");
    expect(html).toContain(">error<");
    expect(html).toContain("outline:2px solid #dc2626");
    expect(html).toContain('title="tool_result_0002 · tool_result · WebSurfer · error"');
  });

  test("counts the edges it does not draw; none: no badge", () => {
    const html = renderToStaticMarkup(<GraphNode node={{ ...node, status: null }} look={{ ...look, match: true, hidden: { out: 1988, in: 3 } }} />);
    expect(html).toContain('data-match="true"');
    expect(html).toContain("+1,988 out · +3 in edges");
    expect(html).not.toContain("outline:");
    expect(renderToStaticMarkup(<GraphNode node={node} look={{ ...look, hidden: { out: 0, in: 0 } }} />)).not.toContain("hidden-edges");
  });
});
