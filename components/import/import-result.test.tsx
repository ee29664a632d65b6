import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { importText } from "@/lib/importers";
import { ImportResultView } from "./import-result";
import type { ImportResult } from "./upload-file";

// Issue 22 item 6: the import page shows warnings as a list only when there are some, and a file
// whose format cannot be told is offered the format choice in the page (not "pass --format").
const base = (over: Partial<ImportResult> = {}): ImportResult => ({ file: "a.json", bytes: 10, imported: 1, skipped: 0, replaced: 0, failed: [], ignored: [], cases: [], ...over });
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/&quot;/g, '"').replace(/\s+/g, " ");

describe("ImportResultView", () => {
  test("no warnings: nothing about warnings, no raw JSON", () => {
    const html = renderToStaticMarkup(<ImportResultView report={base({ warnings: { counts: {}, items: [] } })} />);
    expect(html).not.toContain("import-warnings");
    expect(text(html)).not.toMatch(/warning|counts|items|\{/);
  });

  test("warnings: counts per kind and one list item per warning", () => {
    const warnings = {
      counts: { "clock-skew": 1, "not-ended": 2 },
      items: [
        { file: "a.json", bundleId: "otlp/ab", kind: "clock-skew", path: "$.resourceSpans[0].scopeSpans[0].spans[1]", message: "span b: end before start" },
        { file: "a.json", bundleId: "otlp/ab", kind: "not-ended", path: "$.resourceSpans[0].scopeSpans[0].spans[2]", message: "span c: not ended" },
        { file: "a.json", bundleId: "otlp/ab", kind: "not-ended", path: "$.resourceSpans[0].scopeSpans[0].spans[3]", message: "span d: not ended" },
      ],
    };
    const html = renderToStaticMarkup(<ImportResultView report={base({ warnings })} />);
    const t = text(html);
    expect(t).toContain("3 import warnings: clock-skew × 1, not-ended × 2");
    expect(html.match(/<li/g)?.length).toBe(3);
    expect(t).toContain("otlp/ab $.resourceSpans[0].scopeSpans[0].spans[1]: span b: end before start");
    expect(t).not.toContain('"counts"');
  });

  test("an unrecognized file offers the format choice and names no CLI flag", () => {
    const r = importText('{"hello": 1}', "a.json");
    expect(r.failures[0].errors[0]).toMatchObject({ path: "$", code: "format-needed" });
    expect(r.failures[0].errors[0].message).not.toContain("--format");
    const report = base({ imported: 0, failed: [{ file: "a.json", errors: r.failures[0].errors }] });
    const html = renderToStaticMarkup(<ImportResultView report={report} onRetry={() => {}} />);
    expect(html).toContain('data-testid="import-format-retry"');
    expect(html).toContain('aria-label="Format of a.json"');
    for (const v of ["bundle", "whowhen", "mad", "otel"]) expect(html).toContain(`value="${v}"`);
    expect(text(html)).toContain("Import again");
    expect(text(html)).not.toContain("--format");
  });
});
