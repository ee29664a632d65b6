import { describe, expect, test } from "vitest";
import { formatDurationNs } from "./duration";

describe("formatDurationNs", () => {
  test.each([
    [0n, "0 ns"],
    [110n, "110 ns"],
    [999n, "999 ns"],
    [1_000n, "1 µs"],
    [1_500n, "1.5 µs"],
    [2_345_678n, "2.346 ms"],
    [999_999_999n, "1000 ms"],
    [1_000_000_000n, "1 s"],
    [75_250_000_000n, "75.25 s"],
    ["110", "110 ns"],
    ["9007199254740993123", "9007199254.741 s"],
    [-3n, "-3 ns"],
    [42, "42 ns"],
  ])("%s ns -> %s", (ns, text) => {
    expect(formatDurationNs(ns)).toBe(text);
  });

  test("not an integer gives ?", () => {
    expect(formatDurationNs("1.5")).toBe("?");
    expect(formatDurationNs(1.5)).toBe("?");
  });
});
