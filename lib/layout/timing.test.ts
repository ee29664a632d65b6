import { describe, expect, test } from "vitest";
import { nodeTimingOf, startNsOf, timingCells, tokensOf, traceStartNs } from "./timing";

describe("timeline timing extracted from node content", () => {
  test.each([
    ["1700000000000000007", "1700000000000000007"],
    ["2025-09-30T09:04:01.001Z", "1759223041001000000"],
    ["2025-09-30T09:04:01.001234567Z", "1759223041001234567"],
    ["2025-09-30T09:04:01Z", "1759223041000000000"],
    ["yesterday", null],
    [null, null],
  ])("start %j → %j ns", (v, ns) => {
    expect(startNsOf(v)).toBe(ns);
  });

  test.each([
    [{ input: 85, output: 29, total: 114, "prompt_details.cache_read": 0 }, { input: 85, output: 29, total: 114 }],
    [{ prompt_tokens: 10, completion_tokens: 5 }, { input: 10, output: 5, total: 15 }],
    [{ total_tokens: 7 }, { total: 7 }],
    [{}, null],
    ["x", null],
  ])("usage %j → %j", (u, t) => {
    expect(tokensOf(u)).toEqual(t);
  });

  test("an OTel LLM span node: start, exact duration and tokens; a Who&When message: none", () => {
    const t = nodeTimingOf({ startTime: "1700000000000000007", durationNs: "110", usage: { input: 3, output: 4, total: 7 }, text: "hi" });
    expect(t).toEqual({ startNs: "1700000000000000007", durationNs: "110", tokens: { input: 3, output: 4, total: 7 } });
    expect(nodeTimingOf({ role: "user", name: null, text: "hi" })).toBeNull();
  });

  test("row cells: offset from the trace start, duration in the unit that fits, tokens", () => {
    const a = nodeTimingOf({ startTime: "2025-09-30T09:03:59.962Z", durationNs: "2190000000" })!;
    const b = nodeTimingOf({ startTime: "2025-09-30T09:04:01.001Z", durationNs: "1038000000", usage: { input: 85, output: 29, total: 114 } })!;
    const zero = traceStartNs([b, undefined, a]);
    expect(zero).toBe(a.startNs);
    expect(timingCells(a, zero)).toEqual({ start: "+0 ns", startTitle: "2025-09-30T09:03:59.962Z", duration: "2.19 s" });
    expect(timingCells(b, zero)).toEqual({
      start: "+1.039 s",
      startTitle: "2025-09-30T09:04:01.001Z",
      duration: "1.038 s",
      tokens: "114 tok",
      tokensTitle: "85 in · 29 out · 114 total",
    });
    expect(timingCells(undefined, zero)).toEqual({});
  });
});
