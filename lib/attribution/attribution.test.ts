/**
 * lib/attribution against hand-computed values: prompts, reply parsing, call and token counts of
 * each attributor on a hand-made 5-step log answered by a scripted in-memory model (the test's
 * ScriptedLlm: fixed replies, usage 100 prompt + 10 completion tokens per call), and the table's
 * arithmetic (rates, Wilson intervals, CSV).
 */
import { describe, expect, test } from "vitest";
import { buildBundle } from "../bundle";
import {
  ATTRIBUTORS,
  agentMatches,
  allAtOncePrompt,
  annotatorPrompt,
  AnnotatorReplyError,
  attributionCaseFromBundle,
  binarySearchPrompt,
  buildTable,
  parseAllAtOnce,
  parseAnnotatorReply,
  parseHalf,
  parseStepVerdict,
  stepByStepPrompt,
  tableCsv,
  type AttributionCase,
  type AttributionLlm,
  type CaseResult,
  type LlmRequest,
} from ".";

/** Scripted model: replies in order, 100 + 10 tokens each; records the requests. */
function scriptedLlm(replies: string[], cached = false): AttributionLlm & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    model: "scripted-model",
    requests,
    async complete(r) {
      requests.push(r);
      const text = replies[requests.length - 1];
      if (text === undefined) throw new Error("script exhausted");
      return { text, usage: { prompt: 100, completion: 10 }, cached };
    },
  };
}

const MSGS = [
  { role: "human", text: "What is 6 x 7?" },
  { role: "Orchestrator (thought)", text: "Plan: ask the Assistant to compute." },
  { role: "Orchestrator (-> Assistant)", text: "Compute 6 x 7." },
  { role: "Assistant", text: "6 x 7 = 48, clearly." },
  { role: "Orchestrator (termination condition)", text: "FINAL ANSWER: 48" },
];

/** A Hand-Crafted-like case: mistake by Assistant at step 3 (the wrong product). */
function handCase(): AttributionCase {
  const bundle = buildBundle({
    id: "who_and_when/hand-crafted/t1",
    task: { id: null, benchmark: "GAIA", prompt: "What is 6 x 7?", reference: { ground_truth: "42" } },
    config: { mas: "magentic-one" },
    nodes: MSGS.map((m, i) => ({ id: `msg_000${i}`, type: i === 4 ? "final_result" : "agent_action", agent: m.role.replace(/ \(.*\)$/, ""), content: { role: m.role, name: null, text: m.text } })),
    edges: MSGS.slice(1).map((_, i) => ({ from: `msg_000${i}`, to: `msg_000${i + 1}`, kind: "control" as const })),
    outcome: { passed: false, evaluator: "who_and_when", details: {} },
    extra: { source: { dataset: "who_and_when", subset: "Hand-Crafted", notes: [] }, referenceLabels: [{ source: "who_and_when", nodeId: "msg_0003", agent: "Assistant" }] },
  });
  return attributionCaseFromBundle(bundle);
}

describe("the case from a Who&When bundle", () => {
  test("steps are 0-based, agent = role (Hand-Crafted), reference step/agent from the label", () => {
    const c = handCase();
    expect(c.steps.map((s) => [s.index, s.agent])).toEqual(MSGS.map((m, i) => [i, m.role]));
    expect(c.reference).toEqual({ agent: "Assistant", step: 3 });
    expect(c.groundTruth).toBe("42");
    expect(c.subset).toBe("Hand-Crafted");
  });
  test("agent match drops the Magentic-One role suffix and emphasis, case-insensitive", () => {
    expect(agentMatches("Orchestrator (thought)", "Orchestrator")).toBe(true);
    expect(agentMatches("**assistant**", "Assistant")).toBe(true);
    expect(agentMatches("WebSurfer", "Orchestrator")).toBe(false);
    expect(agentMatches(null, "Orchestrator")).toBe(false);
  });
});

