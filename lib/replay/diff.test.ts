import { describe, expect, test } from "vitest";
import { describeDiff, pointerDiff } from "./diff";

describe("describeDiff", () => {
  test("short values are shown whole", () => {
    expect(describeDiff(pointerDiff({ t: 0 }, { t: 0.5 }))).toBe("/t: expected 0 got 0.5");
  });
  test("two long texts that differ late: both clipped to a window around the first difference, so the changed words show", () => {
    const head = "You are the Research Agent. Use the lookup_population tool ";
    const msg = describeDiff(pointerDiff({ i: head + "once and answer briefly." }, { i: head + "twice and answer in detail." }));
    expect(msg).toContain("once and answer");
    expect(msg).toContain("twice and answer");
    expect(msg).toMatch(/^\/i: expected "?…/);
  });
  test("a long text that differs early is clipped at its end only", () => {
    const tail = " and then a long common tail that goes on for quite a while, past the clip width.";
    expect(describeDiff(pointerDiff({ i: "Alpha" + tail }, { i: "Bravo" + tail }))).toMatch(/^\/i: expected "Alpha and then [^"]*… got "Bravo and then [^"]*…$/);
  });
});
