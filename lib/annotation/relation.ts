/**
 * How a final (adjudicated) annotation relates to the three initial ones
 * (annotation-protocol.md, "Initial pattern vs final", seeds/000 Table 5).
 */
import { formatCategories, tupleKey, type Category, type StrictTuple } from "./protocol";

export type InitialPattern = "unanimous" | "split_2_1" | "all_distinct";
export type FinalKept = "kept_unanimous" | "kept_majority" | "kept_minority" | "kept_proposed" | "new_tuple";

export interface FinalRelation {
  pattern: InitialPattern;
  kept: FinalKept;
  /** How many initial annotations propose exactly the final strict tuple (0–3). */
  supportedBy: number;
  setEqualsUnion: boolean;
  /** Categories in the final but in none of the initial sets. */
  added: Category[];
  /** Categories proposed by at least one annotator but not in the final. */
  removed: Category[];
}

/**
 * @param initials the submitted initial annotations (normally three)
 * @param final the final strict tuple
 */
export function relateFinal(initials: StrictTuple[], final: StrictTuple): FinalRelation {
  const keys = initials.map(tupleKey);
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  const max = Math.max(0, ...counts.values());
  const pattern: InitialPattern = max >= 3 || (initials.length > 0 && max === initials.length) ? "unanimous" : max === 2 ? "split_2_1" : "all_distinct";
  const fk = tupleKey(final);
  const supportedBy = counts.get(fk) ?? 0;
  let kept: FinalKept;
  if (supportedBy === 0) kept = "new_tuple";
  else if (pattern === "unanimous") kept = "kept_unanimous";
  else if (pattern === "split_2_1") kept = supportedBy === 2 ? "kept_majority" : "kept_minority";
  else kept = "kept_proposed"; // all distinct: the final is one of the three proposed tuples
  const union = new Set(initials.flatMap((t) => t.categories));
  const fin = new Set(final.categories);
  const added = [...fin].filter((c) => !union.has(c)).sort() as Category[];
  const removed = [...union].filter((c) => !fin.has(c)).sort() as Category[];
  return { pattern, kept, supportedBy, setEqualsUnion: formatCategories([...union]) === formatCategories([...fin]), added, removed };
}
