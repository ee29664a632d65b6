import { describe, expect, test } from "vitest";
import { DEFAULT_MARS_SETTINGS, marsSettingsLine, resolveMarsSettings } from "./mars";

describe("MARS experiment settings (issue 15 item 5)", () => {
  test("defaults are the paper's (seeds/002): N_iter 75, K 3, L 4, D_max 8, C 1.41, no caps, the experiment's endpoint", () => {
    expect(resolveMarsSettings(null)).toEqual({ iterations: 75, k: 3, l: 4, maxDepth: 8, c: 1.41, maxCalls: null, maxTokens: null, selector: null, judge: null });
    expect(resolveMarsSettings({})).toEqual(DEFAULT_MARS_SETTINGS);
  });
  test("overrides are kept, undefined fields take the default, judge/selector normalized", () => {
    expect(resolveMarsSettings({ iterations: 8, maxCalls: 500, judge: { kind: "command", command: "node j.mjs" }, selector: { upstream: "http://x/v1", model: null }, k: undefined })).toEqual({
      ...DEFAULT_MARS_SETTINGS,
      iterations: 8,
      maxCalls: 500,
      judge: { kind: "command", command: "node j.mjs" },
      selector: { upstream: "http://x/v1", model: null },
    });
  });
  test.each([
    [{ iterations: 0 }, "$.settings.mars.iterations must be a positive integer"],
    [{ k: 2.5 }, "$.settings.mars.k must be a positive integer"],
    [{ c: -1 }, "$.settings.mars.c must be a finite number"],
    [{ maxTokens: 0 }, "$.settings.mars.maxTokens must be a positive integer or null"],
    [{ selector: { upstream: "ftp://x", model: null } }, "$.settings.mars.selector.upstream must be an http(s) URL"],
    [{ judge: { kind: "command", command: " " } }, "$.settings.mars.judge.command must be a non-empty command"],
    [{ judge: { kind: "oracle" } }, '$.settings.mars.judge.kind must be "llm" or "command"'],
  ])("%j is rejected naming the field", (p, msg) => {
    expect(() => resolveMarsSettings(p as never)).toThrow(msg);
  });
  test("one line for the settings table", () => {
    expect(marsSettingsLine(resolveMarsSettings({ iterations: 8, judge: { kind: "command", command: "node j.mjs" } }))).toBe(
      "N_iter 8, K 3, L 4, D_max 8, C 1.41, max calls none, max tokens none; selector via the experiment endpoint; judge command: node j.mjs",
    );
  });
});
