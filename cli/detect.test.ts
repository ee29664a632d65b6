import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { detectSymptoms } from "../lib/symptoms";
import { parseJsonText, validateBundle } from "../lib/bundle";
import { readFileSync } from "node:fs";
import { messageText, startScriptedOpenAI } from "../lib/testing/scripted-openai";
import { runSymtraceHere, spawnSymtraceAsync } from "../lib/testing/cli";

const ROOT = path.resolve(import.meta.dirname, "..");
const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(ROOT, "../shared");
const GOLD = (c: string) => path.join(SHARED, `fixtures/bundles/gold-${c}.bundle.json`);

const tmp = () => mkdtempSync(path.join(os.tmpdir(), "symtrace-detect-"));

/**
 * One command in this process (runSymtraceHere; calls made together queue), with `env` set for it;
 * `spawned`: as its own process (a scripted server in this test keeps answering while it runs).
 */
async function cli(args: string[], env: Record<string, string> = {}, o: { spawned?: boolean } = {}): Promise<{ code: number | null; json: Record<string, unknown> | null; stdout: string; stderr: string }> {
  const { DATABASE_URL, ...rest } = env;
  const url = DATABASE_URL ?? "file:" + path.join(tmp(), "cli.db");
  const r = o.spawned ? await spawnSymtraceAsync(args, url, rest) : await runSymtraceHere(args, url, rest);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  return { code: r.status, json, stdout: r.stdout, stderr: r.stderr };
}

