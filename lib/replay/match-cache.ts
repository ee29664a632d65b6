/**
 * Match hashes of recorded requests under masks and id renaming, kept across replay sessions
 * (issue 25 item 5).
 *
 * With `config.replay.masks` or client-invented ids (rename.ts), a `ReplaySession` matches a live
 * request against the hash of each recorded request *after* the same transform, not against the
 * stored `requestHash`. Computing those is one canonicalize + sha256 per record and session; a
 * recording replayed again (the k attempts of an experiment, a repair search's replays of one
 * parent, a benchmark) would pay it every time. This memo keeps them, keyed by what determines
 * the transformed request's canonical form:
 *   - the transform: the bundle's masks (their JSON; none = "") — masks apply per value, so their
 *     result depends on the content only;
 *   - the boundary (renaming applies to llm requests only, masks may name a boundary);
 *   - the record's `requestHash` = sha256(JCS(request)): the request's content (the session
 *     already trusts it: without transforms it is the match hash itself; a valid bundle's
 *     requestHash is its request's, spec §Validation);
 *   - the ids the recording's responses produced (`producedKeyOf`; "" without renaming): renaming
 *     keeps those and names every other id under an id key `symtrace:id:<n>` in canonical order
 *     (rename.ts), so content + the produced set give the renamed request.
 * Equal keys therefore mean equal transformed canonical JSON, so a hit returns exactly the hash
 * the session would compute: nothing about what matches changes.
 *
 * Bounded: at most `maxEntries` hashes (the oldest dropped first). Pure (no I/O);
 * module state only as a memo.
 */
import { sha256Tagged } from "../bundle";

/** Default bound of the shared memo (~30 MB at ~300 B an entry). */
export const MATCH_CACHE_ENTRIES = 100_000;

/** A bounded memo of transformed request hashes (oldest out first). */
export class MatchHashCache {
  private readonly map = new Map<string, string>();

  /** @param maxEntries at most this many hashes are kept (positive integer) */
  constructor(readonly maxEntries: number = MATCH_CACHE_ENTRIES) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error(`maxEntries must be a positive integer (got ${String(maxEntries)})`);
  }

  /**
   * The memo key of one recorded request.
   * @param transformKey `transformKeyOf(masks)` of the session
   * @param requestHash the record's stored `requestHash`
   * @param producedKey `producedKeyOf(produced ids)` when renaming applies to this record, else ""
   */
  static key(transformKey: string, boundary: string, requestHash: string, producedKey: string): string {
    // NUL cannot occur in a hash or a boundary name.
    return `${transformKey}\u0000${boundary}\u0000${requestHash}\u0000${producedKey}`;
  }

  /** The memoized hash, or undefined. */
  get(key: string): string | undefined {
    return this.map.get(key);
  }

  /** Remember a hash (dropping the oldest entry beyond the bound). */
  set(key: string, hash: string): void {
    this.map.set(key, hash);
    if (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value as string);
  }

  /** Hashes held. */
  get size(): number {
    return this.map.size;
  }

  /** Forget everything (tests and benchmarks measuring a first replay). */
  clear(): void {
    this.map.clear();
  }
}

/**
 * The transform part of a memo key: "" without masks, else sha256 of the masks' JSON as stored
 * (`config.replay.masks`). @param masks the stored masks (already validated by compileMasks)
 */
export function transformKeyOf(masks: unknown): string {
  return Array.isArray(masks) && masks.length > 0 ? sha256Tagged(JSON.stringify(masks)) : "";
}

/**
 * The produced-ids part of a memo key: sha256 of the JSON array of the ids, sorted (unambiguous
 * whatever characters the ids hold). @param produced the ids recorded responses produced (rename.ts producedIds)
 */
export function producedKeyOf(produced: ReadonlySet<string>): string {
  return sha256Tagged(JSON.stringify([...produced].sort()));
}

/** The memo every ReplaySession shares. */
export const recordMatchHashes = new MatchHashCache();
