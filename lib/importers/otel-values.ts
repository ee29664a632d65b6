/**
 * Small JSON helpers of the OpenTelemetry importers: JSON-in-a-string values, attribute parsing,
 * `arguments` classification, one-line text, and OpenInference indexed keys (`a.0.b`) -> arrays.
 */
import { createHash } from "node:crypto";
import { parseJsonLossless } from "./parse";

export type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** sha256 hex of a text. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Unwrap JSON that was encoded as a string, as many times as it was encoded (Langfuse stores
 * `metadata`, `input`, `output` and attribute values as JSON strings, sometimes twice).
 * Only strings that look like a JSON object, array or string literal are tried; anything that
 * does not parse is returned unchanged.
 * @returns the value and how many times it was decoded
 */
export function unwrapJson(v: unknown, maxDepth = 5): { value: unknown; depth: number } {
  let cur = v;
  let depth = 0;
  while (depth < maxDepth && typeof cur === "string") {
    const t = cur.trim();
    const looksJson =
      (t.startsWith("{") && t.endsWith("}")) ||
      (t.startsWith("[") && t.endsWith("]")) ||
      (t.length >= 2 && t.startsWith('"') && t.endsWith('"'));
    if (!looksJson) break;
    try {
      cur = parseJsonLossless(t);
    } catch {
      break;
    }
    depth++;
  }
  return { value: cur, depth };
}

/** {@link unwrapJson} without the depth. */
export const parseJsonValue = (v: unknown): unknown => unwrapJson(v).value;

/**
 * Attribute keys whose value is tool-call argument text: kept verbatim (never decoded here), so
 * that a JSON string literal, truncated JSON or a Python repr is not silently changed;
 * {@link classifyArguments} reads them.
 */
export const isArgumentsKey = (k: string): boolean => /(^|\.)arguments$/.test(k);

/**
 * Decode one attribute value: JSON text is parsed (even double encoded), except that tool-call
 * argument text ({@link isArgumentsKey}) is decoded only when it is a JSON object; otherwise it
 * stays verbatim (a string literal is not silently decoded).
 */
export function parseAttributeValue(key: string, v: unknown): unknown {
  if (!isArgumentsKey(key)) return parseJsonValue(v);
  const c = classifyArguments(v);
  return c.note ? v : c.value;
}

/** Parse every JSON-string value of a flat attribute map ({@link parseAttributeValue}). */
export function parseAttributeValues(attrs: Rec): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(attrs)) out[k] = parseAttributeValue(k, v);
  return out;
}

/** Why tool-call arguments are kept as raw text. */
export type ArgumentsNote = "not valid JSON" | "not an object";

/**
 * Read tool-call arguments as the source wrote them.
 * - an object, or text that decodes (once or, for double-encoded text, more) to a JSON object:
 *   `{value: the object}`;
 * - text that is not JSON (truncated JSON, a Python repr, an empty string): `{value: the text
 *   verbatim, note: "not valid JSON"}`;
 * - JSON that is not an object (a string literal, a number, an array, null written as text):
 *   `{value: the text verbatim (or the value), note: "not an object"}`.
 * @returns `{value: null}` when there are no arguments at all (missing / null)
 */
export function classifyArguments(raw: unknown): { value: unknown; note?: ArgumentsNote } {
  if (raw === null || raw === undefined) return { value: null };
  if (isRec(raw)) return { value: raw };
  if (typeof raw !== "string") return { value: raw, note: "not an object" };
  let cur: unknown;
  try {
    cur = parseJsonLossless(raw);
  } catch {
    return { value: raw, note: "not valid JSON" };
  }
  for (let i = 0; i < 4 && typeof cur === "string"; i++) {
    try {
      cur = parseJsonLossless(cur);
    } catch {
      break;
    }
  }
  return isRec(cur) ? { value: cur } : { value: raw, note: "not an object" };
}

/** Drop `undefined` members so that the value is JSON (content is hashed with JCS). */
export function clean<T extends Rec>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** A JSON-safe copy: undefined dropped, non-finite numbers and bigints made strings/null. */
export function jsonSafe(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (Array.isArray(v)) return v.map((x) => jsonSafe(x));
  if (isRec(v)) {
    const o: Rec = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = jsonSafe(x);
    return o;
  }
  return v;
}

/** One line, at most `max` characters (an ellipsis marks a cut). */
export function oneLine(s: string, max = 80): string {
  const t = s.replace(/\s+/g, " ").trim();
  const chars = Array.from(t);
  return chars.length <= max ? t : chars.slice(0, max - 1).join("") + "…";
}

/** Text of any value for labels and prompts: strings as they are, else compact JSON. */
export function asText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return String(v);
  }
}

// ---------------------------------------------------------------------------------------------
// OpenInference indexed keys -> arrays
// ---------------------------------------------------------------------------------------------

const INDEX_SEG = /^\d+$/;

/**
 * Un-flatten OpenInference indexed keys into arrays, leaving other keys flat:
 * `llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments = "{..}"` becomes
 * `{"llm.input_messages": [.., .., {message: {tool_calls: [{tool_call: {function: {arguments: "{..}"}}}]}}]}`.
 * The part before the first numeric segment stays one key; the rest is nested (numeric segments
 * are array indexes). Holes become null. A key that conflicts with another stays flat.
 */
export function unflattenIndexed(attrs: Rec): Rec {
  const out: Rec = {};
  const putFlat = (k: string, v: unknown) => {
    if (out[k] === undefined) out[k] = v;
    else out[`${k} (flat)`] = v;
  };
  for (const [key, value] of Object.entries(attrs)) {
    const segs = key.split(".");
    const i = segs.findIndex((s, j) => j > 0 && INDEX_SEG.test(s));
    if (i < 0) {
      putFlat(key, value);
      continue;
    }
    const prefix = segs.slice(0, i).join(".");
    if (out[prefix] !== undefined && !Array.isArray(out[prefix])) {
      putFlat(key, value);
      continue;
    }
    if (out[prefix] === undefined) out[prefix] = [];
    if (!setNested(out[prefix] as unknown[], segs.slice(i), value)) putFlat(key, value);
  }
  for (const [k, v] of Object.entries(out)) out[k] = fillHoles(v);
  return out;
}

function setNested(root: unknown[] | Rec, segs: string[], value: unknown): boolean {
  let cur: unknown[] | Rec = root;
  for (let j = 0; j < segs.length; j++) {
    const seg = segs[j];
    const last = j === segs.length - 1;
    const isIdx = INDEX_SEG.test(seg);
    if (Array.isArray(cur) !== isIdx) return false;
    const key: string | number = isIdx ? Number(seg) : seg;
    const container = cur as Record<string | number, unknown>;
    if (last) {
      if (container[key] !== undefined) return false;
      container[key] = value;
      return true;
    }
    let next = container[key];
    if (next === undefined) {
      next = INDEX_SEG.test(segs[j + 1]) ? [] : {};
      container[key] = next;
    }
    if (typeof next !== "object" || next === null) return false;
    cur = next as unknown[] | Rec;
  }
  return false;
}

function fillHoles(v: unknown): unknown {
  if (Array.isArray(v)) return Array.from({ length: v.length }, (_, i) => (i in v ? fillHoles(v[i]) : null));
  if (isRec(v)) {
    const o: Rec = {};
    for (const [k, x] of Object.entries(v)) o[k] = fillHoles(x);
    return o;
  }
  return v;
}
