import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { CaseHeader, type CaseHeaderView } from "./case-header";
import { ImportWarningBadge } from "./import-warning-badge";

// Issue 20 item 11: import warnings where a user looks — the node badge and the case header counts.
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/\s+/g, " ").trim();
const view = (source: unknown): CaseHeaderView => ({
  bundleId: "otlp/abc",
  sourceDataset: "otlp",
  sourceSubset: null,
  sourceFile: "t.json",
  benchmark: null,
  mas: null,
  model: null,
  outcomePassed: null,
  nodeCount: 3,
  edgeCount: 2,
  recordCount: 0,
  agentCount: 0,
  parentBundleId: null,
  header: { task: { prompt: "p" }, source },
});

describe("import warnings in the views", () => {
  test("a node's badge counts its warnings and names them", () => {
    const html = renderToStaticMarkup(<ImportWarningBadge warnings={["not ended", "parent not in trace: ffffffffffffffff"]} />);
    expect(text(html)).toBe("⚠ 2");
    expect(html).toContain('title="import warnings: not ended; parent not in trace: ffffffffffffffff"');
    expect(renderToStaticMarkup(<ImportWarningBadge warnings={undefined} />)).toBe("");
  });

  test("the case header counts warnings per kind and says how deep a deep span tree is", () => {
    const source = {
      importWarnings: [
        { kind: "clock-skew", path: "$.a", message: "m" },
        { kind: "not-ended", path: "$.b", message: "m" },
        { kind: "not-ended", path: "$.c", message: "m" },
        { kind: "deep-span-tree", path: "$.d", message: "span tree is 6,000 levels deep (deepest span 0000000000001770); more than 100 levels" },
      ],
    };
    const t = text(renderToStaticMarkup(<CaseHeader c={view(source)} />));
    expect(t).toContain("Import warnings (4): clock-skew × 1 · not-ended × 2 · deep-span-tree × 1");
    expect(t).toContain("span tree is 6,000 levels deep (deepest span 0000000000001770)");
    expect(renderToStaticMarkup(<CaseHeader c={view({ notes: [] })} />)).not.toContain("import-warning-counts");
  });
});