describe("prompts", () => {
  const c = handCase();
  test("All-at-Once sends the whole log, numbered from 0, and the ground truth only when asked", () => {
    const withGt = allAtOncePrompt(c, true);
    expect(withGt).toContain("Step 0 - human: What is 6 x 7?");
    expect(withGt).toContain("Step 4 - Orchestrator (termination condition): FINAL ANSWER: 48");
    expect(withGt).toContain("The correct answer to the problem is: 42");
    expect(allAtOncePrompt(c, false)).not.toContain("42\n");
    expect(allAtOncePrompt(c, false)).not.toContain("correct answer");
  });
  test("Step-by-Step at step t sends steps 0..t only", () => {
    const p = stepByStepPrompt(c, 2, false);
    expect(p).toContain("Step 2 - Orchestrator (-> Assistant): Compute 6 x 7.");
    expect(p).not.toContain("Step 3 -");
    expect(p).toContain("The current step is step 2, written by Orchestrator (-> Assistant).");
  });
  test("Binary Search names the two halves", () => {
    const p = binarySearchPrompt(c, 0, 4, 2, true);
    expect(p).toContain("upper half (steps 0 to 2)");
    expect(p).toContain("lower half (steps 3 to 4)");
    expect(p).toContain("The correct answer to the problem is: 42");
  });
});

describe("reply parsing", () => {
  test("All-at-Once: agent, step, reason; Markdown emphasis ignored; missing fields named", () => {
    expect(parseAllAtOnce("**Agent Name:** Assistant\n**Step Number:** 3\n**Reason:** wrong product")).toEqual({ agent: "Assistant", step: 3, reason: "wrong product", error: null });
    expect(parseAllAtOnce("Agent Name: WebSurfer\nStep Number: step 12")).toMatchObject({ agent: "WebSurfer", step: 12 });
    expect(parseAllAtOnce("I cannot tell.")).toEqual({ agent: null, step: null, reason: null, error: "no Agent Name and no Step Number in the reply" });
  });
  test("Step-by-Step: 1. Yes / 1. No / bare words; anything else unreadable", () => {
    expect(parseStepVerdict("1. Yes.\n2. Reason: x")).toBe("yes");
    expect(parseStepVerdict("1. No\n2. Reason: fine")).toBe("no");
    expect(parseStepVerdict("**No**, this is fine")).toBe("no");
    expect(parseStepVerdict("Maybe")).toBeNull();
  });
  test("Binary Search: one half named, or ambiguous", () => {
    expect(parseHalf("Lower half.")).toBe("lower");
    expect(parseHalf("upper half")).toBe("upper");
    expect(parseHalf("either the upper half or the lower half")).toBeNull();
  });
});

