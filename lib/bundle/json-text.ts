/**
 * Parsing bundle files as text, with errors that say where (line and column) instead of a
 * stack trace. Tolerates a leading UTF-8 BOM.
 */

export class JsonTextError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
    readonly column: number | null,
  ) {
    super(message);
    this.name = "JsonTextError";
  }
}

/**
 * Parse JSON text.
 * @param text the file's text
 * @param opts.allowNaN map bare `NaN`, `Infinity`, `-Infinity` literals outside strings to null
 *   (real datasets such as MAD contain them; JSON.parse rejects them)
 * @returns the parsed value
 * @throws JsonTextError naming line and column of the first syntax error, or "empty file"
 */
export function parseJsonText(text: string, opts: { allowNaN?: boolean } = {}): unknown {
  const original = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (original.trim() === "") throw new JsonTextError("empty file: no JSON value", 1, 1);
  const src = opts.allowNaN ? replaceNonFiniteLiterals(original) : original;
  try {
    return JSON.parse(src);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    // Locate the fault in the text as the user wrote it (before NaN -> null rewriting). V8 gives
    // no position for some errors ("Unexpected token 'x', ... is not valid JSON"), and its
    // positions refer to the rewritten text, so scan the original ourselves.
    let p = locateJsonSyntaxError(original, !!opts.allowNaN);
    if (p === null) {
      const pos = /position (\d+)/.exec(msg);
      p = pos && src === original ? Number(pos[1]) : null;
    }
    if (p !== null && p < original.length) {
      const { line, column } = lineColumn(original, p);
      throw new JsonTextError(`invalid JSON at line ${line}, column ${column}: ${msg}`, line, column);
    }
    // The error is at the end of the input: the file is truncated.
    const { line, column } = lineColumn(original, original.length);
    throw new JsonTextError(
      `invalid JSON (truncated?) at end of input, line ${line}, column ${column}: ${msg}`,
      line,
      column,
    );
  }
}

/** 1-based line and column of character offset `p` in `text`. */
function lineColumn(text: string, p: number): { line: number; column: number } {
  const before = text.slice(0, p);
  return { line: before.split("\n").length, column: p - before.lastIndexOf("\n") };
}

/**
 * Offset of the first JSON syntax error in `text` (RFC 8259 grammar; with `allowNaN` also the
 * bare literals NaN, Infinity, -Infinity), `text.length` when the input ends early, or null when
 * the scanner finds no error (or the nesting is too deep to scan).
 */
function locateJsonSyntaxError(text: string, allowNaN: boolean): number | null {
  const n = text.length;
  let i = 0;
  const ws = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const lit = (word: string): boolean => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return true;
    }
    // a prefix of the word up to the end of input means truncation
    for (let k = 0; k < word.length; k++) {
      if (i + k >= n) {
        i = n;
        return false;
      }
      if (text[i + k] !== word[k]) {
        i += k;
        return false;
      }
    }
    return false;
  };
  const digits = (): boolean => {
    const s = i;
    while (i < n && text[i] >= "0" && text[i] <= "9") i++;
    return i > s;
  };
  // Each function returns true on success, false with `i` at the error offset.
  const string = (): boolean => {
    i++; // opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) {
          i = n;
          return false;
        }
        if (e === "u") {
          for (let k = 2; k < 6; k++) {
            if (i + k >= n) {
              i = n;
              return false;
            }
            if (!/[0-9a-fA-F]/.test(text[i + k])) {
              i += k;
              return false;
            }
          }
          i += 6;
        } else if ('"\\/bfnrt'.includes(e)) i += 2;
        else {
          i += 1;
          return false;
        }
        continue;
      }
      i++;
    }
    return false;
  };
  const number = (): boolean => {
    if (text[i] === "-") {
      i++;
      if (allowNaN && text[i] === "I") return lit("Infinity");
    }
    if (text[i] === "0") i++;
    else if (!digits()) return false;
    if (text[i] === ".") {
      i++;
      if (!digits()) return false;
    }
    if (text[i] === "e" || text[i] === "E") {
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!digits()) return false;
    }
    return true;
  };
  const value = (depth: number): boolean => {
    if (depth > 5000) throw new RangeError("too deep");
    ws();
    if (i >= n) return false;
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return true;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') return false;
        if (!string()) return false;
        ws();
        if (text[i] !== ":") return false;
        i++;
        if (!value(depth + 1)) return false;
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return true;
        }
        return false;
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return true;
      }
      for (;;) {
        if (!value(depth + 1)) return false;
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return true;
        }
        return false;
      }
    }
    if (c === '"') return string();
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    if (c === "t") return lit("true");
    if (c === "f") return lit("false");
    if (c === "n") return lit("null");
    if (allowNaN && c === "N") return lit("NaN");
    if (allowNaN && c === "I") return lit("Infinity");
    return false;
  };
  try {
    if (!value(0)) return Math.min(i, n);
    ws();
    return i < n ? i : null;
  } catch {
    return null;
  }
}

/** Replace NaN / Infinity / -Infinity tokens that stand outside string literals with null. */
export function replaceNonFiniteLiterals(src: string): string {
  if (!/NaN|Infinity/.test(src)) return src;
  let out = "";
  let i = 0;
  let last = 0;
  const n = src.length;
  while (i < n) {
    const ch = src[i];
    if (ch === '"') {
      i++;
      while (i < n && src[i] !== '"') i += src[i] === "\\" ? 2 : 1;
      i++;
      continue;
    }
    if (ch === "N" && src.startsWith("NaN", i)) {
      out += src.slice(last, i) + "null";
      i += 3;
      last = i;
      continue;
    }
    if (ch === "-" && src.startsWith("-Infinity", i)) {
      out += src.slice(last, i) + "null";
      i += 9;
      last = i;
      continue;
    }
    if (ch === "I" && src.startsWith("Infinity", i)) {
      out += src.slice(last, i) + "null";
      i += 8;
      last = i;
      continue;
    }
    i++;
  }
  return out + src.slice(last);
}
