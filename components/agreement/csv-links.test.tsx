import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { AGREEMENT_TABLES } from "@/lib/agreement/export-tables";
import { TableCsvLink } from "./tables";

// Issue 22 item 8: the agreement page's CSV links are named by their table, not all "CSV".
describe("agreement CSV links", () => {
  const text = (table: (typeof AGREEMENT_TABLES)[number]) =>
    renderToStaticMarkup(<TableCsvLink table={table} qs="benchmark=GAIA" />)
      .replace(/<[^>]+>/g, "")
      .replace(/&#x27;/g, "'");

  test("each link names its table; no two links read alike", () => {
    const labels = AGREEMENT_TABLES.map(text);
    expect(labels).not.toContain("CSV");
    expect(new Set(labels).size).toBe(AGREEMENT_TABLES.length);
    expect(text("reliability")).toBe("CSV: Fleiss' κ per variable");
    expect(text("exact")).toBe("CSV: node id (exact) agreement");
    expect(text("cohen")).toBe("CSV: Cohen's κ per pair");
    expect(text("vs-final")).toBe("CSV: annotator vs final");
  });

  test("the link keeps the table name and the page's filter", () => {
    expect(renderToStaticMarkup(<TableCsvLink table="mad-modes" qs="benchmark=GAIA" />)).toContain('href="/api/agreement?format=csv&amp;table=mad-modes&amp;benchmark=GAIA"');
  });
});
