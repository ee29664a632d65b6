import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { buildTable, type CaseResult } from "@/lib/attribution";
import { jobStem } from "@/lib/services/attribution/jobs";
import { attributionRunTable, listAttributionRuns } from "@/lib/services/attribution/runs";
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

describe("runs on disk", () => {
  test("lists runs with a study.json and refuses names outside the base folder", () => {
    const base = mkdtempSync(path.join(os.tmpdir(), "attr-runs-"));
    mkdirSync(path.join(base, "scripted-model", "jobs"), { recursive: true });
    writeFileSync(path.join(base, "scripted-model", "study.json"), JSON.stringify({ plan: [{ attributor: "binary-search", groundTruth: "without" }], model: "scripted-model" }));
    for (const r of results) writeFileSync(path.join(base, "scripted-model", "jobs", `${jobStem(r.attributor, r.groundTruth, r.caseId)}.json`), JSON.stringify(r));
    mkdirSync(path.join(base, "empty"));
    expect(listAttributionRuns(base)).toEqual(["scripted-model"]);
    const t = attributionRunTable("scripted-model", base)!;
    expect(t.rows.map((r) => [r.subset, r.agent.x, r.done])).toEqual([["Hand-Crafted", 1, 2], ["Algorithm-Generated", 0, 1]]);
    expect(attributionRunTable("../etc", base)).toBeNull();
    expect(attributionRunTable("empty", base)).toBeNull();
  });
});
