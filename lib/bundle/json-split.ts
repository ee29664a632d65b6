/**
 * Fast streaming JSON reading for bundle files (issue 16 item 3): the same contract as
 * {@link readJsonStream} (a {@link JsonStreamHandler} chooses, value by value, what to walk into
 * and what to assemble whole), but an assembled value is not built token by token: its bytes are
 * delimited by a byte scanner (strings, escapes and bracket depth only) and handed to the
 * engine's native `JSON.parse`, which also does the full syntax check of that value. The
 * descended levels (a bundle's top-level object, `graph`, and the four big arrays) are parsed
 * here, strictly.
 *
 * Why: stream-json's tokenizer in JavaScript made a token object per key, string and number
 * and ran at ~4,000 bundle nodes per CPU-second, most of it tokenizing and garbage collection;
 * splitting and `JSON.parse` read the same file ~10x faster with far less garbage.
 *
 * Runs (issue 25 item 3): in an array whose handler promises `assemblesEach`, the elements from
 * the current one to a line feed (runs of about 64 KiB) are parsed with one `JSON.parse("[" + text + "]")`
 * when that text is exactly a run of whole elements (bundles are written one element per line);
 * otherwise the byte scanner goes on as before, so errors and their offsets do not change.
 *
 * Memory: one 1 MiB chunk plus the assembled value being delimited (a value spanning chunks
 * keeps those chunks until it ends). So use it where the handler assembles small parts only
 * (each node, edge, order entry, record): an assembled value must fit one JavaScript string
 * (~512 MB). `readJsonFileValue` (one value of the whole file) stays on stream-json.
 *
 * Values equal what `JSON.parse` gives (an own `__proto__` key included); invalid UTF-8 becomes
 * U+FFFD as with the stream-json reader. No `bigIntsAsStrings` option.
 */
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { JsonStreamError, type JsonKey, type JsonStreamHandler, type ReadJsonStreamOptions } from "./json-stream";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BOM = [0xef, 0xbb, 0xbf];

const enum Mode {
  /** Expect a value (root, after `:`, after `[` or `,` in an array). */
  Value,
  /** Expect a key string (after `{` or `,` in an object). */
  Key,
  /** Expect `:`. */
  Colon,
  /** Expect `,` or the end of the current container (at the root: nothing more). */
  After,
  /** Delimiting a value (or key) to hand to JSON.parse. */
  Capture,
}

const enum Cap {
  Container,
  String,
  Literal,
}

/**
 * Bytes of one run at most (about; a longer element is a run alone): the run's values live until
 * the handler has taken them all, and a short life keeps them in the young generation.
 */
const RUN_BYTES = 64 << 10;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Bytes that end a number / true / false / null. */
const endsLiteral = (c: number) => c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);

/**
 * Read a JSON file as a stream, driving `handler` as {@link readJsonStream} does (same `path`
 * semantics, same select/onValue/onEnter/onLeave calls, same errors class).
 * A leading UTF-8 BOM is skipped.
 * @returns bytes read and, with `opts.sha256`, the hex sha256 of the file's bytes
 * @throws JsonStreamError for text that is not one JSON value (empty, truncated, malformed),
 *   naming the byte offset or range; errors thrown by the handler or `afterChunk` pass through
 */
