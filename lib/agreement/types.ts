/**
 * Shared result shapes of lib/agreement.
 *
 * A coefficient that cannot be computed (e.g. Fleiss' κ with P̄_e = 1) is `null` with a plain
 * reason, never NaN, 0 or 1 (statistics.md §Agreement).
 */

/** A nominal label: any primitive compared with `===` (strings, numbers, booleans). */
export type Label = string | number | boolean;

export type { Interval } from "../stats";

/** A coefficient or `null` with the reason it is undefined. */
export type Coefficient = { value: number; reason: null } | { value: null; reason: string };
