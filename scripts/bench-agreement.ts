/**
 * Agreement benchmark (docs/measurements.md §Bootstrap of Fleiss' κ): a deterministic synthetic
 * set of 536 cases × 3 annotators (the paper's size), the full lib/agreement report with 20,000
 * case-level resamples for every bootstrapped statistic (κ and pairwise agreement of 7 variables),
 * Cohen per pair, Krippendorff, Table 5. Goal < 1,000 ms on one core (later < 300 ms).
 *
 * Prints an aligned table and one JSON line `{"bench":"agreement","goal_ms":1000,...}`.
 * Called by scripts/bench.ts; alone:
 *   node --import tsx -e "import('./scripts/bench-agreement.ts').then(m=>m.runAgreementBench())"
 */
import os from "node:os";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { analyzeAnnotations, CATEGORIES, type AnnotatedCase, type Category } from "../lib/agreement";

const GOAL_MS = 1000;
const CASES = 536;
const RESAMPLES = 20_000;
const NODE_TYPES = ["agent_action", "tool_call", "tool_result", "final_result"];

/** 536 cases whose three annotators mostly agree, like the paper's (seeded, so identical every run). */
export function syntheticAgreementCases(n = CASES, seed = 536): AnnotatedCase[] {
  const rng = xoroshiro128plus(seed);
  const u = () => (rng.next() >>> 0) / 4294967296;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(u() * xs.length)];
  const cases: AnnotatedCase[] = [];
  for (let i = 0; i < n; i++) {
    const nodes = Array.from({ length: 4 + Math.floor(u() * 12) }, (_, j) => ({ id: `node_${String(j).padStart(4, "0")}`, type: pick(NODE_TYPES) }));
    const truthNode = pick(nodes);
    const truthCats = CATEGORIES.filter(() => u() < 0.55);
    if (truthCats.length === 0) truthCats.push(pick(CATEGORIES));
    const truthPrimary = pick(truthCats);
    const annotate = () => {
      const cats = new Set<Category>(truthCats);
      for (const c of CATEGORIES) {
        if (u() >= 0.12) continue;
        if (cats.has(c)) cats.delete(c);
        else cats.add(c);
      }
      if (cats.size === 0) cats.add(truthPrimary);
      const categories = [...cats];
      const primary = cats.has(truthPrimary) && u() < 0.88 ? truthPrimary : pick(categories);
      const node = u() < 0.85 ? truthNode : pick(nodes);
      return { categories, primary, nodeId: node.id, nodeType: node.type };
    };
    const initial = ["annotator-1", "annotator-2", "annotator-3"].map((annotator) => ({ annotator, ...annotate() }));
    cases.push({ caseId: `bench-${String(i).padStart(4, "0")}`, initial, final: u() < 0.6 ? { ...initial[0] } : annotate() });
  }
  return cases;
}

export async function runAgreementBench(): Promise<void> {
  const cases = syntheticAgreementCases();
  const runs: Array<{ wall: number; cpu: number }> = [];
  let report: ReturnType<typeof analyzeAnnotations> | null = null;
  for (let r = 0; r < 4; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    report = analyzeAnnotations(cases, { resamples: RESAMPLES, seed: 20260722 });
    const wall = performance.now() - t0;
    const cu = process.cpuUsage(c0);
    runs.push({ wall, cpu: (cu.user + cu.system) / 1000 });
  }
  const first = runs[0];
  const warm = runs.slice(1).sort((a, b) => a.wall - b.wall);
  const median = warm[Math.floor(warm.length / 2)];
  const rep = report!;
  const rows: Array<[string, number, string]> = [
    [`full report, first run (cold)`, first.wall, `cpu ${first.cpu.toFixed(0)} ms`],
    [`full report, median of ${warm.length} warm`, median.wall, `cpu ${median.cpu.toFixed(0)} ms; ${median.wall < GOAL_MS ? `goal < ${GOAL_MS} ms: met` : `goal < ${GOAL_MS} ms: NOT met`}`],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  console.log(`agreement benchmark (${CASES} cases x 3 annotators, ${RESAMPLES} resamples x 7 variables, node ${process.version}, ${os.cpus().length} cpus, one thread)`);
  for (const [name, ms, note] of rows) console.log(`  ${name.padEnd(w)}  ${ms.toFixed(0).padStart(7)} ms  ${note}`);
  console.log(
    `  primary kappa ${rep.primaryCategory.kappa?.toFixed(3)} (${rep.primaryCategory.ci95?.map((x) => x.toFixed(3)).join("-")}), set ${rep.categorySet.kappa?.toFixed(3)}, node type ${rep.nodeType.kappa?.toFixed(3)}, node all three ${rep.node.allThree}/${rep.cases}`,
  );
  console.log(
    JSON.stringify({
      bench: "agreement",
      goal_ms: GOAL_MS,
      total_ms: Math.round(median.wall),
      goal_met: median.wall < GOAL_MS,
      first_ms: Math.round(first.wall),
      first_cpu_ms: Math.round(first.cpu),
      median_cpu_ms: Math.round(median.cpu),
      runs_ms: runs.map((r) => Math.round(r.wall)),
      cases: CASES,
      raters: 3,
      resamples: RESAMPLES,
      variables: 7,
      node: process.version,
      cpus: os.cpus().length,
    }),
  );
}
