import { describe, expect, test } from "vitest";
import { childPath, findLoneSurrogate, parseImportText, quoteUnsafeIntegers } from "./parse";

describe("quoteUnsafeIntegers", () => {
  test("quotes only integer literals beyond 2^53, never text inside strings", () => {
    const text = '{"a": 12345678901234567890, "b": "12345678901234567890 \\" 99999999999999999", "c": [-9007199254740993, 9007199254740991, 1.5e300, 12345678901234567.5]}';
    expect(JSON.parse(quoteUnsafeIntegers(text))).toEqual({
      a: "12345678901234567890",
      b: '12345678901234567890 " 99999999999999999',
      c: ["-9007199254740993", 9007199254740991, 1.5e300, 12345678901234567.5],
    });
    expect(quoteUnsafeIntegers('{"x": 1}')).toBe('{"x": 1}');
  });

  test("parseImportText keeps every digit only when asked; a syntax error is still located in the text as written", () => {
    const r = parseImportText('{"n": 1700000000123456789}', "f.json", { bigIntsAsStrings: true });
    expect(r).toEqual({ value: { n: "1700000000123456789" } });
    const bad = parseImportText('{"n": 1700000000123456789,', "f.json", { bigIntsAsStrings: true });
    expect("result" in bad && bad.result.failures[0].errors[0].message).toMatch(/line 1/);
  });
});

describe("findLoneSurrogate", () => {
  test("names the innermost path (arrays, odd keys) and ignores well-formed pairs", () => {
    expect(findLoneSurrogate({ a: ["ok 😀", { "b c": "x\udc00" }] })).toEqual({
      path: '$.a[1]["b c"]',
      message: expect.stringMatching(/U\+DC00 at character 1/),
    });
    expect(findLoneSurrogate({ a: "😀" })).toBeNull();
    expect(childPath("$", 3)).toBe("$[3]");
  });

  test("works on 100,000-deep nesting (no recursion)", () => {
    let v: unknown = "\ud800";
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(findLoneSurrogate(v)!.path).toBe("$" + "[0]".repeat(100_000));
  });
});
