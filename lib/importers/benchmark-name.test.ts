import { describe, expect, test } from "vitest";
import { benchmarkKey, canonicalBenchmark } from "./benchmark-name";

describe("benchmark names: one canonical form per benchmark", () => {
  test.each([
    ["AssistantBench", "AssistantBench"],
    ["assistantbench", "AssistantBench"],
    ["assistant_bench", "AssistantBench"],
    [" Assistant-Bench ", "AssistantBench"],
    ["gaia", "GAIA"],
    ["GSM-Plus", "GSM-Plus"],
    ["gsmplus", "GSM-Plus"],
    ["swe_bench_lite", "SWE-bench Lite"],
    ["webarena", "WebArena"],
  ])("%j → %j (known benchmark)", (input, out) => {
    expect(canonicalBenchmark(input)).toBe(out);
  });

  test("an unknown benchmark keeps the first-seen form; other spellings map onto it", () => {
    expect(canonicalBenchmark("MyBench-2")).toBe("MyBench-2");
    expect(canonicalBenchmark("mybench_2", ["Other", "MyBench-2"])).toBe("MyBench-2");
    expect(canonicalBenchmark("my bench 2", ["MyBench-2"])).toBe("MyBench-2");
    expect(canonicalBenchmark("MyBench-3", ["MyBench-2"])).toBe("MyBench-3");
  });

  test("blank and missing names are null; keys ignore case, spaces, _ - .", () => {
    expect(canonicalBenchmark(null)).toBeNull();
    expect(canonicalBenchmark("   ")).toBeNull();
    expect(benchmarkKey("SWE-bench Lite")).toBe("swebenchlite");
    expect(benchmarkKey("GSM_Plus")).toBe(benchmarkKey("gsm-plus"));
  });
});
