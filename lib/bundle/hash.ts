/**
 * Canonical JSON (RFC 8785, JCS, via the `canonicalize` library) and sha256 hashes of the
 * replay bundle (../shared/spec/bundle-v1.md §Hashing).
 */
import { createHash } from "node:crypto";
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

/** `"sha256:" + hex(sha256(text))` of an already-serialized UTF-8 string. */
export function sha256Tagged(text: string): string {
  return "sha256:" + createHash("sha256").update(text, "utf8").digest("hex");
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
