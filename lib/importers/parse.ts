/**
 * The first step of every importer: parse a file's text as JSON (BOM and NaN literals tolerated,
 * lib/bundle parseJsonText). A file that is not JSON becomes its one ImportFailure; the message
 * names line and column. Never throws.
 *
 * Also: lossless integers (integer literals beyond 2^53 become decimal strings, so an int64
 * attribute or a unix-nano time written as a JSON number keeps every digit) and the search for
 * a lone UTF-16 surrogate, so that an importer names the innermost path of text that cannot be
 * hashed (RFC 8785 rejects lone surrogates).
 */
import { parseJsonText } from "../bundle";
import type { ImportFileResult } from "./types";

/**
 * @param opts.allowNaN bare NaN/Infinity become null (default true)
 * @param opts.bigIntsAsStrings integer literals outside the safe range (|n| > 2^53 - 1) become
 *   decimal strings instead of losing digits (OTel: int64 attributes, unix-nano times)
 * @returns `{value}`, or `{result}` holding the one failure at `$` (line and column in the message)
 */
export function parseImportText(
  text: string,
  fileName: string,
  opts: { allowNaN?: boolean; bigIntsAsStrings?: boolean } = { allowNaN: true },
): { value: unknown } | { result: ImportFileResult } {
  const allowNaN = opts.allowNaN ?? true;
  if (opts.bigIntsAsStrings && BIG_DIGITS.test(text)) {
    try {
      return { value: parseJsonText(quoteUnsafeIntegers(text), { allowNaN }) };
    } catch {
      // fall through: report the error against the text as written
    }
  }
  try {
    return { value: parseJsonText(text, { allowNaN }) };
  } catch (e) {
    return { result: { cases: [], failures: [{ where: fileName, errors: [{ path: "$", message: e instanceof Error ? e.message : String(e) }] }] } };
  }
}

const BIG_DIGITS = /\d{16}/;

/**
 * Rewrite JSON text so that every integer literal outside the safe range is a string literal
 * ("12345678901234567890"); text inside strings is untouched. Linear, no recursion.
 */
export function quoteUnsafeIntegers(text: string): string {
  let out = "";
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip a string literal
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) i++;
        else break;
      }
      const tok = text.slice(start, i);
      if (/^-?\d{16,}$/.test(tok) && !Number.isSafeInteger(Number(tok))) {
        out += text.slice(last, start) + `"${tok}"`;
        last = i;
      }
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * JSON.parse of an embedded JSON string (an attribute value, Langfuse `metadata`) keeping unsafe
 * integers as decimal strings. Throws like JSON.parse.
 */
export function parseJsonLossless(s: string): unknown {
  return JSON.parse(BIG_DIGITS.test(s) ? quoteUnsafeIntegers(s) : s);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** JSON path of member `key` below `base`: `$.a`, `$["a b"]`, `$[3]`. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key.replace(LONE_SURROGATE_G, "\uFFFD"))}]`;
}
const LONE_SURROGATE_G = new RegExp(LONE_SURROGATE.source, "g");

/**
 * The innermost JSON path of the first string (or object key) holding a lone UTF-16 surrogate,
 * which cannot be hashed (RFC 8785) nor stored as UTF-8. Iterative (any depth).
 * @returns `{path, message}` or null when the value is clean
 */
export function findLoneSurrogate(value: unknown, base = "$"): { path: string; message: string } | null {
  const stack: Array<[unknown, string]> = [[value, base]];
  while (stack.length > 0) {
    const [v, p] = stack.pop()!;
    if (typeof v === "string") {
      const m = LONE_SURROGATE.exec(v);
      if (m) {
        const code = v.charCodeAt(m.index).toString(16).toUpperCase();
        return { path: p, message: `text holds a lone UTF-16 surrogate (U+${code} at character ${m.index}); the file is not valid Unicode there: fix or re-export it` };
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], childPath(p, i)]);
    } else if (typeof v === "object" && v !== null) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        if (LONE_SURROGATE.test(k)) return { path: childPath(p, k), message: "an object key holds a lone UTF-16 surrogate; the file is not valid Unicode there" };
        stack.push([(v as Record<string, unknown>)[k], childPath(p, k)]);
      }
    }
  }
  return null;
}
