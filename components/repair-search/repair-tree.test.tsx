import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { treeView } from "@/lib/repair-search/view";
import { SAMPLE_GUIDANCE, sampleSearchState } from "@/lib/testing/repair-tree";
import { NodeCard, RepairTree } from "./repair-tree";
import { readView } from "./repair-search-live";

// Node cards over the hand-built tree of lib/testing/repair-tree.ts, on the server renderer
// (no layout effect runs there: RepairTree shows its indented list until ELK has answered).
const rows = treeView(sampleSearchState());
const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
const text = (markup: string, field: string) => {
  const m = markup.match(new RegExp(`data-field="${field}"[^>]*>([\\s\\S]*?)</span>`));
  if (!m) throw new Error(`no field ${field}`);
  return m[1].replace(/<!-- -->/g, "").replace(/<[^>]+>/g, "");
};

describe("NodeCard", () => {
  test("shows N, Q/N, r, failure mode, action and the guidance as escaped text", () => {
    const html = renderToStaticMarkup(<NodeCard row={byId.n2} selected={false} />);
    expect(text(html, "visits")).toBe("3");
    expect(text(html, "mean-q")).toBe("0.53");
    expect(text(html, "score")).toBe("0.40");
    expect(text(html, "action")).toBe("rollback");
    expect(text(html, "failure-mode")).toBe("FM 2.6 · @n-call-2");
    expect(html).toContain("Δ Look up &lt;b&gt;Clark Street&lt;/b&gt; with the lookup tool");
    expect(html).not.toContain("<b>");
    expect(html).toContain('href="?node=n2"');
    expect(html).toContain('data-best-path="true"');
    expect(html).toContain('data-best="false"');
    expect(SAMPLE_GUIDANCE).toContain("<b>");
  });

  test("the root is not judged; the best node is marked", () => {
    expect(text(renderToStaticMarkup(<NodeCard row={byId.n0} selected={false} />), "failure-mode")).toBe("not judged");
    const best = renderToStaticMarkup(<NodeCard row={byId.n3} selected />);
    expect(best).toContain('data-best="true"');
    expect(best).toContain('aria-current="true"');
    expect(renderToStaticMarkup(<NodeCard row={byId.n1} selected={false} />)).toContain('data-best-path="false"');
  });
});

describe("RepairTree before layout", () => {
  test("lists every node indented by depth", () => {
    const html = renderToStaticMarkup(<RepairTree rows={rows} selectedId="n3" />);
    expect(html).toContain('data-layout="pending"');
    expect([...html.matchAll(/data-tree-node="(n\d+)"/g)].map((m) => m[1])).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    expect(html).toContain("margin-left:64px");
  });
});

describe("readView", () => {
  test("reads the API view bare or wrapped, and rejects what is not one", () => {
    const v = { id: "rs1", status: "running", state: null, nodeCases: { n1: "c1" }, best: null, usage: null, error: null, createdAt: "2026-01-01T00:00:00.000Z" };
    expect(readView(v)).toMatchObject({ id: "rs1", status: "running", nodeCases: { n1: "c1" } });
    expect(readView({ repairSearch: v })?.id).toBe("rs1");
    expect(readView({ error: "not found" })).toBeNull();
    expect(readView(null)).toBeNull();
  });
});
