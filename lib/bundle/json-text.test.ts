/** parseJsonText: errors with line/column, empty files, BOM, NaN/Infinity literals. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { JsonTextError, parseJsonText, replaceNonFiniteLiterals } from "./index";

const SHARED = process.env.SYMTRACE_SHARED_DIR ?? path.resolve(import.meta.dirname, "../../../shared");
const goldText = (c: string) => readFileSync(path.join(SHARED, "fixtures/bundles", `gold-${c}.bundle.json`), "utf8");

/** The JsonTextError thrown by parseJsonText (fails the test when nothing or something else is thrown). */
function errorOf(text: string, opts?: { allowNaN?: boolean }): JsonTextError {
  try {
    parseJsonText(text, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonTextError);
    return e as JsonTextError;
  }
  throw new Error(`expected a JsonTextError for ${JSON.stringify(text.slice(0, 40))}`);
}

describe("truncated and broken JSON", () => {
  test.each(["c1", "c2", "c3", "c4"])("gold-%s cut in half: JsonTextError at the end, with its line number", (c) => {
    const full = goldText(c);
    const half = full.slice(0, Math.floor(full.length / 2));
    const lines = half.split("\n");
    const err = errorOf(half);
    expect(err.name).toBe("JsonTextError");
    expect(err.line).toBe(lines.length);
    expect(err.line).toBeGreaterThan(20);
    expect(err.column).toBe(lines[lines.length - 1].length + 1);
    expect(err.message).toContain(`line ${lines.length}`);
    expect(err.message).toMatch(/truncated/);
    // the full text parses
    expect(parseJsonText(full)).toEqual(JSON.parse(full));
  });

  test.each([
    // [name, line, column, text]
    ["trailing comma in object", 3, 1, '{\n  "a": 1,\n}'],
    ["missing colon", 2, 7, '{\n  "a" 1\n}'],
    ["bad literal (V8 gives no position)", 3, 11, '{\n  "ok": true,\n  "a": tru\n}'],
    ["unknown token at start (V8 gives no position)", 1, 1, "x"],
    ["trailing comma in array (V8 gives no position)", 3, 1, "[1,\n 2,\n]"],
    ["garbage after the value", 2, 1, '{"a": 1}\n}'],
    ["bad escape (points at the escaped character)", 2, 4, '["ok",\n "\\q"]'],
    ["raw control character in a string", 2, 3, '{"a":\n"x\ty"}'],
    ["leading zero", 2, 3, "[\n 01\n]"],
  ])("%s: line %i column %i", (_name, line, column, text) => {
    const err = errorOf(text);
    expect({ line: err.line, column: err.column }).toEqual({ line, column });
    expect(err.message).toContain(`line ${line}, column ${column}`);
    expect(err.message).not.toMatch(/truncated/);
  });

  test("the error column refers to the original text even after NaN literals were rewritten", () => {
    // NaN -> null makes the rewritten text longer; Infinity -> null shorter.
    const text = '{\n  "a": [NaN, NaN, -Infinity], "b": x\n}';
    const err = errorOf(text, { allowNaN: true });
    expect({ line: err.line, column: err.column }).toEqual({ line: 2, column: text.split("\n")[1].indexOf("x") + 1 });
  });

  test("CRLF line endings count as one line break", () => {
    const err = errorOf('{\r\n  "a": 1,\r\n  "b": ?\r\n}');
    expect(err.line).toBe(3);
    expect(err.column).toBe(8);
  });
});

describe("empty input and BOM", () => {
  test.each([
    ["empty string", ""],
    ["whitespace only", "  \n\t\r\n"],
    ["BOM only", "\ufeff"],
    ["BOM and newline", "\ufeff\n"],
  ])("%s: 'empty file' error at line 1", (_name, text) => {
    const err = errorOf(text);
    expect(err.message).toMatch(/^empty file/);
    expect({ line: err.line, column: err.column }).toEqual({ line: 1, column: 1 });
  });

  test("a leading BOM is ignored", () => {
    const text = goldText("c4");
    expect(parseJsonText("\ufeff" + text)).toEqual(JSON.parse(text));
    expect(parseJsonText('\ufeff{"a":"\ufeff"}')).toEqual({ a: "\ufeff" });
  });

  test("a BOM inside the text is not ignored", () => {
    expect(errorOf(' \ufeff{"a":1}').line).toBe(1);
  });
});

describe("NaN / Infinity literals (allowNaN)", () => {
  const text = '{"a": NaN, "b": [Infinity, -Infinity, 1e5, -2], "c": "NaN", "d": "x Infinity -Infinity y", "NaN": 1}';

  test("outside strings they become null; inside strings (values and keys) they stay", () => {
    expect(parseJsonText(text, { allowNaN: true })).toEqual({
      a: null,
      b: [null, null, 1e5, -2],
      c: "NaN",
      d: "x Infinity -Infinity y",
      NaN: 1,
    });
  });

  test("without allowNaN they are a syntax error at the literal", () => {
    const err = errorOf(text);
    expect({ line: err.line, column: err.column }).toEqual({ line: 1, column: 7 });
  });

  test.each([
    ["escaped quotes before the literal", '{"s": "say \\"NaN\\" \\"", "t": NaN}', { s: 'say "NaN" "', t: null }],
    ["escaped backslash right before the closing quote", '{"s": "c:\\\\", "n": NaN}', { s: "c:\\", n: null }],
    ["escaped backslash then escaped quote", '["\\\\\\"NaN", Infinity]', ['\\"NaN', null]],
    ["unicode escapes", '["\\u0022NaN\\u0022", -Infinity]', ['"NaN"', null]],
    ["literals at top level", "NaN", null],
    ["nested", '{"a": {"b": [[NaN]]}}', { a: { b: [[null]] } }],
  ])("%s", (_name, src, expected) => {
    expect(parseJsonText(src, { allowNaN: true })).toEqual(expected);
  });

  test("replaceNonFiniteLiterals returns the input unchanged when there is nothing to replace", () => {
    const t = goldText("c1");
    expect(replaceNonFiniteLiterals(t)).toBe(t);
    expect(replaceNonFiniteLiterals('["NaN", "Infinity"]')).toBe('["NaN", "Infinity"]');
    expect(replaceNonFiniteLiterals("[NaN,-Infinity,Infinity]")).toBe("[null,null,null]");
  });
});
