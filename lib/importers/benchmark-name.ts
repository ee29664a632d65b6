/**
 * Benchmark names, one canonical form per benchmark (issue 11 item 7): "AssistantBench",
 * "assistantbench" and "assistant_bench" are one filter value.
 *
 * Two names are the same benchmark when their keys are equal: lower case, with spaces,
 * underscores, hyphens and dots removed (`benchmarkKey`). The canonical display form is the
 * published name for known benchmarks (`KNOWN_BENCHMARK_NAMES`), else the first-seen form (the
 * caller passes the names already stored), else the name as written, trimmed.
 * Pure: no I/O. Used by `lib/db` `importCase` and `listCases` so facets, filters and agreement
 * filters all see one value.
 */

/** Published spellings of benchmarks met in the field's datasets (GAIA, AssistantBench, MAST/MAD, ...). */
export const KNOWN_BENCHMARK_NAMES = [
  "GAIA",
  "AssistantBench",
  "WebArena",
  "GSM-Plus",
  "GSM8K",
  "MATH",
  "MMLU",
  "HumanEval",
  "MBPP",
  "ProgramDev",
  "SWE-bench",
  "SWE-bench Lite",
  "OlympiadBench",
  "AppWorld",
  "Test-C",
] as const;

/** Comparison key of a benchmark name: lower case, spaces / `_` / `-` / `.` removed. "SWE-bench Lite" → "swebenchlite". */
export function benchmarkKey(name: string): string {
  return name.normalize("NFKC").toLowerCase().replace(/[\s_\-.]+/g, "");
}

const KNOWN = new Map<string, string>(KNOWN_BENCHMARK_NAMES.map((n) => [benchmarkKey(n), n]));

/**
 * Canonical form of a benchmark name.
 * @param name the name as the source wrote it (null/undefined/blank → null)
 * @param seen names already stored (first-seen forms), consulted for names not in the known list
 * @returns the known published name, else the stored name with the same key, else `name.trim()`
 */
export function canonicalBenchmark(name: string | null | undefined, seen: readonly string[] = []): string | null {
  const t = name?.trim();
  if (!t) return null;
  const key = benchmarkKey(t);
  if (key === "") return t;
  return KNOWN.get(key) ?? seen.find((s) => benchmarkKey(s) === key) ?? t;
}
