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

/** A string leaf of the diagnostic view; its JSON path is built only when asked for. */
export class Leaf {
  private p: string | null = null;
  constructor(
    readonly text: string,
    /** JSON path of the containing object/array. */
    readonly base: string,
    /** Key (or index) of the leaf in its container; null for a top-level string. */
    readonly key: string | number | null,
  ) {}
  get path(): string {
    if (this.p === null) this.p = this.key === null ? this.base : childPath(this.base, this.key);
    return this.p;
  }
}

const SEGMENT = new Map<string, string>();

/** Append one key/index to a JSON path (same syntax as lib/bundle formatJsonPath). */
export function childPath(base: string, k: string | number): string {
  if (typeof k === "number") return `${base}[${k}]`;
  let seg = SEGMENT.get(k);
  if (seg === undefined) {
    seg = IDENT.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
    if (SEGMENT.size < 10_000) SEGMENT.set(k, seg);
  }
  return base + seg;
}

/**
 * Every string leaf of `value` (depth-first, document order) outside the skipped subtrees.
 * @param base the JSON path of `value` (e.g. `$.content`)
 */
export function stringLeaves(value: unknown, base: string, out: Leaf[] = [], depth = 0): Leaf[] {
  if (typeof value === "string") {
    if (value.length) out.push(new Leaf(value, base, null));
  } else if (Array.isArray(value)) {
    if (depth < 32) {
      for (let i = 0; i < value.length; i++) {
        const x = value[i];
        if (typeof x === "string") {
          if (x.length) out.push(new Leaf(x, base, i));
        } else if (x !== null && typeof x === "object") stringLeaves(x, childPath(base, i), out, depth + 1);
      }
    }
  } else if (isRec(value) && depth < 32) {
    for (const k in value) {
      if (SKIP.has(k)) continue;
      const x = value[k];
      if (typeof x === "string") {
        if (x.length) out.push(new Leaf(x, base, k));
      } else if (x !== null && typeof x === "object") stringLeaves(x, childPath(base, k), out, depth + 1);
    }
  }
  return out;
}

/** Separator of the leaves in a {@link LeafText}; no rule pattern matches it. */
export const SEP = "\u0000";

/** The leaves joined by {@link SEP}, so that one regex run covers a whole node. */
export interface LeafText {
  leaves: Leaf[];
  text: string;
  /** starts[i] = offset of leaves[i] in text. */
  starts: number[];
}

/** Join the leaves of a node for matching. */
export function leafText(leaves: Leaf[]): LeafText {
  const starts: number[] = new Array(leaves.length);
  let off = 0;
  for (let i = 0; i < leaves.length; i++) {
    starts[i] = off;
    off += leaves[i].text.length + 1;
  }
  return { leaves, text: leaves.length === 1 ? leaves[0].text : leaves.map((l) => l.text).join(SEP), starts };
}

/**
 * First regex match in a node: `{ path, quote }` where quote is the exact matched text (leading
 * separators/line breaks and surrounding blanks trimmed), or null. Patterns must not match SEP.
 */
export function firstMatch(lt: LeafText, re: RegExp): { path: string; quote: string } | null {
  const m = re.exec(lt.text);
  if (!m) return null;
  let at = m.index;
  let quote = m[0];
  const lead = /^[\s\u0000]+/.exec(quote);
  if (lead) {
    at += lead[0].length;
    quote = quote.slice(lead[0].length);
  }
  let lo = 0;
  let hi = lt.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lt.starts[mid] <= at) lo = mid;
    else hi = mid - 1;
  }
  return { path: lt.leaves[lo].path, quote: quote.trimEnd() };
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
