/**
 * Issue 22 item 1: the models shipped for trying MARS without a real endpoint — the demo stand-in
 * (lib/testing/standin.ts) and the calibrated world's scripted model (lib/testing/calibrated/policy.ts),
 * both LOCAL and scripted — answer the action selector with exactly one tool call and the judge with a
 * verdict the core reads, as a tool-calling model does (before: plain text, "selector must call
 * exactly one function, got 0" / "judge reply has neither a JSON object nor a Score: line").
 */
import { describe, expect, it } from "vitest";
import { JUDGE_SYSTEM_PROMPT, judgeUserMessage, parseJudgeReply, parseSelectorReply, SELECTOR_SYSTEM_PROMPT, SELECTOR_TOOLS, selectorUserMessage } from "../repair-search";
import { calibratedResponder } from "./calibrated/policy";
import { DEFAULT_TRUTH } from "./calibrated/truth";
import { isJudgeRequest, isSelectorRequest, LOOKUP_HINT, STANDIN_SELECTOR_HINT } from "./scripted-mars";
import type { ChatRequest, ScriptedReply } from "./scripted-openai";
import { standinRespond } from "./standin";

const TRAJ = "[task] What does entry cost?\n[checkpoint llm_call_0000] Orchestrator: plan\n[checkpoint llm_call_0002] WebSurfer: search\n[final answer] 42 EUR";
const selectorReq = (finished: boolean, stored: string | null): ChatRequest => ({
  model: "gpt-4o-mini",
  temperature: 0.7,
  tool_choice: "required",
  tools: SELECTOR_TOOLS as unknown as ChatRequest["tools"],
  messages: [
    { role: "system", content: SELECTOR_SYSTEM_PROMPT },
    { role: "user", content: selectorUserMessage(TRAJ, "none yet", stored, finished) },
  ],
});
const judgeReq = (trajectory: string): ChatRequest => ({
  model: "gpt-4o-mini",
  temperature: 0.2,
  messages: [
    { role: "system", content: JUDGE_SYSTEM_PROMPT },
    { role: "user", content: judgeUserMessage("What does entry cost?", trajectory) },
  ],
});
const calls = (r: ScriptedReply) => (r.toolCalls ?? []).map((c, i) => ({ id: `c${i}`, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));

describe.each([
  ["demo stand-in", (req: ChatRequest) => standinRespond(req, 0), STANDIN_SELECTOR_HINT, "Scripted stand-in judge"],
  ["calibrated world", calibratedResponder({ seed: 13, session: "t", truth: DEFAULT_TRUTH }), LOOKUP_HINT, "Scripted judge of the calibrated world"],
])("%s answers MARS calls like a tool-calling model", (_name, respond, hint, judgeLabel) => {
  it("selector: one tool call the core parses — rollback of a finished run, guided repair with stored guidance, else continuation", () => {
    expect(isSelectorRequest(selectorReq(true, null))).toBe(true);
    expect(parseSelectorReply(calls(respond(selectorReq(true, null))))).toEqual({ kind: "rollback", checkpoint: "llm_call_0002", guidance: hint });
    expect(parseSelectorReply(calls(respond(selectorReq(false, "fix it"))))).toEqual({ kind: "guided_repair", guidance: "" });
    expect(parseSelectorReply(calls(respond(selectorReq(false, null))))).toEqual({ kind: "continuation" });
  });
  it("judge: a verdict the core parses (0.6 / FM 3.2 for an ended run, 0.5 / None in progress), labelled scripted", () => {
    expect(isJudgeRequest(judgeReq(TRAJ))).toBe(true);
    const ended = parseJudgeReply(respond(judgeReq(TRAJ)).content ?? "");
    expect(ended).toMatchObject({ score: 0.6, failureMode: "FM 3.2", foundSolution: false });
    expect(ended.feedback.startsWith(judgeLabel)).toBe(true);
    expect(parseJudgeReply(respond(judgeReq("[checkpoint a] step")).content ?? "")).toMatchObject({ score: 0.5, failureMode: "None" });
  });
});
