import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { buildTable, type CaseResult } from "@/lib/attribution";
import { AttributionTable } from "./attribution-table";

// Hand-made results: Hand-Crafted 2 cases (agent 1/2, step exact 1/2), Algorithm-Generated 1 case (0/1).
const res = (caseId: string, subset: CaseResult["subset"], agent: string, step: number): CaseResult => ({
  attributor: "binary-search",
  groundTruth: "without",
  caseId,
  subset,
  reference: { agent: "A", step: 4 },
  status: "done",
  attribution: { agent, step, reason: null, calls: 3, httpCalls: 3, tokens: { prompt: 900, completion: 30 }, parseError: null },
  error: null,
});
const results = [res("h1", "Hand-Crafted", "A", 4), res("h2", "Hand-Crafted", "B", 9), res("a1", "Algorithm-Generated", "B", 6)];

describe("AttributionTable", () => {
  test("one table per subset with the rates, Wilson intervals and the published anchor", () => {
    const html = renderToStaticMarkup(<AttributionTable rows={buildTable(results)} />);
    expect(html).toContain('data-testid="attribution-Hand-Crafted"');
    expect(html).toContain('data-testid="attribution-Algorithm-Generated"');
    // 1/2 = 50.0%, Wilson [9.5–90.5]; published Binary Search HC 51.72 / 6.90
    expect(html).toMatch(/data-testid="agent" title="1\/2, Wilson 95% 9\.5–90\.5%">50\.0%/);
    expect(html).toContain("51.72 / 6.90");
    expect(html).toContain("44.13 / 23.98");
    expect(html).toContain(">930<"); // tokens per case
  });
});
