/**
 * Streaming JSON reading for files too large to hold as one string (issue 16): the file is read
 * in 1 MB chunks and tokenized with stream-json's tokenizer (`jsonParser`, packed values only);
 * a {@link JsonStreamHandler} decides, value by value, which parts to walk into and which to
 * assemble whole. Memory is bounded by the largest assembled value, not by the file size.
 *
 * Assembled values equal what `JSON.parse` gives for the same text (an own `__proto__` key
 * included), except that with `bigIntsAsStrings` an integer literal outside the safe range
 * becomes its decimal string (as lib/importers `parseImportText` does).
 */
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { jsonParser } from "stream-json/parser.js";
import { getManyValues, isMany, none } from "stream-chain/defs.js";

/** One step of a JSON path: an object key or an array index. */
export type JsonKey = string | number;

/** What a handler wants done with a value that starts at some path. */
export type JsonSelect = "assemble" | "descend";

/**
 * Receives a JSON document piece by piece.
 * - `select(path, kind)`: an object or array starts at `path` (the root is `[]`): "descend" walks
 *   into it (each member gets its own `select`/`onValue`), "assemble" builds it whole and hands
 *   it to `onValue` when it ends.
 * - `onValue(path, value)`: a primitive, or an assembled container, at `path`.
 * - `onEnter(path, kind)` / `onLeave(path, kind)`: a descended container starts / ends.
 * `path` is a live array owned by the reader: copy it to keep it.
 */
export interface JsonStreamHandler {
  select(path: readonly JsonKey[], kind: "object" | "array"): JsonSelect;
  onValue(path: readonly JsonKey[], value: unknown): void;
  onEnter?(path: readonly JsonKey[], kind: "object" | "array"): void;
  onLeave?(path: readonly JsonKey[], kind: "object" | "array"): void;
  /**
   * Asked when a descended array starts at `path`: true promises that `select` would say
   * "assemble" for every element of it (objects and arrays alike). The split reader
   * (json-split.ts) may then parse runs of whole elements at once with one `JSON.parse` and
   * hand each to `onValue` without calling `select` for them. Absent = false.
   */
  assemblesEach?(path: readonly JsonKey[]): boolean;
}

/** A token of stream-json's tokenizer with packed keys, strings and numbers. */
type Token = { name: string; value?: unknown };

const SAFE_INT = /^-?\d+$/;

/** Put `key: value` on an object like JSON.parse does (a `__proto__` key becomes an own property). */
function setMember(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Builds one value from tokens, iteratively (any depth). */
class ValueBuilder {
  private stack: Array<Record<string, unknown> | unknown[]> = [];
  private keys: Array<string | null> = [];
  private key: string | null = null;
  result: unknown = undefined;
  done = false;
  constructor(private readonly bigIntsAsStrings: boolean) {}

  private add(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.result = v;
      this.done = true;
    } else if (Array.isArray(top)) top.push(v);
    else setMember(top, this.key as string, v);
  }

  /** Feed one token; `done` turns true when the value is complete. */
  push(t: Token): void {
    switch (t.name) {
      case "startObject":
      case "startArray": {
        const c = t.name === "startObject" ? {} : [];
        this.keys.push(this.key);
        this.stack.push(c);
        return;
      }
      case "endObject":
      case "endArray": {
        const c = this.stack.pop();
        this.key = this.keys.pop() ?? null;
        this.add(c);
        return;
      }
      case "keyValue":
        this.key = t.value as string;
        return;
      case "stringValue":
        this.add(t.value);
        return;
      case "numberValue":
        this.add(numberOf(t.value as string, this.bigIntsAsStrings));
        return;
      case "nullValue":
        this.add(null);
        return;
      case "trueValue":
        this.add(true);
        return;
      case "falseValue":
        this.add(false);
        return;
    }
  }
}

function numberOf(s: string, bigIntsAsStrings: boolean): number | string {
  const n = Number(s);
  if (bigIntsAsStrings && s.length >= 16 && !Number.isSafeInteger(n) && SAFE_INT.test(s)) return s;
  return n;
}

/** Options of {@link readJsonStream}. */
export interface ReadJsonStreamOptions {
  /** Integer literals beyond 2^53 - 1 become decimal strings (default false: `Number`, as JSON.parse). */
  bigIntsAsStrings?: boolean;
  /** Chunk size in bytes (default 1 MiB). */
  chunkBytes?: number;
  /** Called after each chunk with bytes read so far and the file size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Awaited after each chunk (e.g. to write batched rows): back-pressure for the reader. */
  afterChunk?: () => Promise<void>;
  /** Also compute sha256 (hex) of the file's bytes. */
  sha256?: boolean;
}

/** A file that is not JSON: the message names the byte range of the chunk where parsing failed. */
export class JsonStreamError extends Error {
  constructor(
    message: string,
    readonly byteOffset: number,
  ) {
    super(message);
    this.name = "JsonStreamError";
  }
}

/**
 * Read a JSON file as a stream, driving `handler` (see {@link JsonStreamHandler}).
 * A leading UTF-8 BOM is skipped. NaN/Infinity literals are not JSON and fail here.
 * @returns bytes read and, with `opts.sha256`, the hex sha256 of the file's bytes
 * @throws JsonStreamError for text that is not one JSON value (empty, truncated, malformed),
 *   naming the byte range; errors thrown by the handler or `afterChunk` pass through
 */
