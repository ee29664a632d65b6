/**
 * Structural diff of two canonical requests for the first-divergence report: RFC 6902 operations
 * whose `path` is an RFC 6901 JSON pointer (jsondiffpatch + its jsonpatch formatter), each with
 * the recorded (`expected`) and the new (`actual`) value at that pointer.
 */
import { create } from "jsondiffpatch";
import { format } from "jsondiffpatch/formatters/jsonpatch";

/** One difference between the recorded and the actual request. */
export interface PointerDiff {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  /** RFC 6901 pointer into the request, e.g. `/messages/3/content`. */
  path: string;
  /** Value in the recorded request at `path` (absent for `add`). */
  expected?: unknown;
  /** Value in the actual request at `path` (absent for `remove`). */
  actual?: unknown;
}

// Objects in arrays are matched by position (no objectHash): a changed message shows as
// `/messages/3/content`, not as remove + add of the whole message.
const differ = create({ arrays: { detectMove: false } });

/** Resolve an RFC 6901 pointer; `undefined` when it does not exist. */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) cur = cur[Number(key)];
    else if (typeof cur === "object" && cur !== null) cur = (cur as Record<string, unknown>)[key];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * Differences between the recorded request and the actual one.
 * @returns `[]` when equal as JSON; otherwise RFC 6902 ops with RFC 6901 paths, plus values
 * @param expected the recorded (normalized) request
 * @param actual the new (normalized) request
 */
export function pointerDiff(expected: unknown, actual: unknown): PointerDiff[] {
  const delta = differ.diff(expected, actual);
  if (!delta) return [];
  const ops = format(delta) as { op: PointerDiff["op"]; path: string; value?: unknown; from?: string }[];
  return ops.map((o) => {
    const d: PointerDiff = { op: o.op, path: o.path };
    if (o.op !== "add") {
      const e = resolvePointer(expected, o.path);
      if (e !== undefined) d.expected = e;
    }
    if (o.op !== "remove") d.actual = o.value !== undefined ? o.value : resolvePointer(actual, o.path);
    return d;
  });
}

function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "undefined";
  } catch {
    return String(v);
  }
}

function clip(v: unknown, n = 60): string {
  const s = jsonText(v);
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

/**
 * Both values clipped to a window that starts a little before their first differing character,
 * so two long texts that differ late show the difference ("…the lookup_population tool twice…").
 */
function clipPair(expected: unknown, actual: unknown, n = 60, before = 20): [string, string] {
  const a = jsonText(expected);
  const b = jsonText(actual);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const start = i > before && (a.length > n || b.length > n) ? i - before : 0;
  const cut = (t: string) => {
    const w = start > 0 ? "…" + t.slice(start) : t;
    return w.length > n ? w.slice(0, n - 1) + "…" : w;
  };
  return [cut(a), cut(b)];
}

/**
 * One line saying WHAT differed, e.g.
 * `/messages/2/content: expected "Find X" got "Find Y"; /temperature: expected 0 got 0.5`.
 * @param max at most this many differences are spelled out (the rest are counted)
 */
export function describeDiff(diff: PointerDiff[], max = 3): string {
  if (diff.length === 0) return "no structural difference";
  const parts = diff.slice(0, max).map((d) => {
    const p = d.path || "(whole request)";
    if (d.op === "add") return `${p}: added ${clip(d.actual)}`;
    if (d.op === "remove") return `${p}: removed (was ${clip(d.expected)})`;
    const [e, a] = clipPair(d.expected, d.actual);
    return `${p}: expected ${e} got ${a}`;
  });
  if (diff.length > max) parts.push(`and ${diff.length - max} more`);
  return parts.join("; ");
}
