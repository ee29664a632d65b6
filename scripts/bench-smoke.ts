/**
 * `BENCH_SMOKE=1 npm run bench`: every benchmark part at a small size, so `npm test` proves each
 * part still runs end to end (figures printed, nothing asserted about speed). Imported first by
 * scripts/bench.ts so the sizes are set before any part reads them; an explicitly set variable wins.
 *
 * Smoke sizes: 20 gold-sized bundles + a 201-node bundle (import), 1 browser run per case and the
 * already-built `.next` (inspector), 2,000 matched events and 30 proxied calls (replay), 400- and
 * 2,000-node traces (suspicious-node detection), 5,120 spans (OTLP receiver), one 6,402-node trace
 * (big-trace benchmark, BENCH_BIG_SIZES), 1 calibrated case × all methods × k = 1 (experiments), 1 calibrated case × a 4-iteration MARS search (mars),
 * 1 calibrated case × 3 methods with 1, 2 and 3 worker processes (workers),
 * one 6,402-node pair of our import and the bare insert loop (import at the storage limit), 8
 * pointer moves per pan drag and 5 j-steps (inspector, big trace).
 */
export const SMOKE = process.env.BENCH_SMOKE === "1";

if (SMOKE) {
  const defaults: Record<string, string> = {
    BENCH_GOLD: "20",
    BENCH_TURNS: "50",
    BENCH_RUNS: "1",
    BENCH_DIST: ".next",
    BENCH_REPLAY_EVENTS: "2000",
    BENCH_REPLAY_CALLS: "30",
    BENCH_SYMPTOMS_SIZES: "400,2000",
    BENCH_OTLP_SPANS: "5120",
    BENCH_BIG_SIZES: "6402",
    BENCH_EXP_CASES: "1",
    BENCH_EXP_ATTEMPTS: "1",
    BENCH_MARS_CASES: "1",
    BENCH_MARS_ITERATIONS: "4",
    BENCH_WORKERS_CASES: "2",
    // pointer moves per drag while panning (inspector 60, big trace 40) and j-steps (50)
    BENCH_PAN_MOVES: "8",
    BENCH_J_STEPS: "5",
  };
  for (const [k, v] of Object.entries(defaults)) process.env[k] ??= v;
}
