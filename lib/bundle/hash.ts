/**
 * Canonical JSON (RFC 8785, JCS, via the `canonicalize` library) and sha256 hashes of the
 * replay bundle (bundle spec v1 §Hashing). The one canonical JSON of the project: lib/replay hashes
 * through `hashJson`.
 */
import { hash as oneShotHash } from "node:crypto";
import canonicalizeJson from "canonicalize";

/**
 * RFC 8785 canonical form of a JSON value.
 * @param value any JSON value (objects, arrays, strings, finite numbers, booleans, null)
 * @returns the canonical UTF-8 string
 * @throws Error when the value is not JSON (undefined, a function, a non-finite number)
 */
export function canonicalJson(value: unknown): string {
  const out = canonicalizeJson(value);
  if (typeof out !== "string") {
    throw new Error("value is not JSON-serializable (undefined at top level)");
  }
  return out;
}

const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** A code unit that JSON.stringify escapes (", \\, controls), or any surrogate (then the slow path checks pairs). */
const NOT_VERBATIM = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * JCS of a string or object key: the library's checks, then JSON.stringify as the library does.
 * A string with nothing to escape and no surrogate is its own text between quotes (no copy).
 */
function jcsString(s: string): string {
  if (!NOT_VERBATIM.test(s)) return '"' + s + '"';
  if (!isWellFormed(s)) throw new Error("Lone surrogate is not allowed");
  return JSON.stringify(s);
}

/** Texts of object keys seen so far (keys repeat across a bundle's nodes and records); at most KEY_TEXTS_MAX. */
const keyTexts = new Map<string, string>();
const KEY_TEXTS_MAX = 4096;

/** {@link jcsString} of an object key, remembered. */
function jcsKey(k: string): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = jcsString(k);
    if (keyTexts.size < KEY_TEXTS_MAX) keyTexts.set(k, t);
  }
  return t;
}

/**
 * {@link canonicalJson} of a value as `JSON.parse` returns it (plain objects, arrays, strings,
 * finite numbers, booleans, null: no cycles, no `toJSON` methods, no undefined), ~3x faster: the
 * `canonicalize` library checks every string for lone surrogates character by character in
 * JavaScript, this uses the engine's `String.prototype.isWellFormed`. Same text and same errors
 * (lone surrogate) as canonicalJson for such values (tested against it); anything else (a
 * `toJSON` method, undefined, a function, a non-finite number) is handed to canonicalJson itself.
 * Used by the streaming importer on every node, edge and record (issue 16 item 3).
 * @throws Error as canonicalJson
 */
export function canonicalJsonOfParsed(value: unknown): string {
  try {
    return jcsParsed(value);
  } catch (e) {
    // RangeError: a cycle (the library names it) or nesting beyond the stack.
    if (e === NOT_PLAIN || e instanceof RangeError) return canonicalJson(value);
    throw e;
  }
}

/** A value's RFC 8785 canonical text and its `JSON.stringify` text (members in their own order). */
export interface CanonicalAndJson {
  canonical: string;
  json: string;
}

/**
 * {@link canonicalJsonOfParsed} of `value` and `JSON.stringify(value)` from one walk: the two
 * texts differ only in the order of object members, so every string and number is serialized
 * once and shared by both (the streaming importer hashes the canonical text and stores the other:
 * lib/db's rows keep the bundle's own member order). For values as `JSON.parse` returns them;
 * anything else (a `toJSON` method, a cycle, nesting beyond the stack) goes through
 * canonicalJson and JSON.stringify themselves.
 * @returns both texts (equal when every object's members are already in canonical order)
 * @throws Error as canonicalJson (a lone surrogate, a non-finite number)
 */
export function canonicalAndJsonOfParsed(value: unknown): CanonicalAndJson {
  try {
    const canonical = jcsAndJson(value);
    return { canonical, json: lastJson };
  } catch (e) {
    if (e === NOT_PLAIN || e instanceof RangeError) return { canonical: canonicalJson(value), json: JSON.stringify(value) };
    throw e;
  }
}

/** The `JSON.stringify` text of the value {@link jcsAndJson} serialized last. */
let lastJson = "";

