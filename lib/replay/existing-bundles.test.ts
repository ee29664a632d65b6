/**
 * Issue 21: existing bundles still replay unchanged after the protocol work — the gold bundles
 * (the shared fixtures bundles), the demo reference bundle and every bundle of the demo experiment
 * (300 calibrated-world runs, demo/experiment/bundles.json.gz). Each record's stored request is
 * sent again in record order (the stored request is already normalized; normalization is
 * idempotent; a former target's guidance message taken off), as the MAS would on replay: every record must be served (request hash matched,
 * node hashes re-derived and equal for bundles recorded by the symtrace proxy).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, test } from "vitest";
import { validateBundle, type ReplayBundle } from "../bundle";
import { ReplaySession } from "./session";

const root = path.resolve(__dirname, "../..");
const load = (f: string): ReplayBundle => {
  const r = validateBundle(JSON.parse(readFileSync(f, "utf8")));
  if (!r.ok) throw new Error(`${f}: ${r.issues[0]?.message}`);
  return r.bundle;
};

function replayAll(b: ReplayBundle): { verified: number; checked: number; end: unknown } {
  const s = new ReplaySession({ source: b });
  for (const rec of b.records) {
    // A former target's stored request holds its guidance as the last message; the MAS sends it without.
    const q = rec.request as { messages?: unknown[] };
    const request = typeof rec.meta?.guidance === "string" && Array.isArray(q.messages) ? { ...q, messages: q.messages.slice(0, -1) } : rec.request;
    const step = s.begin({ boundary: rec.boundary, request });
    if (step.kind !== "recorded") return { verified: s.verified, checked: s.checkedNodes, end: step.kind === "diverged" ? step.report.message : step.kind };
  }
  return { verified: s.verified, checked: s.checkedNodes, end: s.end() };
}

describe("existing bundles replay unchanged", () => {
  const gold = ["gold-c1", "gold-c2", "gold-c3", "gold-c4"].map((n) => path.join(root, "../shared/fixtures/bundles", `${n}.bundle.json`));
  test.each([...gold, path.join(root, "demo/reference-orchestrator.bundle.json")])("%s", (f) => {
    const b = load(f);
    expect(replayAll(b)).toMatchObject({ verified: b.records.length, end: null });
  });

  test("the 300 bundles of the demo experiment (calibrated world)", () => {
    const all = JSON.parse(gunzipSync(readFileSync(path.join(root, "demo/experiment/bundles.json.gz"))).toString("utf8")) as unknown[];
    expect(all.length).toBe(300);
    let records = 0;
    let checked = 0;
    for (const raw of all) {
      const r = validateBundle(raw);
      if (!r.ok) throw new Error(r.issues[0]?.message);
      const out = replayAll(r.bundle);
      expect(out, r.bundle.id).toMatchObject({ verified: r.bundle.records.length, end: null });
      records += out.verified;
      checked += out.checked;
    }
    expect(records).toBeGreaterThan(300);
    expect(checked).toBeGreaterThan(0);
  });
});
