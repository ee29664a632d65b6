/**
 * The nesting limit of replay bundles (lib/bundle/README.md §Nesting limit; the spec sets none, this is the implementation limit): no object or array in
 * a bundle file sits deeper than {@link MAX_JSON_DEPTH} levels below the top-level object. Every
 * later step that walks JSON recursively (RFC 8785 canonicalization, hashing, request
 * normalization, the node API, the JSON tree in the node panel, export) is safe on a bundle that
 * passed this check; the check itself is iterative, so a 200,000-deep input is rejected cleanly
 * instead of overflowing the stack.
 */

/** Deepest allowed level of an object or array; the bundle's top-level object is level 0. */
export const MAX_JSON_DEPTH = 512;

/** One place where the nesting limit is exceeded. */
export interface DepthHit {
  /** JSON path of the first object/array past the limit, e.g. `$.graph.nodes[0].content.a.a…`. */
  path: string;
  /** Its level (always `limit + 1`: the walk stops there). */
  depth: number;
}

/**
 * Find objects/arrays nested deeper than `limit` levels, without recursion.
 * @param value any parsed JSON value
 * @param limit deepest allowed level (the root is level `baseDepth`)
 * @param opts.basePath JSON path of `value` itself (default `$`)
 * @param opts.baseDepth level of `value` itself (default 0)
 * @param opts.maxHits stop after this many hits (default 1); each hit ends its own branch only
 * @returns the hits in document order (empty when the value is within the limit)
 */
export function findTooDeep(
  value: unknown,
  limit: number,
  opts: { basePath?: string; baseDepth?: number; maxHits?: number } = {},
): DepthHit[] {
  const maxHits = opts.maxHits ?? 1;
  const hits: DepthHit[] = [];
  // Parent links instead of path strings: a path is only built for a hit.
  const keys: Array<string | number> = [];
  const parents: number[] = [];
  type Frame = { v: unknown; depth: number; at: number };
  const stack: Frame[] = [{ v: value, depth: opts.baseDepth ?? 0, at: -1 }];
  while (stack.length > 0) {
    const { v, depth, at } = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > limit) {
      hits.push({ path: pathOf(opts.basePath ?? "$", at, keys, parents), depth });
      if (hits.length >= maxHits) break;
      continue;
    }
    // Push children in reverse so they are visited in document order.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child = v[i];
        if (typeof child !== "object" || child === null) continue;
        keys.push(i);
        parents.push(at);
        stack.push({ v: child, depth: depth + 1, at: keys.length - 1 });
      }
    } else {
      const entries = Object.keys(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const child = (v as Record<string, unknown>)[entries[i]];
        if (typeof child !== "object" || child === null) continue;
        keys.push(entries[i]);
        parents.push(at);
        stack.push({ v: child, depth: depth + 1, at: keys.length - 1 });
      }
    }
  }
  return hits;
}

/**
 * Whether some object/array in `value` sits deeper than `limit` levels (`value` itself at level
 * `depth`): {@link findTooDeep}'s answer without its paths, and without allocating — the
 * streaming reader asks it for every node, edge and record and asks findTooDeep only on a yes.
 * Recursive, but never deeper than `limit - depth + 1` frames.
 */
export function exceedsDepth(value: unknown, limit: number, depth = 0): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const x = value[i];
      if (typeof x === "object" && x !== null && exceedsDepth(x, limit, depth + 1)) return true;
    }
    return false;
  }
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const x = (value as Record<string, unknown>)[k];
    if (typeof x === "object" && x !== null && exceedsDepth(x, limit, depth + 1)) return true;
  }
  return false;
}

/**
 * The first object/array nested deeper than `limit` levels, or null (see {@link findTooDeep}).
 */
export function checkJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH, opts: { basePath?: string; baseDepth?: number } = {}): DepthHit | null {
  return findTooDeep(value, limit, { ...opts, maxHits: 1 })[0] ?? null;
}

function pathOf(base: string, at: number, keys: Array<string | number>, parents: number[]): string {
  const segs: Array<string | number> = [];
  for (let i = at; i >= 0; i = parents[i]) segs.push(keys[i]);
  let out = base;
  for (let i = segs.length - 1; i >= 0; i--) {
    const k = segs[i];
    if (typeof k === "number") out += `[${k}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(k)) out += `.${k}`;
    else out += `[${JSON.stringify(k)}]`;
  }
  return out;
}

/** How many levels `serializeBundle` indents; anything deeper is written compactly on one line. */
export const PRETTY_DEPTH = 12;

/**
 * `JSON.stringify(value, null, 2)` for the first `prettyDepth` levels, compact JSON below them,
 * so the indentation of a deeply nested value cannot grow the text quadratically (a 10,000-deep
 * chain pretty-printed is ~2,000x its compact size). Identical to `JSON.stringify(value, null, 2)`
 * for values nested less than `prettyDepth` levels.
 * @param value a JSON value within {@link MAX_JSON_DEPTH} (JSON.stringify recurses below the cut)
 * @returns the text, or undefined for undefined (as JSON.stringify)
 */
export function stringifyBoundedIndent(value: unknown, prettyDepth: number = PRETTY_DEPTH): string | undefined {
  const ser = (v: unknown, level: number): string | undefined => {
    if (typeof v !== "object" || v === null || level >= prettyDepth) return JSON.stringify(v);
    const pad = "  ".repeat(level + 1);
    const end = "  ".repeat(level);
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      return "[\n" + v.map((x) => pad + (ser(x, level + 1) ?? "null")).join(",\n") + "\n" + end + "]";
    }
    const parts: string[] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const s = ser(x, level + 1);
      if (s !== undefined) parts.push(pad + JSON.stringify(k) + ": " + s);
    }
    return parts.length === 0 ? "{}" : "{\n" + parts.join(",\n") + "\n" + end + "}";
  };
  return ser(value, 0);
}