/** Canonical text of `v` (returned) and its JSON.stringify text (left in `lastJson`). */
function jcsAndJson(v: unknown): string {
  switch (typeof v) {
    case "string":
      return (lastJson = jcsString(v));
    case "number":
      if (!Number.isFinite(v)) throw NOT_PLAIN;
      return (lastJson = JSON.stringify(v));
    case "boolean":
      return (lastJson = v ? "true" : "false");
    case "object": {
      if (v === null) return (lastJson = "null");
      if (Array.isArray(v)) {
        let c = "[";
        let j = "[";
        for (let i = 0; i < v.length; i++) {
          if (i > 0) {
            c += ",";
            j += ",";
          }
          c += jcsAndJson(v[i]);
          j += lastJson;
        }
        lastJson = j + "]";
        return c + "]";
      }
      if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      let sorted = true;
      for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1] < keys[i];
      if (sorted) {
        let c = "{";
        let j = "{";
        for (let i = 0; i < keys.length; i++) {
          const k = jcsKey(keys[i]) + ":";
          if (i > 0) {
            c += ",";
            j += ",";
          }
          c += k + jcsAndJson(o[keys[i]]);
          j += k + lastJson;
        }
        lastJson = j + "}";
        return c + "}";
      }
      // Members in their own order for the JSON text; the canonical text takes them sorted.
      const members: string[] = new Array(keys.length);
      let j = "{";
      for (let i = 0; i < keys.length; i++) {
        const k = jcsKey(keys[i]) + ":";
        members[i] = k + jcsAndJson(o[keys[i]]);
        if (i > 0) j += ",";
        j += k + lastJson;
      }
      const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : 1));
      let c = "{";
      for (let i = 0; i < order.length; i++) {
        if (i > 0) c += ",";
        c += members[order[i]];
      }
      lastJson = j + "}";
      return c + "}";
    }
    default:
      throw NOT_PLAIN;
  }
}

/**
 * {@link canonicalJsonOfParsed} of an object some of whose member values are already canonical
 * text: the streaming reader canonicalizes a node's content (for its contentHash) and then the
 * node around it, a record's request, response and meta and then the record.
 * @param o a plain object as JSON.parse gives it (members whose value is undefined are left out, as JCS does)
 * @param known canonical text of some members' values, by member name (undefined: not known)
 * @throws Error as canonicalJson
 */
export function canonicalJsonWith(o: Record<string, unknown>, known: Readonly<Record<string, string | undefined>>): string {
  const keys = Object.keys(o).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = o[k];
    if (v === undefined) continue;
    const text = Object.hasOwn(known, k) ? known[k] : undefined;
    out += (first ? "" : ",") + jcsKey(k) + ":" + (text ?? canonicalJsonOfParsed(v));
    first = false;
  }
  return out + "}";
}

/**
 * Strings to serialize as others while hashing: every string value directly under a key in
 * `keys` is offered to `replace`, in canonical (RFC 8785) order — object keys sorted, arrays by
 * index, depth first — so a replacement that numbers what it sees numbers it by content alone,
 * whatever the key order of the value in memory.
 */
export interface StringReplacement {
  keys: ReadonlySet<string>;
  /**
   * The text to serialize instead of `value`.
   * @param key the key the string is under
   * @param path keys and indexes from the root to the object holding `key` (a live stack: copy it to keep it)
   */
  replace(value: string, key: string, path: readonly (string | number)[]): string;
  /** Forget what `replace` has seen: the value is visited again from the start (the slow path after a fast one gave up). */
  restart?(): void;
}

/** A copy of `v` with the replacements made, visiting in canonical order (the slow path's input). */
function replaced(v: unknown, r: StringReplacement, path: (string | number)[]): unknown {
  if (Array.isArray(v)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      const n = replaced(v[i], r, path);
      path.pop();
      if (n !== v[i]) (copy ??= v.slice())[i] = n;
    }
    return copy ?? v;
  }
  if (typeof v !== "object" || v === null) return v;
  let copy: Record<string, unknown> | null = null;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o).sort()) {
    const x = o[k];
    let n: unknown = x;
    if (typeof x === "string") {
      if (r.keys.has(k)) n = r.replace(x, k, path);
    } else {
      path.push(k);
      n = replaced(x, r, path);
      path.pop();
    }
    if (n !== x) (copy ??= { ...o })[k] = n;
  }
  return copy ?? v;
}

