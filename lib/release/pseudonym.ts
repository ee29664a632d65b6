/**
 * Pseudonymisation of annotator identities in a release (issue 14 item 1: "annotator identities
 * pseudonymised consistently"). A person's label (email, or an imported annotator's name) becomes
 * `person-<hex>`, the first 8 hex digits of HMAC-SHA256(key, label) (longer when two labels would
 * collide). The same label gives the same pseudonym everywhere in a release (annotations, agreement,
 * datasheet) and, with the same key, across releases; without the key the mapping cannot be
 * recomputed, and the pseudonyms' order says nothing about the labels' order.
 */
import { createHmac, randomBytes } from "node:crypto";

/** Prefix of every pseudonym. */
export const PSEUDONYM_PREFIX = "person-";
const MIN_HEX = 8;

/** A fresh random key (32 bytes, hex) for a release whose pseudonyms need not be stable across releases. */
export function randomPseudonymKey(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Pseudonyms of a set of labels.
 * @param labels people as the database names them (duplicates allowed; case-sensitive)
 * @param key secret HMAC key (any non-empty string)
 * @returns label → `person-xxxxxxxx`, injective (a collision of the 8-digit prefix lengthens both)
 * @throws RangeError when the key is empty
 */
export function pseudonymMap(labels: Iterable<string>, key: string): Map<string, string> {
  if (!key) throw new RangeError("pseudonymMap: the key must not be empty");
  const uniq = [...new Set(labels)];
  const full = new Map(uniq.map((l) => [l, createHmac("sha256", key).update(l, "utf8").digest("hex")] as const));
  const out = new Map<string, string>();
  for (const l of uniq) {
    const h = full.get(l)!;
    let n = MIN_HEX;
    // lengthen until no other label shares the prefix (64 hex digits never collide in practice)
    while (n < h.length && uniq.some((o) => o !== l && full.get(o)!.slice(0, n) === h.slice(0, n))) n += 2;
    out.set(l, PSEUDONYM_PREFIX + h.slice(0, n));
  }
  return out;
}
