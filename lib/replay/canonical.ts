/**
 * A faster RFC 8785 (JCS) serializer for the replay hot path, byte-identical to lib/bundle's
 * `canonicalJson` (the `canonicalize` library) on every value both accept; anything unusual
 * (undefined, non-finite numbers, bigint, functions, objects with `toJSON`, strings holding
 * lone surrogates) is handed to `canonicalJson` itself, so errors and edge cases are exactly
 * the library's. Matching one replayed 5 KB request is dominated by canonicalization
 * (../shared/docs/measurements.md), hence this module.
 */
import { canonicalJson, sha256Tagged } from "../bundle";

// String.prototype.isWellFormed (Node 20; ES2024, not in this project's TS lib): false for lone surrogates.
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

class Fallback extends Error {}
const FALLBACK = new Fallback();

function ser(v: unknown): string {
  switch (typeof v) {
    case "string":
      if (!wellFormed(v)) throw FALLBACK;
      return JSON.stringify(v);
    case "number":
      if (!Number.isFinite(v)) throw FALLBACK;
      return JSON.stringify(v);
    case "boolean":
      return v ? "true" : "false";
    case "object": {
      if (v === null) return "null";
      if (Array.isArray(v)) {
        let s = "[";
        for (let i = 0; i < v.length; i++) s += (i ? "," : "") + ser(v[i]);
        return s + "]";
      }
      if (typeof (v as { toJSON?: unknown }).toJSON === "function") throw FALLBACK;
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      let s = "{";
      let first = true;
      for (const k of keys) {
        const x = o[k];
        if (x === undefined) throw FALLBACK;
        if (!wellFormed(k)) throw FALLBACK;
        s += (first ? "" : ",") + JSON.stringify(k) + ":" + ser(x);
        first = false;
      }
      return s + "}";
    }
    default:
      throw FALLBACK;
  }
}

/**
 * RFC 8785 canonical JSON, same output and errors as `canonicalJson` (lib/bundle).
 * @throws Error exactly when `canonicalJson` throws
 */
export function fastCanonicalJson(value: unknown): string {
  try {
    return ser(value);
  } catch (e) {
    if (e === FALLBACK) return canonicalJson(value);
    throw e;
  }
}

/** `"sha256:" + hex(sha256(JCS(value)))` = lib/bundle `hashRequest` / `hashContent`, faster. */
export function fastHash(value: unknown): string {
  return sha256Tagged(fastCanonicalJson(value));
}