/**
 * {@link hashJson} of `value` with strings replaced while serializing (no copy of the value): a
 * string directly under a key in `replacement.keys` is serialized as `replacement.replace` returns,
 * called in canonical order. Equal to `hashJson` of a copy with those strings replaced
 * (lib/replay's renaming of client-invented ids hashes a request this way).
 * @throws Error as canonicalJson
 */
export function hashJsonReplacing(value: unknown, replacement: StringReplacement): string {
  let text: string;
  try {
    text = jcsReplacing(value, replacement, []);
  } catch (e) {
    if (e !== NOT_PLAIN && !(e instanceof RangeError)) throw e;
    replacement.restart?.();
    text = canonicalJson(replaced(value, replacement, []));
  }
  return sha256Tagged(text);
}

const NOT_PLAIN = Symbol("not a JSON.parse value");

function jcsParsed(v: unknown): string {
  switch (typeof v) {
    case "string":
      return jcsString(v);
    case "number":
      if (!Number.isFinite(v)) throw NOT_PLAIN;
      return JSON.stringify(v);
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      if (Array.isArray(v)) {
        let out = "[";
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ",";
          out += jcsParsed(v[i]);
        }
        return out + "]";
      }
      if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      let out = "{";
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (i > 0) out += ",";
        out += jcsKey(k) + ":" + jcsParsed(o[k]);
      }
      return out + "}";
    }
    default:
      throw NOT_PLAIN;
  }
}

/** jcsParsed with replacements (`path`: the live stack of keys and indexes of containers entered). */
function jcsReplacing(v: unknown, rep: StringReplacement, path: (string | number)[]): string {
  if (typeof v !== "object" || v === null) return jcsParsed(v);
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      const x: unknown = v[i];
      if (typeof x === "object" && x !== null) {
        path.push(i);
        out += jcsReplacing(x, rep, path);
        path.pop();
      } else out += jcsParsed(x);
    }
    return out + "]";
  }
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (i > 0) out += ",";
    const x = o[k];
    out += jcsKey(k) + ":";
    if (typeof x === "string") out += jcsString(rep.keys.has(k) ? rep.replace(x, k, path) : x);
    else if (typeof x === "object" && x !== null) {
      path.push(k);
      out += jcsReplacing(x, rep, path);
      path.pop();
    } else out += jcsParsed(x);
  }
  return out + "}";
}

/**
 * `"sha256:" + hex(sha256(JCS(value)))` through {@link canonicalJsonOfParsed}: the same hash as
 * {@link hashContent} / {@link hashRequest}, faster on values as `JSON.parse` returns them (the
 * replay hot path: matching a replayed request is dominated by canonicalization).
 * @throws Error as canonicalJson
 */
export function hashJson(value: unknown): string {
  return sha256Tagged(canonicalJsonOfParsed(value));
}

/**
 * `"sha256:" + hex(sha256(text))` of an already-serialized string (hashed as UTF-8). Node's
 * one-shot `crypto.hash` (Node >= 20.12): the same digest as `createHash`, without a Hash object
 * per call (~25% less time on a 5 KB request).
 */
export function sha256Tagged(text: string): string {
  return "sha256:" + oneShotHash("sha256", text, "hex");
}

/**
 * `contentHash` of a node: `"sha256:" + hex(sha256(JCS(content)))` (spec §Hashing).
 * @throws Error when content is not JSON.
 */
export function hashContent(content: unknown): string {
  return sha256Tagged(canonicalJson(content));
}

/**
 * `requestHash` of a boundary record: `"sha256:" + hex(sha256(JCS(request)))`, where the request
 * is already normalized (spec §Hashing; seeds/000 Appendix A).
 */
export function hashRequest(request: unknown): string {
  return sha256Tagged(canonicalJson(request));
}
