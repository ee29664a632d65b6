/**
 * Initial annotations vs the final (adjudicated) annotation: seeds/000 Table 5 and Appendix B.3/B.5;
 * annotation-protocol.md "What the paper reports about its annotations".
 */
import { CATEGORIES, type Category } from "./annotations";

/** The fields of the strict tuple (annotation-protocol.md: exact category set, primary, node id, node type). */
export interface TupleFields {
  categories: ReadonlyArray<string>;
  primary: string;
  nodeId: string;
  nodeType: string;
}

/** Exact category set as one nominal value: sorted, joined with "+" (e.g. "C1+C3"). */
export function categorySetKey(categories: ReadonlyArray<string>): string {
  return [...categories].sort().join("+");
}

/** Strict-tuple key: (category set, primary, node id, node type), equal iff the tuples are equal. */
export function tupleKey(a: TupleFields): string {
  return JSON.stringify([categorySetKey(a.categories), a.primary, a.nodeId, a.nodeType]);
}

export type InitialPattern = "unanimous" | "split" | "allDistinct";

/**
 * Pattern of the three initial strict tuples: all equal ("unanimous"), exactly two equal ("split",
 * the 2–1 split) or all different ("allDistinct").
 * @param keys exactly three tuple keys
 */
export function initialPattern(keys: ReadonlyArray<string>): InitialPattern {
  if (keys.length !== 3) throw new RangeError(`initialPattern: need 3 tuples, got ${keys.length}`);
  const distinct = new Set(keys).size;
  return distinct === 1 ? "unanimous" : distinct === 2 ? "split" : "allDistinct";
}

export type CategoryCounts = Record<Category, number>;
const zeroCounts = (): CategoryCounts => ({ C1: 0, C2: 0, C3: 0, C4: 0 });

/** Outcome counts of one initial pattern (Table 5 row). Counters that cannot occur in a pattern stay 0. */
export interface PatternOutcome {
  cases: number;
  /** Unanimous: final equals the tuple all three proposed ("all three retained"). */
  keptUnanimous: number;
  /** 2–1 split: final equals the tuple two proposed. */
  keptMajority: number;
  /** 2–1 split: final equals the tuple one proposed. */
  keptMinority: number;
  /** All distinct: final equals one of the three proposed tuples. */
  keptProposed: number;
  /** Final equals no proposed tuple ("modified" for a unanimous case, "new tuple" otherwise). */
  newTuple: number;
}

export interface FinalComparison {
  /** Cases with exactly three initial annotations and a final annotation. */
  cases: number;
  /** Table 5. */
  patterns: Record<InitialPattern, PatternOutcome>;
  /** Number of initial annotators whose strict tuple equals the final's. */
  supportedBy: { "3": number; "2": number; "1": number; "0": number };
  /** Final category set equal to the union of the three initial sets. */
  setEqualsUnion: number;
  setDiffersFromUnion: number;
  /** Case–category assignments in the final but absent from all three initial annotations. */
  added: CategoryCounts;
  /** Case–category assignments proposed by ≥ 1 initial annotator but not in the final. */
  removed: CategoryCounts;
  /** Of `removed`: proposed by all three (e.g. the paper's "16 C1 assignments initially supported by all three"). */
  removedUnanimous: CategoryCounts;
  addedTotal: number;
  removedTotal: number;
}

export interface FinalComposition {
  /** Cases with a final annotation. */
  cases: number;
  /** Primary category distribution. */
  primary: CategoryCounts;
  /** Multi-label marginal counts (cases whose final set contains Ck). */
  marginal: CategoryCounts;
  /** Σ |final set| (the paper's "category assignments"). */
  assignments: number;
  /** assignments / cases; null without cases. */
  meanCardinality: number | null;
}

/**
 * Compare each case's three initial annotations with its final annotation (Table 5, B.3).
 * @param cases `{ initial: three tuples, final }` per case (callers pass only complete cases)
 * @returns pattern × outcome counts, support 3/2/1/0, final set vs union, per-category added/removed
 */
export function compareWithFinal(cases: ReadonlyArray<{ initial: ReadonlyArray<TupleFields>; final: TupleFields }>): FinalComparison {
  const mk = (): PatternOutcome => ({ cases: 0, keptUnanimous: 0, keptMajority: 0, keptMinority: 0, keptProposed: 0, newTuple: 0 });
  const patterns: Record<InitialPattern, PatternOutcome> = { unanimous: mk(), split: mk(), allDistinct: mk() };
  const supportedBy = { "3": 0, "2": 0, "1": 0, "0": 0 };
  const added = zeroCounts();
  const removed = zeroCounts();
  const removedUnanimous = zeroCounts();
  let setEqualsUnion = 0;
  for (const c of cases) {
    const keys = c.initial.map(tupleKey);
    const fk = tupleKey(c.final);
    const support = keys.filter((k) => k === fk).length;
    supportedBy[String(support) as "0" | "1" | "2" | "3"]++;
    const pat = initialPattern(keys);
    const row = patterns[pat];
    row.cases++;
    if (support === 0) row.newTuple++;
    else if (pat === "unanimous") row.keptUnanimous++;
    else if (pat === "split") {
      if (support === 2) row.keptMajority++;
      else row.keptMinority++;
    } else row.keptProposed++;

    const fin = new Set(c.final.categories);
    const votes = new Map<string, number>();
    for (const a of c.initial) for (const k of new Set(a.categories)) votes.set(k, (votes.get(k) ?? 0) + 1);
    let equal = fin.size === votes.size;
    for (const cat of CATEGORIES) {
      const v = votes.get(cat) ?? 0;
      if (fin.has(cat) && v === 0) {
        added[cat]++;
        equal = false;
      }
      if (!fin.has(cat) && v > 0) {
        removed[cat]++;
        if (v === c.initial.length) removedUnanimous[cat]++;
        equal = false;
      }
    }
    if (equal) setEqualsUnion++;
  }
  const sum = (o: CategoryCounts) => o.C1 + o.C2 + o.C3 + o.C4;
  return {
    cases: cases.length,
    patterns,
    supportedBy,
    setEqualsUnion,
    setDiffersFromUnion: cases.length - setEqualsUnion,
    added,
    removed,
    removedUnanimous,
    addedTotal: sum(added),
    removedTotal: sum(removed),
  };
}

/**
 * Composition of the final annotations (seeds/000 Appendix B.5).
 * @param finals final annotations (categories ⊆ C1..C4, primary ∈ categories)
 */
export function finalComposition(finals: ReadonlyArray<{ categories: ReadonlyArray<string>; primary: string }>): FinalComposition {
  const primary = zeroCounts();
  const marginal = zeroCounts();
  let assignments = 0;
  for (const f of finals) {
    if (f.primary in primary) primary[f.primary as Category]++;
    for (const c of new Set(f.categories)) {
      if (c in marginal) marginal[c as Category]++;
      assignments++;
    }
  }
  return { cases: finals.length, primary, marginal, assignments, meanCardinality: finals.length > 0 ? assignments / finals.length : null };
}
