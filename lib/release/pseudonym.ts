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
 * @param minHex hex digits of a pseudonym when no other label shares them (default 8; tests use fewer)
 * @returns label → `person-xxxxxxxx`, injective: labels whose prefixes collide get longer ones
 *   (2 digits at a time) until they differ; O(n) per length tried
 * @throws RangeError when the key is empty
 */
export function pseudonymMap(labels: Iterable<string>, key: string, minHex = MIN_HEX): Map<string, string> {
  if (!key) throw new RangeError("pseudonymMap: the key must not be empty");
  const full = new Map([...new Set(labels)].map((l) => [l, createHmac("sha256", key).update(l, "utf8").digest("hex")] as const));
  const out = new Map<string, string>();
  let pending = [...full.keys()];
  for (let n = minHex; pending.length > 0; n += 2) {
    const count = new Map<string, number>();
    for (const l of pending) {
      const p = full.get(l)!.slice(0, n);
      count.set(p, (count.get(p) ?? 0) + 1);
    }
    // at the full length (64 hex digits) a shared prefix would be a SHA-256 collision
    const done = n >= 64 ? pending : pending.filter((l) => count.get(full.get(l)!.slice(0, n)) === 1);
    for (const l of done) out.set(l, PSEUDONYM_PREFIX + full.get(l)!.slice(0, n));
    const finished = new Set(done);
    pending = pending.filter((l) => !finished.has(l));
  }
  return out;
}

/** One account whose identity must not appear in released free text. */
export interface Identity {
  /** Email and display name (names shorter than 4 characters are left alone: too likely ordinary words). */
  texts: string[];
  /** What replaces them: the person's pseudonym, or a neutral marker for accounts not in the release. */
  replacement: string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Replace every known email and display name in free text (rationales) by the pseudonym:
 * case-insensitive, whole words only (no letter or digit directly before or after), longest first.
 * @returns the text with identities replaced (unchanged when none occurs)
 */
export function scrubIdentities(text: string, identities: ReadonlyArray<Identity>): string {
  const pairs = identities
    .flatMap((i) => i.texts.map((t) => [t.trim(), i.replacement] as const))
    .filter(([t]) => t.length >= 4)
    .sort((a, b) => b[0].length - a[0].length);
  if (!pairs.length) return text;
  const byLower = new Map(pairs.map(([t, r]) => [t.toLowerCase(), r] as const));
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${pairs.map(([t]) => escapeRe(t)).join("|")})(?![\\p{L}\\p{N}])`, "giu");
  return text.replace(re, (m) => byLower.get(m.toLowerCase()) ?? m);
}