export async function readJsonStreamSplit(
  file: string,
  handler: JsonStreamHandler,
  opts: Omit<ReadJsonStreamOptions, "bigIntsAsStrings"> = {},
): Promise<{ bytes: number; sha256: string | null }> {
  const total = statSync(file).size;
  const hash = opts.sha256 ? createHash("sha256") : null;

  const path: JsonKey[] = [];
  const kinds: Array<"object" | "array"> = [];
  const indexes: number[] = [];
  // By open container: an array whose elements the handler assembles each (assemblesEach), so
  // runs of them may be parsed at once; turned off for the array after two failed attempts.
  const runs: boolean[] = [];
  let runFailures = 0;
  let noRunBefore = 0; // absolute offset: a run attempt failed up to here, do not retry before it
  let pendingKey = "";
  let rootDone = false;
  let sawValue = false;

  let mode: Mode = Mode.Value;
  let allowEnd = false; // `]` right after `[`, `}` right after `{`
  // Capture state.
  let cap: Cap = Cap.Container;
  let capIsKey = false;
  let capHadParent = false;
  let capStart = 0; // absolute byte offset where the captured text starts
  let capParts: Buffer[] = []; // earlier chunks' parts of the captured text
  let capFrom = 0; // start of the captured text in the current chunk
  let depth = 0;
  let inString = false;
  let escaped = false;

  let chunkStart = 0;

  const fail = (at: number, what: string): never => {
    throw new JsonStreamError(`invalid JSON at byte ${at}: ${what}`, at);
  };

  const beginChild = (): boolean => {
    if (kinds.length === 0) return false;
    path.push(kinds[kinds.length - 1] === "array" ? indexes[indexes.length - 1] : pendingKey);
    return true;
  };
  const endChild = (hadParent: boolean): void => {
    if (!hadParent) {
      rootDone = true;
      mode = Mode.After;
      return;
    }
    path.pop();
    if (kinds[kinds.length - 1] === "array") indexes[indexes.length - 1] += 1;
    mode = Mode.After;
  };
  const closeContainer = (): void => {
    const kind = kinds.pop() as "object" | "array";
    indexes.pop();
    runs.pop();
    handler.onLeave?.(path, kind);
    endChild(kinds.length > 0);
  };

  /** The captured bytes [capStart, end) end at `end` in `buf`: parse and deliver them. */
  const finishCapture = (buf: Buffer, end: number): void => {
    let text: string;
    if (capParts.length === 0) text = buf.toString("utf8", capFrom, end);
    else {
      capParts.push(buf.subarray(0, end));
      text = Buffer.concat(capParts).toString("utf8");
      capParts = [];
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new JsonStreamError(`invalid JSON between bytes ${capStart} and ${chunkStart + end}: ${(e as Error).message}`, capStart);
    }
    if (capIsKey) {
      pendingKey = v as string;
      mode = Mode.Colon;
      return;
    }
    handler.onValue(path, v);
    endChild(capHadParent);
  };

  const startCapture = (kind: Cap, at: number, isKey: boolean): void => {
    cap = kind;
    capIsKey = isKey;
    capStart = chunkStart + at;
    capFrom = at;
    capParts = [];
    depth = 0;
    inString = false;
    escaped = false;
    mode = Mode.Capture;
  };

  /** Scan a value being captured from `i`; returns where scanning stopped (capture done or chunk end). */
  const captureStep = (buf: Buffer, i: number, n: number, next: { q: number; b: number }): number => {
    if (cap === Cap.Literal) {
      while (i < n && !endsLiteral(buf[i])) i++;
      if (i < n) finishCapture(buf, i);
      return i;
    }
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
          continue;
        }
        if (next.q < i) {
          next.q = buf.indexOf(QUOTE, i);
          if (next.q < 0) next.q = n;
        }
        if (next.b < i) {
          next.b = buf.indexOf(BACKSLASH, i);
          if (next.b < 0) next.b = n;
        }
        if (next.b < next.q) {
          i = next.b + 1;
          escaped = true;
          continue;
        }
        if (next.q >= n) return n;
        i = next.q + 1;
        inString = false;
        if (cap === Cap.String) {
          finishCapture(buf, i);
          return i;
        }
        continue;
      }
      const c = buf[i++];
      if (c === QUOTE) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          finishCapture(buf, i);
          return i;
        }
      }
    }
    return i;
  };

  /**
   * Parse `buf[from, to)` as a run of whole elements of the current array (`v, v, ... v` with
   * an optional trailing comma) with one JSON.parse; null when it is not exactly that.
   */
  const parseRun = (buf: Buffer, from: number, to: number): { values: unknown[]; next: number; comma: boolean } | null => {
    let e = to - 1;
    while (e >= from && isSpace(buf[e])) e--;
    if (e < from) return null;
    const comma = buf[e] === 0x2c;
    let values: unknown;
    try {
      values = JSON.parse("[" + buf.toString("utf8", from, comma ? e : e + 1) + "]");
    } catch {
      return null;
    }
    return Array.isArray(values) && values.length > 0 ? { values, next: e + 1, comma } : null;
  };

  /**
   * At `i` an element of an array whose elements are all assembled starts: deliver the whole
   * elements from there to the last line end within RUN_BYTES (or to the first, for a longer
   * element) at once (a raw line feed never sits inside a JSON string, so bundles written one
   * element per line split there). Text that is not a
   * clean run (an element cut by the chunk, the array's end, an error) is left to the byte
   * scanner, which reports errors as before.
   * @returns where scanning goes on (`i` when nothing was delivered)
   */
  const elementRun = (buf: Buffer, i: number, n: number): number => {
    let end = buf.lastIndexOf(0x0a, Math.min(n - 1, i + RUN_BYTES));
    if (end <= i) end = buf.indexOf(0x0a, i + 1);
    if (end <= i) return i;
    let run = parseRun(buf, i, end);
    if (run === null) {
      // The array may end in this chunk: try up to the first line that starts with "]".
      const close = buf.indexOf("\n]", i);
      if (close > i && close < end) {
        end = close;
        run = parseRun(buf, i, end);
      }
    }
    if (run === null) {
      noRunBefore = chunkStart + end;
      if (++runFailures >= 2) runs[runs.length - 1] = false;
      return i;
    }
    const top = kinds.length - 1;
    for (const v of run.values) {
      path.push(indexes[top]);
      handler.onValue(path, v);
      path.pop();
      indexes[top] += 1;
    }
    mode = run.comma ? Mode.Value : Mode.After;
    return run.next;
  };

  const chunk = (buf: Buffer): void => {
    const n = buf.length;
    const next = { q: -1, b: -1 };
    let i = 0;
    if (mode === Mode.Capture) capFrom = 0;
    while (i < n) {
      if (mode === Mode.Capture) {
        i = captureStep(buf, i, n, next);
        continue;
      }
      const c = buf[i];
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (mode === Mode.Value && !allowEnd && runs.length > 0 && runs[runs.length - 1] && chunkStart + i >= noRunBefore) {
        const j = elementRun(buf, i, n);
        if (j > i) {
          i = j;
          continue;
        }
      }
      const at = chunkStart + i;
      switch (mode) {
        case Mode.Value: {
          if (rootDone) fail(at, "unexpected data after the JSON value");
          sawValue = true;
          if (c === 0x5d && allowEnd && kinds[kinds.length - 1] === "array") {
            i++;
            allowEnd = false;
            closeContainer();
            break;
          }
          allowEnd = false;
          if (c === 0x7b || c === 0x5b) {
            const kind = c === 0x7b ? "object" : "array";
            const hadParent = beginChild();
            if (handler.select(path, kind) === "descend") {
              kinds.push(kind);
              indexes.push(0);
              runs.push(kind === "array" && handler.assemblesEach?.(path) === true);
              runFailures = 0;
              handler.onEnter?.(path, kind);
              mode = kind === "object" ? Mode.Key : Mode.Value;
              allowEnd = true;
              i++;
            } else {
              capHadParent = hadParent;
              startCapture(Cap.Container, i, false);
            }
          } else if (c === QUOTE) {
            capHadParent = beginChild();
            startCapture(Cap.String, i, false);
            inString = true;
            i++;
          } else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) {
            capHadParent = beginChild();
            startCapture(Cap.Literal, i, false);
          } else fail(at, `unexpected ${JSON.stringify(String.fromCharCode(c))} where a value was expected`);
          break;
        }
        case Mode.Key:
          if (c === 0x7d && allowEnd) {
            i++;
            allowEnd = false;
            closeContainer();
          } else if (c === QUOTE) {
            allowEnd = false;
            startCapture(Cap.String, i, true);
            inString = true;
            i++;
          } else fail(at, `unexpected ${JSON.stringify(String.fromCharCode(c))} where an object key was expected`);
          break;
        case Mode.Colon:
          if (c !== 0x3a) fail(at, `expected ":" after an object key`);
          mode = Mode.Value;
          i++;
          break;
        case Mode.After: {
          if (kinds.length === 0) fail(at, "unexpected data after the JSON value");
          const top = kinds[kinds.length - 1];
          i++;
          if (c === 0x2c) mode = top === "object" ? Mode.Key : Mode.Value;
          else if ((c === 0x7d && top === "object") || (c === 0x5d && top === "array")) closeContainer();
          else fail(at, `unexpected ${JSON.stringify(String.fromCharCode(c))} after a value (expected "," or the end of the ${top})`);
          break;
        }
      }
    }
    if (mode === Mode.Capture) capParts.push(capFrom === 0 ? buf : buf.subarray(capFrom));
  };

  let bytes = 0;
  let bom = 0;
  const stream = createReadStream(file, { highWaterMark: opts.chunkBytes ?? 1 << 20 });
  try {
    for await (let buf of stream as AsyncIterable<Buffer>) {
      hash?.update(buf);
      chunkStart = bytes;
      bytes += buf.length;
      // A leading BOM (EF BB BF), possibly cut by chunk boundaries.
      let skip = 0;
      while (bom < 3 && skip < buf.length && buf[skip] === BOM[bom]) {
        skip++;
        bom++;
      }
      if (bom < 3 && skip < buf.length) bom = 3; // not a BOM: its bytes are left to fail as JSON
      if (skip > 0) {
        buf = buf.subarray(skip);
        chunkStart += skip;
      }
      chunk(buf);
      opts.onProgress?.(bytes, total);
      if (opts.afterChunk) await opts.afterChunk();
    }
  } finally {
    stream.destroy();
  }
  if ((mode as Mode) === Mode.Capture && (cap as Cap) === Cap.Literal) {
    chunkStart = bytes;
    finishCapture(Buffer.alloc(0), 0);
  }
  if (!rootDone) {
    if (!sawValue) throw new JsonStreamError("empty file: no JSON value", bytes);
    throw new JsonStreamError(`invalid JSON (truncated?) at end of input, byte ${bytes}`, bytes);
  }
  return { bytes, sha256: hash ? hash.digest("hex") : null };
}
