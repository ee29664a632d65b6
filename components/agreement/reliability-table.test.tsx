/**
 * Issue 20 item 8: the agreement dashboard's reliability table (components/agreement/tables.tsx)
 * and the release datasheet (lib/release renderDatasheet) say the same thing about the same
 * report — the κ, its interval, and why either is missing. Before the fix a 4-case release printed
 * a one-point "CI" ([-0.500, -0.500]) where the dashboard said "— (n < 10)". Checked on the shared
 * synthetic-60 fixture: 4 cases (no interval in either), 1 case (κ undefined: its reason in both)
 * and 60 cases (the same interval in both).
 */
import { readFileSync } from "node:fs";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, test } from "vitest";
import { analyzeAnnotations, readAnnotations, variableRows, type AgreementReport } from "@/lib/agreement";
import { renderDatasheet, type ReleaseManifest } from "@/lib/release";
import { ReliabilityTable } from "./tables";

const SHARED = new URL("../../../shared/", import.meta.url);
const read = readAnnotations(readFileSync(new URL("fixtures/agreement/synthetic-60.annotations.json", SHARED), "utf8"));
if (!read.ok) throw new Error(JSON.stringify(read.errors));
const all = read.file.cases;

/** The smallest manifest renderDatasheet reads (the agreement section is what is compared). */
const manifest = {
  format: "symtrace.release/v1",
  release: { name: "t", version: "1", created: "2026-01-01T00:00:00Z" },
  tool: { version: "0", gitCommit: null },
  filter: { status: "all" },
  pseudonymisation: { scheme: "hmac", people: 3 },
  counts: { cases: 0, adjudicated: 0, initialAnnotations: 0, finalAnnotations: 0, annotators: 3, adjudicators: 0, byMas: {}, byBenchmark: {}, bySourceDataset: {}, byPrimaryCategory: {} },
  licences: [],
} as unknown as ReleaseManifest;

/** Dashboard cells per variable: [κ text, CI text], tags stripped. */
function dashboard(r: AgreementReport): Record<string, [string, string]> {
  const html = renderToStaticMarkup(<ReliabilityTable r={r} />);
  const out: Record<string, [string, string]> = {};
  const strip = (s: string) => s.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
  for (const m of html.matchAll(/<tr data-variable="([^"]+)">(.*?)<\/tr>/g)) {
    const k = /data-testid="kappa">(.*?)<\/td>/.exec(m[2]);
    const c = /data-testid="kappa-ci">(.*?)<\/td>/.exec(m[2]);
    if (k && c) out[m[1]] = [strip(k[1]), strip(c[1])];
  }
  return out;
}

/** Datasheet rows per variable name as the dashboard names them: [κ text, CI text]. */
function datasheet(r: AgreementReport): Record<string, [string, string]> {
  const md = renderDatasheet(manifest, r);
  const row = (label: string) => {
    const line = md.split("\n").find((l) => l.startsWith(`| ${label} |`));
    if (!line) throw new Error(`no datasheet row ${label}`);
    const cells = line.split(/(?<!\\)\|/).map((s) => s.trim());
    return [cells[2], cells[3]] as [string, string];
  };
  const out: Record<string, [string, string]> = {};
  for (const [name] of variableRows(r)) {
    const label = name === "Primary category" ? "primary category" : name === "Exact category set" ? "exact category set" : name === "Failure-node type" ? "node type" : `${/C[1-4]/.exec(name)![0]} present`;
    out[name] = row(label);
  }
  return out;
}

describe("dashboard and release datasheet agree on κ and its interval", () => {
  test("4 cases (n < 10): neither shows an interval, both say n < 10; the same κ", () => {
    const r = analyzeAnnotations(all.slice(0, 4), { resamples: 500 });
    const d = dashboard(r);
    const s = datasheet(r);
    expect(Object.keys(d)).toHaveLength(7);
    expect(Object.keys(s).sort()).toEqual(Object.keys(d).sort());
    for (const [name, v] of variableRows(r)) {
      expect(d[name][1], name).toBe("— (n < 10)");
      expect(s[name][1], name).toBe("— (n < 10: too few cases for a bootstrap interval)");
      expect(s[name][1], name).not.toMatch(/\[/);
      if (v.kappa !== null) {
        expect(d[name][0]).toBe(v.kappa.toFixed(3));
        expect(s[name][0]).toBe(v.kappa.toFixed(3));
      }
    }
  });

  test("1 unanimous case: κ undefined with the same reason in both", () => {
    const r = analyzeAnnotations(all.slice(0, 1), { resamples: 200 });
    const d = dashboard(r);
    const s = datasheet(r);
    const undef = variableRows(r).filter(([, v]) => v.kappa === null);
    expect(undef.length).toBeGreaterThan(0);
    for (const [name, v] of undef) {
      expect(v.kappaReason).toMatch(/P_e = 1/);
      expect(d[name][0], name).toBe(`undefined ${v.kappaReason}`);
      expect(s[name][0], name).toBe(`undefined (${v.kappaReason})`);
    }
  });

  test("60 cases: the same interval, to three decimals, in both", () => {
    const r = analyzeAnnotations(all, { resamples: 500 });
    const d = dashboard(r);
    const s = datasheet(r);
    for (const [name, v] of variableRows(r)) {
      expect(v.ci95, name).not.toBeNull();
      expect(d[name][1], name).toBe(`${v.ci95![0].toFixed(3)} – ${v.ci95![1].toFixed(3)}`);
      expect(s[name][1], name).toBe(`[${v.ci95![0].toFixed(3)}, ${v.ci95![1].toFixed(3)}]`);
      expect(d[name][0]).toBe(s[name][0]);
    }
  });
});
