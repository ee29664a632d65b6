/**
 * MARS benchmark (issue 15 "Done when", measured rate): on the calibrated world, N recorded
 * failures, per case one single node-level replay (Generic Nudge at the detector's anchor) and one
 * `mars` experiment attempt (lib/testing/calibrated/mars-compare.ts). Prints repaired by the single
 * replay, by MARS, and by MARS where the single replay failed, each with its Wilson 95% interval
 * and the count the world's truth table predicts; the tree-node checks (valid bundle, prefix
 * verified); MARS spend per repaired case (MAS calls, selector + judge calls, tokens); wall times.
 * One JSON line `{"bench":"mars",...}`. Called by scripts/bench.ts (BENCH_MARS=0 skips it); alone:
 * `node --experimental-wasm-modules --import tsx -e "import('./scripts/bench-mars.ts').then(m=>m.runMarsBench())"`.
 * Sizes: BENCH_MARS_CASES (default 30), BENCH_MARS_ITERATIONS (default 8). BENCH_SMOKE=1: 1 case, 4 iterations.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { runMarsComparison } from "../lib/testing/calibrated/mars-compare";

const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)}%`);

export async function runMarsBench(): Promise<void> {
  const cases = Number(process.env.BENCH_MARS_CASES ?? 30);
  const iterations = Number(process.env.BENCH_MARS_ITERATIONS ?? 8);
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-bench-mars-"));
  const prevQuiet = process.env.SYMTRACE_QUIET;
  process.env.SYMTRACE_QUIET = "1";
  const t0 = performance.now();
  try {
    const r = await runMarsComparison({ cases, iterations, dir, log: process.env.BENCH_MARS_VERBOSE === "1" ? (l) => console.log(`  ${l}`) : undefined });
    const wallMs = performance.now() - t0;
    const line = (name: string, x: { x: number; n: number; rate: number | null; lo: number | null; hi: number | null; predicted: number }) =>
      console.log(`  ${name.padEnd(44)} ${String(x.x).padStart(3)}/${x.n}  ${pct(x.rate).padStart(6)}  [${pct(x.lo)}, ${pct(x.hi)}]  truth predicts ${x.predicted.toFixed(1)}`);
    console.log(`\nMARS vs single node-level replay (calibrated world, ${r.n} failures, N_iter ${iterations}, K 3, L 4)`);
    line("repaired by the single replay (nudge)", r.single);
    line("repaired by MARS", r.mars);
    line("repaired by MARS where the single replay failed", r.marsWhereSingleFailed);
    console.log(`  single passed where MARS failed: ${r.singleWhereMarsFailed}`);
    console.log(`  tree nodes: ${r.nodes.total}, invalid bundles ${r.nodes.invalid}, prefix not verified ${r.nodes.unverified}`);
    const f = (v: number | null) => (v === null ? "—" : v.toFixed(1));
    console.log(`  MARS per repaired case: ${f(r.perRepaired.masCalls)} MAS calls, ${f(r.perRepaired.auxCalls)} selector+judge calls, ${f(r.perRepaired.tokens)} tokens`);
    console.log(`  wall ${(wallMs / 1000).toFixed(1)} s (record ${(r.recordMs / 1000).toFixed(1)} s, single replays ${(r.singleMs / 1000).toFixed(1)} s, MARS ${(r.marsMs / 1000).toFixed(1)} s)`);
    console.log(
      JSON.stringify({
        bench: "mars",
        cases: r.n,
        iterations,
        single: { x: r.single.x, lo: r.single.lo, hi: r.single.hi, predicted: r.single.predicted },
        mars: { x: r.mars.x, lo: r.mars.lo, hi: r.mars.hi, predicted: r.mars.predicted },
        marsWhereSingleFailed: { x: r.marsWhereSingleFailed.x, lo: r.marsWhereSingleFailed.lo, hi: r.marsWhereSingleFailed.hi, predicted: r.marsWhereSingleFailed.predicted },
        singleWhereMarsFailed: r.singleWhereMarsFailed,
        nodes: r.nodes.total,
        invalidNodes: r.nodes.invalid,
        unverifiedNodes: r.nodes.unverified,
        perRepaired: r.perRepaired,
        wallMs: Math.round(wallMs),
        recordMs: Math.round(r.recordMs),
        singleMs: Math.round(r.singleMs),
        marsMs: Math.round(r.marsMs),
      }),
    );
    if (r.nodes.problems.length) console.log(`  node problems:\n    ${r.nodes.problems.slice(0, 10).join("\n    ")}`);
  } finally {
    if (prevQuiet === undefined) delete process.env.SYMTRACE_QUIET;
    else process.env.SYMTRACE_QUIET = prevQuiet;
    rmSync(dir, { recursive: true, force: true });
  }
}
