/**
 * The diagnostic view of a node (Algorithm 3 line 3): which strings of a node the text rules read,
 * with their JSON paths. Paths start at the node object (`$.content.text`).
 *
 * Skipped subtrees (they repeat what other nodes hold, or are not the node's own output):
 * `input` (span/LLM inputs: the whole earlier conversation), `attributes` (OTel attributes, which
 * duplicate input/output), `metadata`, `modelParameters`, `usage`, `costDetails`, `scope`,
 * `resource`, `lines` (MAD AG2: the same text split into lines).
 */
type Rec = Record<string, unknown>;
export const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

const SKIP = new Set(["input", "attributes", "metadata", "modelParameters", "usage", "costDetails", "scope", "resource", "lines"]);
const IDENT = /^[A-Za-z_$][\w$]*$/;

/** A string leaf of the diagnostic view. */
export interface Leaf {
  path: string;
  text: string;
}

/** Append one key/index to a JSON path (same syntax as lib/bundle formatJsonPath). */
export function childPath(base: string, k: string | number): string {
  if (typeof k === "number") return `${base}[${k}]`;
  return IDENT.test(k) ? `${base}.${k}` : `${base}[${JSON.stringify(k)}]`;
}

/**
 * Every string leaf of `value` (depth-first, document order) outside the skipped subtrees.
 * @param base the JSON path of `value` (e.g. `$.content`)
 */
export function stringLeaves(value: unknown, base: string, out: Leaf[] = [], depth = 0): Leaf[] {
  if (typeof value === "string") {
    if (value.length) out.push({ path: base, text: value });
  } else if (Array.isArray(value)) {
    if (depth < 32) for (let i = 0; i < value.length; i++) stringLeaves(value[i], childPath(base, i), out, depth + 1);
  } else if (isRec(value) && depth < 32) {
    for (const k of Object.keys(value)) if (!SKIP.has(k)) stringLeaves(value[k], childPath(base, k), out, depth + 1);
  }
  return out;
}

/** First regex match over the leaves: `{ path, quote }` (the exact matched text), or null. */
export function firstMatch(leaves: Leaf[], re: RegExp): { path: string; quote: string } | null {
  for (const l of leaves) {
    const m = re.exec(l.text);
    if (m) return { path: l.path, quote: m[0] };
  }
  return null;
}

/** A short exact quote of a string: the first `max` characters (still a substring). */
export function clip(s: string, max = 200): string {
  return s.length > max ? s.slice(0, max) : s;
}

/** Canonical-ish JSON for fingerprints: sorted keys, no whitespace. */
export function stableJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  const keys = Object.keys(v as Rec).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((v as Rec)[k])}`).join(",")}}`;
}
