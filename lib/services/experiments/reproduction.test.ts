/**
 * The reproduction judge: the LLM judge against a LOCAL scripted OpenAI-compatible endpoint
 * (lib/testing/scripted-openai.ts; good, fenced and malformed replies; what the prompt holds and
 * what it must not), the strict verdict parser, and the command judge's env contract.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildBundle, type ReplayBundle } from "../../bundle";
import { REPRODUCTION_JUDGE_SYSTEM_PROMPT } from "../../experiments/prompts";
import { messageText, startScriptedOpenAI, type ScriptedOpenAI } from "../../testing/scripted-openai";
import { buildReproductionMessages, commandReproductionJudge, judgeReproduction, llmReproductionJudge, parseReproductionVerdict, renderTrajectory, type ReproductionInput } from "./reproduction";

const TASK = "What does entry to Hilltop Gardens cost for 2 adults and 3 children?";
const source: ReplayBundle = buildBundle({
  id: "src",
  task: { prompt: TASK, reference: { expected: "SECRET-EXPECTED-16" } },
  config: { mas: "workflow" },
  nodes: [
    { id: "task_0000", type: "message", agent: "User", label: "task", content: { role: "user", text: TASK } },
    { id: "tool_result_0001", type: "tool_result", content: { status: "failed", error: { type: "PageNotFound", message: "no page at 'hilltop-gardens-2019'" } } },
    { id: "final_result_0000", type: "final_result", content: { final: "I could not determine the answer." } },
  ],
  edges: [],
});
// An attempt of a task-level method: its task node holds the CHANGED task; an llm_call holds the request metadata.
const attemptBundle: ReplayBundle = buildBundle({
  id: "att",
  task: { prompt: "Mode: critic-agent\nTask: ...\nCritic feedback: look for a family ticket" },
  config: {},
  nodes: [
    { id: "task_0000", type: "message", agent: "User", label: "task", content: { role: "user", text: "Mode: critic-agent\nTask: ...\nCritic feedback: look for a family ticket" } },
    { id: "llm_call_0000", type: "llm_call", content: { model: "m", messageCount: 2, requestHash: "sha256:00", finishReason: "stop" } },
    { id: "agent_action_0000", type: "agent_action", agent: "Researcher", content: { role: "assistant", content: "Fetching hilltop-gardens-2019 again." } },
    { id: "tool_result_0000", type: "tool_result", status: "error", content: { status: "failed", error: { type: "PageNotFound", message: "no page at 'hilltop-gardens-2019'" } } },
    { id: "final_result_0000", type: "final_result", content: { final: "I could not determine the answer." } },
  ],
  edges: [],
});
const input = (o: Partial<ReproductionInput> = {}): ReproductionInput => ({
  attempt: attemptBundle,
  source,
  task: TASK,
  reference: { nodeId: "tool_result_0001", primaryCategory: "C3", categories: ["C3", "C4"], rationale: "The price page could not be fetched." },
  ...o,
});

let judge: ScriptedOpenAI;
let reply = "";
beforeAll(async () => {
  judge = await startScriptedOpenAI({ respond: () => ({ content: reply }) });
});
afterAll(() => judge?.close());

describe("LLM reproduction judge (local scripted OpenAI-compatible endpoint)", () => {
  test("a good verdict: parsed, the call and its tokens counted; the prompt is method-blinded", async () => {
    reply = JSON.stringify({ reproduced: true, category: "C3", nodeId: "tool_result_0000", reason: "The same page fetch fails with PageNotFound." });
    const before = judge.requests.length;
    const v = await llmReproductionJudge(judge.url, "judge-model", input());
    expect(v).toMatchObject({ reproduced: true, category: "C3", nodeId: "tool_result_0000", reason: "The same page fetch fails with PageNotFound.", judgeCalls: 1 });
    expect(v.judgeTokens.total).toBeGreaterThan(0);
    const req = judge.requests.slice(before);
    expect(req.length).toBe(1);
    expect(req[0].model).toBe("judge-model");
    expect(req[0].temperature).toBe(0);
    expect(messageText(req[0].messages[0])).toBe(REPRODUCTION_JUDGE_SYSTEM_PROMPT);
    const user = messageText(req[0].messages[1]);
    expect(user).toContain(`Task: ${TASK}`);
    expect(user).toContain("- failure node: tool_result_0001 (tool_result)");
    expect(user).toContain("- primary category: C3 (Unresolved runtime condition:");
    expect(user).toContain("; also: C4");
    expect(user).toContain("- rationale: The price page could not be fetched.");
    expect(user).toContain("[tool_result_0000] tool_result status=error: ");
    expect(user).toContain("[agent_action_0000] agent_action (Researcher): Fetching hilltop-gardens-2019 again.");
    // Blinding: no method, no changed task, no request metadata, no evaluator-only reference.
    for (const leak of ["critic", "Mode:", "family ticket", "llm_call_0000", "SECRET-EXPECTED-16"]) expect(user).not.toContain(leak);
    expect(user).toContain("[task_0000] message (User): (the task above)");
  });

  test("a fenced JSON verdict is accepted; a malformed reply gives reproduced null with the problem named", async () => {
    reply = '```json\n{"reproduced": false, "category": null, "nodeId": null, "reason": "The run answered correctly."}\n```';
    expect(await llmReproductionJudge(judge.url, null, input())).toMatchObject({ reproduced: false, category: null, nodeId: null, reason: "The run answered correctly.", judgeCalls: 1 });
    reply = "Yes, it reproduces the failure.";
    const bad = await llmReproductionJudge(judge.url, null, input());
    expect(bad).toMatchObject({ reproduced: null, judgeCalls: 1, reason: 'reproduction judge reply is not one JSON object: "Yes, it reproduces the failure."' });
    reply = JSON.stringify({ reproduced: "yes", category: "C3", nodeId: null, reason: "r" });
    expect((await llmReproductionJudge(judge.url, null, input())).reason).toBe('reproduction judge reply: $.reproduced must be true or false, got "yes"');
  });

  test("no reference: no call, reproduced null; an unreachable judge: reproduced null naming the endpoint", async () => {
    const before = judge.requests.length;
    expect(await llmReproductionJudge(judge.url, null, input({ reference: null }))).toMatchObject({ reproduced: null, judgeCalls: 0, reason: expect.stringContaining("no reference label") });
    expect(judge.requests.length).toBe(before);
    const v = await judgeReproduction({ kind: "llm", upstream: "http://127.0.0.1:9/v1", model: null }, input());
    expect(v).toMatchObject({ reproduced: null, reason: expect.stringMatching(/^reproduction judge: http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions unreachable/) });
    expect(await judgeReproduction(null, input())).toBeNull();
  });
});

describe("parseReproductionVerdict", () => {
  test("strict shape, each problem named by its JSON path", () => {
    expect(parseReproductionVerdict('{"reproduced":true,"category":"C2","nodeId":"n1","reason":" same loop ","extra":1}')).toEqual({ reproduced: true, category: "C2", nodeId: "n1", reason: "same loop" });
    expect(() => parseReproductionVerdict("[1]")).toThrow("reproduction judge reply is not a JSON object");
    expect(() => parseReproductionVerdict('{"reproduced":true,"category":"C5","nodeId":null,"reason":"r"}')).toThrow('$.category must be "C1", "C2", "C3", "C4" or null, got "C5"');
    expect(() => parseReproductionVerdict('{"reproduced":true,"category":null,"nodeId":3,"reason":"r"}')).toThrow("$.nodeId must be a string or null, got 3");
    expect(() => parseReproductionVerdict('{"reproduced":true,"category":null,"nodeId":null,"reason":""}')).toThrow('$.reason must be a non-empty string, got ""');
  });

  test("renderTrajectory leaves out request metadata and keeps long trajectories bounded", () => {
    expect(renderTrajectory(attemptBundle).split("\n")).toEqual([
      "[task_0000] message (User): (the task above)",
      "[agent_action_0000] agent_action (Researcher): Fetching hilltop-gardens-2019 again.",
      `[tool_result_0000] tool_result status=error: {"error":{"message":"no page at 'hilltop-gardens-2019'","type":"PageNotFound"},"status":"failed"}`,
      "[final_result_0000] final_result: I could not determine the answer.",
    ]);
    const many = buildBundle({ id: "many", task: { prompt: "t" }, config: {}, nodes: Array.from({ length: 200 }, (_, i) => ({ id: `message_${String(i).padStart(4, "0")}`, type: "message" as const, content: { text: `m${i} ${"x".repeat(1000)}` } })), edges: [] });
    const lines = renderTrajectory(many).split("\n");
    expect(lines.length).toBe(161);
    expect(lines[20]).toBe("… 40 events left out …");
    expect(lines[21].startsWith("[message_0060] message: m60 ")).toBe(true);
    expect(Array.from(lines[0].split(": ")[1]).length).toBe(800);
  });

  test("buildReproductionMessages needs a reference", () => {
    expect(() => buildReproductionMessages(input({ reference: null }))).toThrow("the LLM reproduction judge needs a reference (node and category)");
  });
});

describe("command reproduction judge (evaluator contract + SYMTRACE_SOURCE_BUNDLE, SYMTRACE_REFERENCE)", () => {
  const script = (body: string) => `node -e '${body}'`;
  test("exit 0 = reproduced, 1 = not; the original task, the source bundle and the reference reach it", async () => {
    const cmd = script(
      'const fs=require("fs");const s=JSON.parse(fs.readFileSync(process.env.SYMTRACE_SOURCE_BUNDLE,"utf8"));const r=JSON.parse(process.env.SYMTRACE_REFERENCE);const a=JSON.parse(fs.readFileSync(process.env.SYMTRACE_BUNDLE,"utf8"));console.log(JSON.stringify({reason:[s.id,r.nodeId,r.primaryCategory,a.id,process.env.SYMTRACE_TASK].join("|")}));process.exit(JSON.parse(process.env.SYMTRACE_FINAL).final.includes("could not")?0:1)',
    );
    const v = await commandReproductionJudge(cmd, input());
    expect(v).toEqual({ reproduced: true, category: null, nodeId: null, reason: `src|tool_result_0001|C3|att|${TASK}`, judgeCalls: 0, judgeTokens: { prompt: 0, completion: 0, total: 0 } });
    const fixed = buildBundle({ id: "ok", task: { prompt: TASK }, config: {}, nodes: [{ id: "final_result_0000", type: "final_result", content: { final: "€16.00" } }], edges: [] });
    expect((await commandReproductionJudge(cmd, input({ attempt: fixed }))).reproduced).toBe(false);
    // No reference: SYMTRACE_REFERENCE is the JSON null.
    expect((await commandReproductionJudge(script('process.exit(process.env.SYMTRACE_REFERENCE==="null"?0:1)'), input({ reference: null }))).reproduced).toBe(true);
  });

  test("any other exit: unknown, with the command's reason", async () => {
    const v = await judgeReproduction({ kind: "command", command: script('console.log(JSON.stringify({error:"no reference for this task"}));process.exit(4)') }, input());
    expect(v).toMatchObject({ reproduced: null, reason: "evaluator exited with 4: no reference for this task" });
  });
});