describe("symtrace detect", () => {
  test("gold-c3 bundle file: the issue's JSON shape, rule-fired nodes only, in observed order", async () => {
    const r = await cli(["detect", GOLD("c3")]);
    expect(r.code).toBe(0);
    const j = r.json as { anchor: string; threshold: number; judge: string; mode: string; anchorNode: string; nodes: Array<Record<string, unknown>> };
    expect(Object.keys(j).slice(0, 4)).toEqual(["anchor", "threshold", "judge", "nodes"]);
    expect([j.anchor, j.threshold, j.judge, j.mode, j.anchorNode]).toEqual(["llm_call_0001", 0.5, "none", "rules only", "tool_call_0000"]);
    expect(j.nodes.map((n) => n.id)).toEqual(["tool_call_0000", "tool_result_0000", "tool_call_0001", "tool_result_0001", "final_result"]);
    for (const n of j.nodes) expect(Object.keys(n)).toEqual(["id", "categories", "rules", "S_r", "S_s", "c_f", "eligible"]);
    const tr = j.nodes[1] as { categories: string[]; rules: Array<{ id: string; category: string; evidence: Array<{ path: string; quote: string }> }>; c_f: number };
    expect(tr.categories).toEqual(["C3"]);
    expect(tr.rules.map((x) => x.id)).toEqual(["C3.node-error", "C3.tool-error", "C3.failed-status"]);
    expect(tr.rules[2].evidence).toEqual([{ path: "$.status", quote: "failed" }]);
    // same numbers as the library
    const b = validateBundle(parseJsonText(readFileSync(GOLD("c3"), "utf8")));
    if (!b.ok) throw new Error("gold-c3 invalid");
    expect(tr.c_f).toBe(detectSymptoms(b.bundle).nodes[1].cf);
  }, 60_000);

  test("an importable file with one case (Who&When record) works; bad input exits 1 with {ok:false, errors:[{path, message}]}", async () => {
    const dir = tmp();
    const notJson = path.join(dir, "bad.json");
    writeFileSync(notJson, '{"format": "symtrace.bundle/v1",');
    const badBundle = path.join(dir, "bad-edge.bundle.json");
    const g = JSON.parse(readFileSync(GOLD("c4"), "utf8"));
    g.graph.edges.push({ from: "final_result", to: "nowhere", kind: "data" });
    writeFileSync(badBundle, JSON.stringify(g));
    const [ww, nj, bb, unknown, usage] = await Promise.all([
      cli(["detect", path.join(SHARED, "datasets/who_and_when/Algorithm-Generated/36.json")]),
      cli(["detect", notJson]),
      cli(["detect", badBundle]),
      cli(["detect", "no-such-case-id"]),
      cli(["detect", GOLD("c1"), "--frobnicate"], {}, { spawned: true }),
    ]);
    expect(ww.code).toBe(0);
    expect(ww.json?.anchor).toBeNull(); // no LLM records: nothing replayable
    expect(ww.json?.anchorNode).toBe("msg_0003");
    expect(nj.code).toBe(1);
    expect((nj.json?.errors as Array<{ path: string; message: string }>)[0].message).toMatch(/not JSON.*line 1/);
    expect(bb.code).toBe(1);
    expect((bb.json?.errors as Array<{ path: string }>).some((e) => /^\$\.graph\.edges\[\d+\]\.to$/.test(e.path))).toBe(true);
    expect(unknown.code).toBe(1);
    expect(unknown.json).toEqual({ ok: false, errors: [{ path: "<bundle-file|caseId|bundleId>", message: expect.stringContaining('"no-such-case-id"') }] });
    expect(usage.code).toBe(2);
    for (const r of [nj, bb, unknown, usage]) expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  }, 90_000);

  test("a case in the database by bundle id", async () => {
    const db = "file:" + path.join(tmp(), "db.db");
    const imp = await cli(["import", GOLD("c2")], { DATABASE_URL: db });
    expect(imp.code).toBe(0);
    const r = await cli(["detect", "ag2/webarena_verified_hard_267/attempt_000"], { DATABASE_URL: db });
    expect(r.code).toBe(0);
    expect(r.json?.anchorNode).toBe("tool_call_0002");
    expect((r.json?.nodes as Array<{ id: string }>).map((n) => n.id)).toEqual(["tool_call_0002", "tool_result_0002", "llm_call_0003", "final_result"]);
  }, 90_000);

  test("--judge: without settings exits 1 naming the variable; with a SCRIPTED endpoint the judge's verdicts are used", async () => {
    const none = await cli(["detect", GOLD("c3"), "--judge"], { SYMTRACE_JUDGE_UPSTREAM: "", SYMTRACE_JUDGE_MODEL: "" });
    expect(none.code).toBe(1);
    expect((none.json?.errors as Array<{ path: string }>)[0].path).toBe("SYMTRACE_JUDGE_UPSTREAM");
    const bad = await cli(["detect", GOLD("c3"), "--judge"], { SYMTRACE_JUDGE_UPSTREAM: "not a url", SYMTRACE_JUDGE_MODEL: "m" });
    expect([bad.code, (bad.json?.errors as Array<{ path: string }>)[0].path]).toEqual([1, "SYMTRACE_JUDGE_UPSTREAM"]);
    const srv = await startScriptedOpenAI({
      respond: (req) => {
        const p = JSON.parse(messageText(req.messages[1])) as { node: { id: string }; candidates: Array<{ category: string }> };
        return { content: JSON.stringify({ confirmed: p.node.id.startsWith("tool_call") ? [] : p.candidates.map((c) => c.category), confidence: 0.9 }) };
      },
    });
    try {
      const env = { SYMTRACE_JUDGE_UPSTREAM: srv.url, SYMTRACE_JUDGE_MODEL: "scripted-judge", SYMTRACE_JUDGE_CACHE_DIR: tmp() };
      const r = await cli(["detect", GOLD("c3"), "--judge"], env);
      expect(r.code).toBe(0);
      expect([r.json?.judge, r.json?.mode, r.json?.anchorNode, r.json?.anchor]).toEqual(["scripted-judge", "rules + judge", "tool_result_0000", "llm_call_0001"]);
      expect(r.json?.judgeCalls).toEqual({ httpCalls: 5, cacheHits: 0 });
      const again = await cli(["detect", GOLD("c3"), "--judge"], env);
      expect(again.json?.judgeCalls).toEqual({ httpCalls: 0, cacheHits: 5 });
      expect(srv.requests.length).toBe(5);
    } finally {
      await srv.close();
    }
  }, 90_000);

  test("--eval --dir: the report with the baselines; bad options exit 2; an empty database gives zero cases", async () => {
    const [files, badSeed, empty] = await Promise.all([
      cli(["detect", "--eval", "--dir", path.join(SHARED, "fixtures/bundles")]),
      cli(["detect", "--eval", "--seed", "x"]),
      cli(["detect", "--eval"]),
    ]);
    expect(files.code).toBe(0);
    const m = files.json?.methods as Record<string, { exact: { n: number }; top3: { x: number; n: number; ci95: number[] } }>;
    expect(Object.keys(m)).toEqual(["detector", "randomNode", "lastNode"]);
    expect(m.detector.top3.x).toBe(4);
    expect(m.detector.top3.ci95.length).toBe(2);
    expect(files.json?.withCategoryReference).toBe(4);
    expect(badSeed.code).toBe(2);
    expect(empty.code).toBe(0);
    expect([empty.json?.source, empty.json?.cases]).toEqual(["database", 0]);
  }, 90_000);
});