export async function readJsonStream(
  file: string,
  handler: JsonStreamHandler,
  opts: ReadJsonStreamOptions = {},
): Promise<{ bytes: number; sha256: string | null }> {
  const total = statSync(file).size;
  const tokenizer = jsonParser({ packValues: true, streamValues: false }) as unknown as (chunk: string | typeof none) => unknown;
  const hash = opts.sha256 ? createHash("sha256") : null;
  const decoder = new StringDecoder("utf8");
  const big = !!opts.bigIntsAsStrings;

  // Walk state: descended containers and their current member key / index.
  const path: JsonKey[] = [];
  const kinds: Array<"object" | "array"> = [];
  let pendingKey: string | null = null;
  let builder: ValueBuilder | null = null;
  let rootDone = false;

  // Array indexes are tracked separately (path holds the keys of the descended containers).
  const indexes: number[] = [];

  const beginChild = (): boolean => {
    // Returns false at the root (no parent container).
    if (kinds.length === 0) return false;
    const k = kinds[kinds.length - 1];
    path.push(k === "array" ? indexes[indexes.length - 1] : (pendingKey as string));
    return true;
  };
  const endChild = (hadParent: boolean): void => {
    if (!hadParent) {
      rootDone = true;
      return;
    }
    path.pop();
    if (kinds[kinds.length - 1] === "array") indexes[indexes.length - 1] += 1;
  };
  let sawToken = false;
  const onToken = (t: Token): void => {
    sawToken = true;
    if (builder) {
      builder.push(t);
      if (builder.done) {
        const v = builder.result;
        builder = null;
        handler.onValue(path, v);
        endChild(kinds.length > 0);
      }
      return;
    }
    if (rootDone) throw new JsonStreamError("unexpected data after the JSON value", 0);
    switch (t.name) {
      case "keyValue":
        pendingKey = t.value as string;
        return;
      case "startObject":
      case "startArray": {
        const kind = t.name === "startObject" ? "object" : "array";
        beginChild();
        const sel = handler.select(path, kind);
        if (sel === "assemble") {
          builder = new ValueBuilder(big);
          builder.push(t);
          return;
        }
        kinds.push(kind);
        indexes.push(0);
        handler.onEnter?.(path, kind);
        return;
      }
      case "endObject":
      case "endArray": {
        const kind = kinds.pop() as "object" | "array";
        indexes.pop();
        handler.onLeave?.(path, kind);
        endChild(kinds.length > 0);
        return;
      }
      case "stringValue":
      case "numberValue":
      case "nullValue":
      case "trueValue":
      case "falseValue": {
        const hadParent = beginChild();
        const v =
          t.name === "stringValue" ? t.value : t.name === "numberValue" ? numberOf(t.value as string, big) : t.name === "nullValue" ? null : t.name === "trueValue";
        handler.onValue(path, v);
        endChild(hadParent);
        return;
      }
    }
  };

  const feed = (out: unknown): void => {
    if (out === none || out === undefined) return;
    if (isMany(out)) {
      const vs = getManyValues(out) as Token[];
      for (let i = 0; i < vs.length; i++) onToken(vs[i]);
    } else onToken(out as Token);
  };

  let bytes = 0;
  let first = true;
  const stream = createReadStream(file, { highWaterMark: opts.chunkBytes ?? 1 << 20 });
  try {
    for await (const buf of stream as AsyncIterable<Buffer>) {
      const start = bytes;
      bytes += buf.length;
      hash?.update(buf);
      let text = decoder.write(buf);
      if (first && text.length > 0) {
        // (the first decoded text: a chunk shorter than the BOM decodes to "")
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = false;
      }
      try {
        feed(tokenizer(text));
      } catch (e) {
        if (e instanceof JsonStreamError || !(e instanceof Error) || !isTokenizerError(e)) throw e;
        throw new JsonStreamError(`invalid JSON between bytes ${start} and ${bytes}: ${e.message}`, start);
      }
      opts.onProgress?.(bytes, total);
      if (opts.afterChunk) await opts.afterChunk();
    }
    try {
      const rest = decoder.end();
      if (rest) feed(tokenizer(rest));
      feed(tokenizer(none)); // end of input: a value still open is an error
    } catch (e) {
      if (!(e instanceof Error) || !isTokenizerError(e)) throw e;
      if (!sawToken) throw new JsonStreamError("empty file: no JSON value", bytes);
      throw new JsonStreamError(`invalid JSON (truncated?) at end of input, byte ${bytes}: ${e.message}`, bytes);
    }
  } finally {
    stream.destroy();
  }
  if (!rootDone) throw new JsonStreamError(`invalid JSON (truncated?) at end of input, byte ${bytes}`, bytes);
  return { bytes, sha256: hash ? hash.digest("hex") : null };
}

/** Errors raised by stream-json's tokenizer (as opposed to the handler's own). */
function isTokenizerError(e: Error): boolean {
  return /^Parser /.test(e.message);
}

/**
 * Parse a whole JSON file through the stream reader into one value (no single string of the
 * file's size is ever built, so files past the ~512 MB string limit load).
 * @throws JsonStreamError when the file is not JSON
 */
export async function readJsonFileValue(file: string, opts: Omit<ReadJsonStreamOptions, "afterChunk"> = {}): Promise<{ value: unknown; sha256: string | null }> {
  let value: unknown = undefined;
  const r = await readJsonStream(
    file,
    {
      select: () => "assemble",
      onValue: (_p, v) => {
        value = v;
      },
    },
    opts,
  );
  return { value, sha256: r.sha256 };
}
