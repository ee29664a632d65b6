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
  let src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (src.trim() === "") throw new JsonTextError("empty file: no JSON value", 1, 1);
  if (opts.allowNaN) src = replaceNonFiniteLiterals(src);
  try {
    return JSON.parse(src);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(msg);
    if (pos) {
      const p = Number(pos[1]);
      const before = src.slice(0, p);
      const line = before.split("\n").length;
      const column = p - before.lastIndexOf("\n");
      throw new JsonTextError(`invalid JSON at line ${line}, column ${column}: ${msg}`, line, column);
    }
    // "Unexpected end of JSON input" carries no position: the file is truncated.
    const lines = src.split("\n");
    const line = lines.length;
    const column = (lines[lines.length - 1] ?? "").length + 1;
    throw new JsonTextError(
      `invalid JSON (truncated?) at end of input, line ${line}, column ${column}: ${msg}`,
      line,
      column,
    );
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
