/**
 * The semantic judge against a SCRIPTED OpenAI-compatible endpoint (lib/testing/scripted-openai.ts):
 * no real model is called; the script decides each verdict from the request it receives.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseJsonText, validateBundle, type ReplayBundle } from "../bundle";
import { detectSymptoms, detectWithJudge, JudgeReplyError } from "../symptoms";
import { messageText, startScriptedOpenAI, type ScriptedOpenAI } from "../testing/scripted-openai";
import { createOpenAiJudge } from "./symptoms-judge";

function goldC3(): ReplayBundle {
  const r = validateBundle(parseJsonText(readFileSync(path.resolve(__dirname, "../../../shared/fixtures/bundles/gold-c3.bundle.json"), "utf8")));
  if (!r.ok) throw new Error("gold-c3 invalid");
  return r.bundle;
}

let srv: ScriptedOpenAI;
let dir: string;
beforeAll(async () => {
  srv = await startScriptedOpenAI({
    respond: (req) => {
      const payload = JSON.parse(messageText(req.messages[1])) as { node: { id: string }; candidates: Array<{ category: string }> };
      const cats = payload.candidates.map((c) => c.category);
      // final_result: reject C4, keep C3. tool_result_0000: claim an extra C2 (must be ignored). Others: confirm all.
      if (payload.node.id === "final_result") return { content: JSON.stringify({ confirmed: cats.filter((c) => c !== "C4"), confidence: 0.7, rationale: "error upstream" }) };
      if (payload.node.id === "tool_result_0000") return { content: `Sure. {"confirmed": ["C3", "C2"], "confidence": 0.95, "rationale": "MissingSchema"}` };
      if (payload.node.id === "tool_call_0001") return { content: JSON.stringify({ confirmed: [], confidence: 0 }) };
      return { content: JSON.stringify({ confirmed: cats, confidence: 0.8 }) };
    },
  });
  dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-judge-"));
});
afterAll(async () => {
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("semantic judge (scripted endpoint)", () => {
  test("rejecting a category removes it, an extra category is ignored, a full rejection empties L_v; reference answers are never sent", async () => {
    const b = goldC3();
    const rules = detectSymptoms(b);
    const judge = createOpenAiJudge({ upstream: srv.url, model: "judge-model", cacheDir: dir });
    const d = await detectWithJudge(b, judge);
    expect(d.judge).toBe("judge-model");
    expect(d.mode).toBe("rules + judge");
    expect(judge.stats.httpCalls).toBe(rules.nodes.length);
    expect(srv.requests.length).toBe(rules.nodes.length);

    const fin = d.nodes.find((n) => n.id === "final_result")!;
    expect(fin.triggered).toEqual(["C3", "C4"]);
    expect(fin.categories).toEqual(["C3"]);
    expect(fin.cLLM).toBe(0.7);
    const tr = d.nodes.find((n) => n.id === "tool_result_0000")!;
    expect(tr.triggered).toEqual(["C3"]);
    expect(tr.categories).toEqual(["C3"]); // C2 claimed by the judge, not triggered: ignored (L_f ⊆ L_r)
    expect(tr.cLLM).toBe(0.95);
    const tc = d.nodes.find((n) => n.id === "tool_call_0001")!;
    expect(tc.categories).toEqual([]);
    expect([tc.cf, tc.eligible]).toEqual([0, false]);
    // c_f uses the judge's confidence: 0.55·c̃ + 0.45·S_s
    expect(tr.cMix).toBeCloseTo(0.55 * 0.95 + 0.45 * tr.Ss, 12);

    for (const raw of srv.rawRequests) {
      expect(raw).not.toContain("406.53"); // task.reference.expected
      expect(raw).not.toContain('"reference"');
      expect(raw).not.toContain('"outcome"');
    }
  });

  test("a second run is answered from the cache: zero HTTP calls, same result", async () => {
    const b = goldC3();
    const before = srv.requests.length;
    const judge = createOpenAiJudge({ upstream: srv.url, model: "judge-model", cacheDir: dir });
    const first = await detectWithJudge(b, createOpenAiJudge({ upstream: srv.url, model: "judge-model", cacheDir: dir }));
    const again = await detectWithJudge(b, judge);
    expect(srv.requests.length).toBe(before);
    expect(judge.stats).toEqual({ httpCalls: 0, cacheHits: again.nodes.length });
    expect(again).toEqual(first);
    expect(readdirSync(dir).filter((f) => /^[0-9a-f]{64}\.json$/.test(f)).length).toBe(again.nodes.length);
  });

  test("an unusable reply is an error naming the node, and is not cached", async () => {
    const bad = await startScriptedOpenAI({ respond: () => ({ content: "I think it is C3." }) });
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), "symtrace-judge2-"));
    try {
      const judge = createOpenAiJudge({ upstream: bad.url, model: "m2", cacheDir });
      await expect(detectWithJudge(goldC3(), judge)).rejects.toThrow(JudgeReplyError);
      await expect(detectWithJudge(goldC3(), judge)).rejects.toThrow(/node "tool_call_0000"/);
      expect(judge.stats.httpCalls).toBe(2);
      expect(readdirSync(cacheDir)).toEqual([]);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
      await bad.close();
    }
  });
});
