/** Judge and selector reply parsing (seeds/002 appendix output formats) and the enforced caps. */
import { describe, expect, it } from "vitest";
import { JUDGE_SYSTEM_PROMPT, MAST_FAILURE_MODES, SELECTOR_TOOLS, capScore, parseJudgeReply, parseSelectorReply } from "./index";

describe("parseJudgeReply", () => {
  it("reads our JSON format, fenced or not", () => {
    const v = parseJudgeReply('```json\n{"found_solution": false, "detected_failure_mode": "FM 1.3", "reasoning": "loops on search_docs", "score": 0.15}\n```');
    expect(v).toEqual({ score: 0.15, failureMode: "FM 1.3", feedback: "loops on search_docs", foundSolution: false });
  });
  it("reads the command contract {score, failureMode, feedback}", () => {
    expect(parseJudgeReply('{"score": 0.8, "failureMode": "None", "feedback": "good progress"}')).toEqual({ score: 0.8, failureMode: "None", feedback: "good progress", foundSolution: false });
    expect(parseJudgeReply('{"score": 1, "failureMode": "None", "feedback": "verified"}')).toEqual({ score: 1, failureMode: "None", feedback: "verified", foundSolution: true });
  });
  it("reads the paper's four-line format", () => {
    const v = parseJudgeReply("Found_solution: true\nDetected_failure_mode: \"None\"\nReasoning: the price 12 EUR is quoted from fetch_page.\nIt matches.\nScore: 1.0");
    expect(v).toEqual({ score: 1, failureMode: "None", feedback: "the price 12 EUR is quoted from fetch_page.\nIt matches.", foundSolution: true });
  });
  it("caps 1.0 without a found solution to 0.9 and FM 3.3 to 0.3", () => {
    expect(parseJudgeReply('{"found_solution": false, "detected_failure_mode": "None", "reasoning": "", "score": 1}').score).toBe(0.9);
    expect(parseJudgeReply('{"found_solution": true, "detected_failure_mode": "FM 3.3", "reasoning": "", "score": 0.9}').score).toBe(0.3);
    expect(capScore({ score: 1.4, failureMode: "None", feedback: "", foundSolution: true }).score).toBe(1);
  });
  it("normalises failure modes", () => {
    expect(parseJudgeReply('{"detected_failure_mode": "fm3.2", "score": 0.4}').failureMode).toBe("FM 3.2");
    expect(parseJudgeReply('{"detected_failure_mode": "FM 9.9", "score": 0.4}').failureMode).toBe("Other");
  });
  it("rejects a reply without a usable score, naming it", () => {
    expect(() => parseJudgeReply('{"score": 1.7}')).toThrow(/\$\.score must be a number in \[0, 1\] \(got 1\.7\)/);
    expect(() => parseJudgeReply("I think it went well.")).toThrow(/neither a JSON object nor a "Score:" line: "I think it went well\."/);
    expect(() => parseJudgeReply("Score: high")).toThrow(/Score must be a number in \[0, 1\] \(got "high"\)/);
  });
});

describe("parseSelectorReply", () => {
  const call = (name: string, args: string) => [{ function: { name, arguments: args } }];
  it("reads the three tools", () => {
    expect(parseSelectorReply(call("rollback", '{"checkpoint": "n7", "guidance": "verify the price"}'))).toEqual({ kind: "rollback", checkpoint: "n7", guidance: "verify the price" });
    expect(parseSelectorReply(call("guided_repair", '{"guidance": "use the stored fix"}'))).toEqual({ kind: "guided_repair", guidance: "use the stored fix" });
    expect(parseSelectorReply(call("continuation", "{}"))).toEqual({ kind: "continuation" });
  });
  it("rejects anything but exactly one known call with valid arguments", () => {
    expect(() => parseSelectorReply([])).toThrow(/exactly one function, got 0/);
    expect(() => parseSelectorReply([...call("continuation", "{}"), ...call("continuation", "{}")])).toThrow(/got 2/);
    expect(() => parseSelectorReply(call("restart", "{}"))).toThrow(/unknown function "restart"/);
    expect(() => parseSelectorReply(call("rollback", '{"checkpoint": "n7"}'))).toThrow(/argument "guidance" must be a non-empty string/);
    expect(() => parseSelectorReply(call("rollback", "not json"))).toThrow(/arguments are not a JSON object: "not json"/);
  });
});

describe("prompts", () => {
  it("list the 14 MAST failure modes and exactly three selector tools", () => {
    expect(MAST_FAILURE_MODES).toHaveLength(14);
    for (const m of MAST_FAILURE_MODES) expect(JUDGE_SYSTEM_PROMPT).toContain(`${m.id} ${m.name}`);
    expect(JUDGE_SYSTEM_PROMPT).toContain("no greater than 0.3");
    expect(JUDGE_SYSTEM_PROMPT).toContain("Fresh-Start Awareness");
    expect(SELECTOR_TOOLS.map((t) => t.function.name)).toEqual(["rollback", "guided_repair", "continuation"]);
  });
});
