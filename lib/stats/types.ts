/** A closed interval `[lo, hi]`. */
export type Interval = [number, number];
