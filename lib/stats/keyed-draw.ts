import { createHash } from "node:crypto";

/**
 * A deterministic uniform integer in [0, n) keyed on its inputs: the first 48 bits of
 * sha256(JSON of `[seed, ...parts]`) modulo n (bias < n / 2^48). The same (seed, parts) always
 * draws the same, whatever else is drawn before or after it — so a baseline's pick for one case
 * does not change when other cases are added, removed or reordered.
 * @param n the number of choices (a positive integer)
 * @param seed the run's seed
 * @param parts what the draw is for, e.g. the case id and "agent"
 * @throws RangeError when n is not a positive integer
 */
export function seededIndex(n: number, seed: number, ...parts: Array<string | number>): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`seededIndex: n must be a positive integer, got ${n}`);
  // JSON of strings and integers is their JCS form: the same text lib/bundle canonicalJson gives.
  const hex = createHash("sha256").update(JSON.stringify([seed, ...parts]), "utf8").digest("hex").slice(0, 12);
  return Number(BigInt(`0x${hex}`) % BigInt(n));
}