describe("attributors on the hand-made log (scripted model)", () => {
  const c = handCase();
  test("All-at-Once: one call, the model's agent and step, 110 tokens", async () => {
    const llm = scriptedLlm(["Agent Name: Assistant\nStep Number: 3\nReason: 6 x 7 is 42"]);
    const a = await ATTRIBUTORS["all-at-once"].attribute(c, { llm, withGroundTruth: true, seed: 1 });
    expect(a).toEqual({ agent: "Assistant", step: 3, reason: "6 x 7 is 42", calls: 1, httpCalls: 1, tokens: { prompt: 100, completion: 10 }, parseError: null });
    expect(llm.requests[0]).toEqual({ model: "scripted-model", temperature: 0, messages: [{ role: "system", content: expect.any(String) }, { role: "user", content: allAtOncePrompt(c, true) }] });
  });
  test("All-at-Once: a step past the log is no answer", async () => {
    const a = await ATTRIBUTORS["all-at-once"].attribute(c, { llm: scriptedLlm(["Agent Name: Assistant\nStep Number: 9"]), withGroundTruth: false, seed: 1 });
    expect(a.step).toBeNull();
    expect(a.parseError).toBe("Step Number 9 is past the last step 4");
  });
  test("Step-by-Step: stops at the first Yes (3 calls, 330 tokens), reports that step's author", async () => {
    const llm = scriptedLlm(["1. No", "1. No\n2. Reason: ok", "1. Yes\n2. Reason: the instruction is fine but…"]);
    const a = await ATTRIBUTORS["step-by-step"].attribute(c, { llm, withGroundTruth: false, seed: 1 });
    expect(a).toMatchObject({ agent: "Orchestrator (-> Assistant)", step: 2, calls: 3, httpCalls: 3, tokens: { prompt: 300, completion: 30 } });
    expect(llm.requests.map((r) => r.messages[1].content)).toEqual([0, 1, 2].map((t) => stepByStepPrompt(c, t, false)));
  });
  test("Step-by-Step: no Yes → no answer after one call per step", async () => {
    const a = await ATTRIBUTORS["step-by-step"].attribute(c, { llm: scriptedLlm(["No", "No", "??", "No", "No"]), withGroundTruth: false, seed: 1 });
    expect(a).toMatchObject({ agent: null, step: null, calls: 5, parseError: "no step was judged the decisive error (1 unreadable replies)" });
  });
  test("Binary Search: 0..4 → lower (3..4) → upper (3) = step 3 by Assistant, 2 calls", async () => {
    const llm = scriptedLlm(["lower half", "upper half"]);
    const a = await ATTRIBUTORS["binary-search"].attribute(c, { llm, withGroundTruth: true, seed: 1 });
    expect(a).toMatchObject({ agent: "Assistant", step: 3, calls: 2, tokens: { prompt: 200, completion: 20 }, reason: null });
    expect(llm.requests.map((r) => r.messages[1].content)).toEqual([binarySearchPrompt(c, 0, 4, 2, true), binarySearchPrompt(c, 3, 4, 3, true)]);
  });
  test("Binary Search: an ambiguous reply flips the seeded coin (same seed, same path)", async () => {
    const run = (seed: number) => ATTRIBUTORS["binary-search"].attribute(c, { llm: scriptedLlm(["hmm", "hmm", "hmm"]), withGroundTruth: false, seed });
    const a = await run(7);
    expect(await run(7)).toEqual(a);
    expect(a.reason).toMatch(/ambiguous replies decided by a seeded coin/);
  });
  test("a cached reply counts as a call, not an HTTP call, and keeps its tokens", async () => {
    const a = await ATTRIBUTORS["all-at-once"].attribute(c, { llm: scriptedLlm(["Agent Name: Assistant\nStep Number: 3"], true), withGroundTruth: true, seed: 1 });
    expect(a).toMatchObject({ calls: 1, httpCalls: 0, tokens: { prompt: 100, completion: 10 } });
  });
  test("Last: the last step; Random: seeded, within the log; rules: no LLM", async () => {
    expect(await ATTRIBUTORS.last.attribute(c, { withGroundTruth: false, seed: 1 })).toMatchObject({ agent: "Orchestrator (termination condition)", step: 4, calls: 0 });
    const r = await ATTRIBUTORS.random.attribute(c, { withGroundTruth: false, seed: 1 });
    expect(r.step).toBeGreaterThanOrEqual(0);
    expect(r.step).toBeLessThan(5);
    expect(await ATTRIBUTORS.random.attribute(c, { withGroundTruth: false, seed: 1 })).toEqual(r);
    expect((await ATTRIBUTORS.rules.attribute(c, { withGroundTruth: false, seed: 1 })).calls).toBe(0);
  });
  test("an LLM attributor without an endpoint is an error", async () => {
    await expect(ATTRIBUTORS["all-at-once"].attribute(c, { withGroundTruth: false, seed: 1 })).rejects.toThrow(/needs an LLM endpoint/);
  });
});

describe("the table's arithmetic", () => {
  const base = { attributor: "all-at-once" as const, groundTruth: "with" as const, subset: "Hand-Crafted" as const, reference: { agent: "Assistant", step: 10 }, error: null };
  const done = (caseId: string, agent: string | null, step: number | null, calls = 1): CaseResult => ({ ...base, caseId, status: "done", attribution: { agent, step, reason: null, calls, httpCalls: calls, tokens: { prompt: 100 * calls, completion: 10 * calls }, parseError: null } });
  const results: CaseResult[] = [
    done("a", "Assistant", 10), // exact
    done("b", "Assistant (x)", 11), // ±1
    done("c", "WebSurfer", 7, 3), // ±3
    done("d", "WebSurfer", 16), // ±6: miss everywhere
    done("e", null, null), // no answer: a miss
    { ...base, caseId: "f", status: "error", attribution: null, error: "HTTP 500" },
    { ...base, caseId: "g", status: "not-run", attribution: null, error: "budget reached" },
    { ...base, subset: "Algorithm-Generated", caseId: "h", status: "done", attribution: { agent: "Assistant", step: 10, reason: null, calls: 2, httpCalls: 0, tokens: { prompt: 7, completion: 3 }, parseError: null } },
  ];
  const rows = buildTable(results);
  test("one row per subset, never pooled; errors and not-run outside the denominator", () => {
    expect(rows.map((r) => [r.subset, r.cases, r.done, r.errors, r.notRun])).toEqual([
      ["Hand-Crafted", 7, 5, 1, 1],
      ["Algorithm-Generated", 1, 1, 0, 0],
    ]);
  });
  test("agent 2/5, step exact 1/5, ±1 2/5, ±2 2/5, ±3 3/5, ±5 3/5 with Wilson intervals", () => {
    const hc = rows[0];
    expect(hc.agent).toMatchObject({ x: 2, n: 5, rate: 0.4 });
    expect(hc.agent.ci95![0]).toBeCloseTo(0.11762077423264783, 12);
    expect(hc.agent.ci95![1]).toBeCloseTo(0.769275718723987, 12);
    expect([0, 1, 2, 3, 5].map((k) => hc.step[k as 0].x)).toEqual([1, 2, 2, 3, 3]);
    expect(hc.step[0].ci95![0]).toBeCloseTo(0.03622410863243014, 12);
    expect(hc.step[0].ci95![1]).toBeCloseTo(0.6244653702374747, 12);
    expect(hc.step[3].ci95![1]).toBeCloseTo(0.882379225767352, 12);
  });
  test("tokens and calls per finished case; published figure beside", () => {
    const hc = rows[0];
    expect(hc.calls).toBe(7);
    expect(hc.callsPerCase).toBeCloseTo(7 / 5, 12);
    expect(hc.tokens).toBe(770);
    expect(hc.tokensPerCase).toBeCloseTo(154, 12);
    expect(hc.published).toMatchObject({ agent: 55.17, step: 5.26 });
    expect(rows[1]).toMatchObject({ tokens: 10, httpCalls: 0, calls: 2, published: { agent: 54.33, step: 12.5 } });
  });
  test("CSV: header + one line per row, CRLF, fractions", () => {
    const lines = tableCsv(rows).split("\r\n");
    expect(lines).toHaveLength(4);
    const head = lines[0].split(",");
    const hc = Object.fromEntries(lines[1].split(",").map((v, i) => [head[i], v]));
    expect(hc).toMatchObject({ attributor: "all-at-once", ground_truth: "with", subset: "Hand-Crafted", done: "5", agent_hits: "2", agent_rate: "0.4", step_exact_hits: "1", step_pm3_hits: "3", tokens_per_case: "154", published_agent_pct: "55.17" });
  });
});

describe("the LLM annotator's reply", () => {
  const c = handCase();
  test("becomes protocol fields; a quote not in its step is dropped", () => {
    expect(annotatorPrompt(c)).not.toContain("42");
    const m = parseAnnotatorReply(c, 'Here: {"categories": ["c4", "C1"], "primary": "C4", "step": 3, "confidence": "Medium", "rationale": "wrong product", "evidence": [{"step": 3, "quote": "6 x 7 = 48"}, {"step": 2, "quote": "not there"}]}');
    expect(m).toEqual({ fields: { categories: ["C1", "C4"], primary: "C4", nodeId: "msg_0003", nodeType: "agent_action", confidence: "medium", rationale: "wrong product", evidence: [{ nodeId: "msg_0003", quote: "6 x 7 = 48" }], correction: "" }, droppedQuotes: 1 });
  });
  test("unusable replies name the problem", () => {
    expect(() => parseAnnotatorReply(c, "no json")).toThrow(AnnotatorReplyError);
    expect(() => parseAnnotatorReply(c, '{"categories": ["C1"], "primary": "C2", "step": 1, "evidence": []}')).toThrow(/primary "C2" is not one of the categories C1/);
    expect(() => parseAnnotatorReply(c, '{"categories": ["C1"], "primary": "C1", "step": 7, "evidence": []}')).toThrow(/step 7 is not a step of the log \(0–4\)/);
    expect(() => parseAnnotatorReply(c, '{"categories": ["C1"], "primary": "C1", "step": 1, "evidence": [{"step": 1, "quote": "invented"}]}')).toThrow(/no evidence quote occurs/);
  });
});
