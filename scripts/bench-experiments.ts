/**
 * Experiment runner benchmark (issue 13 item 9): an experiment of 100 failed cases × all nine
 * methods × k = 3 on the calibrated world (lib/testing/calibrated/), run by `experiment run`
 * in-process with 2 workers, the MAS bundled (lib/testing/calibrated/fast-mas.ts), the world's
 * evaluator and reproduction judge.
 *
 * Prints, for the experiment (recording the source cases is timed separately):
 * - wall time of `experiment run` (import, freeze, run, write the outputs) and of the execution
 *   window (first attempt start → last attempt end);
 * - summed MAS process time, two ways: each MAS process's lifetime as its parent sees it, spawn →
 *   exit, what `time <command>` reports (the spawn helper or the direct spawn appends it,
 *   SYMTRACE_PROCESS_TIMING_FILE), and by the MAS's own clock, from its start to its `exit` event
 *   (it appends that, SYMTRACE_MAS_TIMING_FILE). The second leaves out the process's teardown after
 *   `exit`: the calibrated MAS ends with process.exit() right after its last fetch, and a Node 20
 *   process that does that takes ~70–110 ms from its `exit` event to being gone, against ~5 ms for
 *   one that made no fetch or that exits by itself later (measured in isolation on this machine,
 *   `node -e` with and without a fetch to a local server; V8's --no-wasm-tier-up does not change
 *   it; the cause inside Node was not pinned down). That time is the MAS process's, not the runner's.
 *   The evaluator / judge processes: SYMTRACE_EVAL_TIMING_FILE;
 * - the runner's overhead as a share of wall time: 1 − (MAS time / workers) / wall (goal < 20%),
 *   with MAS time the processes' lifetimes as their parent sees them (∫ min(running, workers) dt),
 *   and the same by the MAS's own clock beside it,
 *   and the same with the evaluator/judge processes counted as work (they are the experiment's
 *   configured commands; an attempt runs its two concurrently, so the worker capacity they occupy
 *   is ∫ min(running processes, workers) dt, not the sum of their lifetimes);
 * - CPU: this process (runner + world + proxies) vs its children (MAS, evaluator, judge), from
 *   /proc/self/stat.
 * One JSON line `{"bench":"experiments",...}`. Called by scripts/bench.ts (BENCH_EXPERIMENTS=0
 * skips it); alone: `node --experimental-wasm-modules --import tsx -e "import('./scripts/bench-experiments.ts').then(m=>m.runExperimentsBench())"`.
 * Sizes: BENCH_EXP_CASES (default 100), BENCH_EXP_ATTEMPTS (3), BENCH_EXP_WORKERS (2),
 * BENCH_EXP_METHODS (all nine, comma-separated). BENCH_SMOKE=1: 3 cases, k = 1.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { runExperimentCommand } from "../cli/experiment";
import { CALIBRATED_METHODS } from "../lib/experiments/methods";
import { buildCalibratedMas, REPO_ROOT } from "../lib/testing/calibrated/fast-mas";
import { recordCalibratedFailures } from "../lib/testing/calibrated/record";
import { startCalibratedWorld } from "../lib/testing/calibrated/world";
import { spawnHelperPid } from "../lib/services/replay/spawn-helper";
import { goalFigure } from "./bench-goals";

const GOAL_OVERHEAD = 0.2;
const ALL_METHODS = CALIBRATED_METHODS.join(",");

/**
 * CPU seconds of this process and of its reaped children (Linux /proc/<pid>/stat; null elsewhere).
 * MAS processes started through the spawn helper are its children: the helper's own and its reaped
 * children's CPU time are added to `children`.
 */
function cpuTimes(): { self: number; children: number } | null {
  const own = statTimes("self");
  if (!own) return null;
  const hp = spawnHelperPid();
  const h = hp === null ? null : statTimes(String(hp));
  return { self: own.self, children: own.children + (h ? h.self + h.children : 0) };
}

function statTimes(pid: string): { self: number; children: number } | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
    // fields after the command: state(3) … utime(14) stime(15) cutime(16) cstime(17), 1-based in proc(5)
    const tick = 100;
    const n = (i: number) => Number(rest[i - 3]) / tick;
    return { self: n(14) + n(15), children: n(16) + n(17) };
  } catch {
    return null;
  }
}

/** Process lifetimes from a timing file: one "<lifetime ms> <start epoch ms>" line per process. */
function readTimes(file: string): Array<{ start: number; end: number }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [ms, start] = l.split(" ").map(Number);
      return { start, end: start + ms };
    });
}

function sumLines(file: string): { ms: number; n: number } {
  const xs = readTimes(file);
  return { ms: xs.reduce((a, x) => a + (x.end - x.start), 0), n: xs.length };
}

/**
 * Worker time spent with a child process running: ∫ min(active processes, workers) dt over the
 * intervals (ms). An attempt's evaluator and judge run concurrently, so summing their lifetimes
 * would count one worker slot twice; this counts each moment at most `workers` times.
 */
function occupiedMs(intervals: Array<{ start: number; end: number }>, workers: number): number {
  const ev = intervals.flatMap((x) => [[x.start, 1] as const, [x.end, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let active = 0;
  let last = 0;
  let total = 0;
  for (const [t, d] of ev) {
    if (active > 0) total += Math.min(active, workers) * (t - last);
    active += d;
    last = t;
  }
  return total;
}

export async function runExperimentsBench(): Promise<void> {
  const cases = Number(process.env.BENCH_EXP_CASES ?? 100);
  const k = Number(process.env.BENCH_EXP_ATTEMPTS ?? 3);
  const workers = Number(process.env.BENCH_EXP_WORKERS ?? 2);
  const methods = process.env.BENCH_EXP_METHODS ?? ALL_METHODS;
  const dir = mkdtempSync(path.join(os.tmpdir(), "symtrace-bench-exp-"));
  const masTiming = path.join(dir, "mas-times.txt");
  const processTiming = path.join(dir, "process-times.txt");
  const evalTiming = path.join(dir, "eval-times.txt");
  const prevQuiet = process.env.SYMTRACE_QUIET;
  process.env.SYMTRACE_QUIET = "1";
  try {
    const mas = buildCalibratedMas(path.join(dir, "mas"));
    const r0 = performance.now();
    const rec = await startCalibratedWorld({ seed: 13, session: "record", tasks: Math.max(48, Math.ceil(cases * 1.25) + 8) });
    let recorded;
    try {
      recorded = await recordCalibratedFailures(rec, { count: cases, command: mas, outDir: path.join(dir, "cases") });
    } finally {
      await rec.stop();
    }
    const recordMs = performance.now() - r0;

    const world = await startCalibratedWorld({ seed: 13 });
    process.env.SYMTRACE_MAS_TIMING_FILE = masTiming;
    process.env.SYMTRACE_PROCESS_TIMING_FILE = processTiming;
    process.env.SYMTRACE_EVAL_TIMING_FILE = evalTiming;
    const cpu0 = cpuTimes();
    const t0 = performance.now();
    let res;
    try {
      res = await runExperimentCommand(
        [
          "--cases", path.join(dir, "cases"), "--methods", methods, "--attempts", String(k),
          "--upstream", world.upstream, "--tool-upstream", world.toolUpstream,
          "--evaluator", `node ${path.join(REPO_ROOT, "scripts", "calibrated-evaluator.mjs")}`,
          "--reproduction-judge", `node ${path.join(REPO_ROOT, "scripts", "calibrated-reproduction-judge.mjs")}`,
          "--seed", "13", "--workers", String(workers), "--out", path.join(dir, "out"), "--", ...mas,
        ],
        { url: `file:${path.join(dir, "bench.db")}`, log: () => {} },
      );
    } finally {
      delete process.env.SYMTRACE_MAS_TIMING_FILE;
      delete process.env.SYMTRACE_PROCESS_TIMING_FILE;
      delete process.env.SYMTRACE_EVAL_TIMING_FILE;
      await world.stop();
    }
    const wallMs = performance.now() - t0;
    const cpu1 = cpuTimes();
    if (res.code !== 0) throw new Error(`experiment run exited ${res.code}: ${JSON.stringify(res.output).slice(0, 500)}`);
    const doc = JSON.parse(readFileSync(path.join(dir, "out", "experiment.json"), "utf8")) as { attempts: Array<{ status: string; startedAt: string | null; finishedAt: string | null; masMs: number }> };
    const ran = doc.attempts.filter((a) => a.startedAt && a.finishedAt);
    const windowMs = ran.length ? Math.max(...ran.map((a) => Date.parse(a.finishedAt!))) - Math.min(...ran.map((a) => Date.parse(a.startedAt!))) : 0;
    const masT = sumLines(masTiming);
    const procT = sumLines(processTiming);
    const procOccupied = occupiedMs(readTimes(processTiming), workers);
    const evT = sumLines(evalTiming);
    // The figure: MAS time as the processes' lifetimes seen by their parent (spawn -> exit).
    const overhead = 1 - procOccupied / workers / wallMs;
    const overheadWindow = windowMs ? 1 - procOccupied / workers / windowMs : null;
    // By the MAS's own clock (start -> its exit event; leaves out its teardown).
    const overheadOwnClock = 1 - masT.ms / workers / wallMs;
    // Counting the evaluator / judge processes as work too (user commands, not the runner): the
    // share of worker capacity during which a MAS, evaluator or judge process was running.
    const overheadWithEval = 1 - occupiedMs([...readTimes(processTiming), ...readTimes(evalTiming)], workers) / workers / wallMs;
    const cpuSelf = cpu0 && cpu1 ? cpu1.self - cpu0.self : null;
    const cpuChildren = cpu0 && cpu1 ? cpu1.children - cpu0.children : null;
    const statuses: Record<string, number> = {};
    for (const a of doc.attempts) statuses[a.status] = (statuses[a.status] ?? 0) + 1;

    const rows: Array<[string, string]> = [
      [`record ${cases} failed source runs`, `${(recordMs / 1000).toFixed(1)} s (${recorded.runs} runs)`],
      [`experiment run (${doc.attempts.length} attempts, ${workers} workers)`, `${(wallMs / 1000).toFixed(1)} s wall; execution window ${(windowMs / 1000).toFixed(1)} s`],
      ["summed MAS process time, spawn → exit", `${(procT.ms / 1000).toFixed(1)} s over ${procT.n} processes (${(procT.ms / Math.max(1, procT.n)).toFixed(0)} ms each; as their parent sees them)`],
      ["… by the MAS's own clock, start → exit event", `${(masT.ms / 1000).toFixed(1)} s over ${masT.n} processes (${(masT.ms / Math.max(1, masT.n)).toFixed(0)} ms each; leaves out the process's teardown)`],
      ["summed evaluator + judge time", `${(evT.ms / 1000).toFixed(1)} s over ${evT.n} processes`],
      ["runner overhead (1 − MAS/workers/wall)", `${(overhead * 100).toFixed(1)}% of wall (window: ${overheadWindow === null ? "–" : `${(overheadWindow * 100).toFixed(1)}%`}); goal < ${GOAL_OVERHEAD * 100}%: ${overhead < GOAL_OVERHEAD ? "met" : "NOT met"}`],
      ["… with MAS time by the MAS's own clock", `${(overheadOwnClock * 100).toFixed(1)}% of wall`],
      ["… counting evaluator + judge processes as work", `${(overheadWithEval * 100).toFixed(1)}% (1 − ∫min(running MAS/evaluator/judge processes, workers)/workers/wall)`],
      ["CPU: runner process / children", cpuSelf === null ? "n/a" : `${cpuSelf.toFixed(1)} s / ${cpuChildren!.toFixed(1)} s (runner ${((cpuSelf / (cpuSelf + cpuChildren!)) * 100).toFixed(1)}% of CPU)`],
      ["attempt statuses", JSON.stringify(statuses)],
    ];
    const w = Math.max(...rows.map((r) => r[0].length));
    console.log(`experiment benchmark (calibrated world, ${cases} cases × ${methods.split(",").length} methods × k=${k}, node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg()[0].toFixed(1)})`);
    for (const [name, v] of rows) console.log(`  ${name.padEnd(w)}  ${v}`);
    goalFigure({ item: 1, name: "experiment runner overhead (share of wall beyond MAS time / workers)", value: `${(overhead * 100).toFixed(1)}%`, goal: `< ${GOAL_OVERHEAD * 100}%`, met: overhead < GOAL_OVERHEAD, note: `MAS ${(procT.ms / 1000).toFixed(1)} s (spawn → exit) over ${procT.n} processes, wall ${(wallMs / 1000).toFixed(1)} s, ${workers} workers; by the MAS's own clock (${(masT.ms / 1000).toFixed(1)} s, no teardown) ${(overheadOwnClock * 100).toFixed(1)}%; counting evaluator + judge as work ${(overheadWithEval * 100).toFixed(1)}%` });
    console.log(
      JSON.stringify({
        bench: "experiments",
        cases,
        methods: methods.split(",").length,
        attempts_k: k,
        workers,
        attempt_rows: doc.attempts.length,
        record_ms: Math.round(recordMs),
        wall_ms: Math.round(wallMs),
        window_ms: Math.round(windowMs),
        mas_ms: Math.round(procT.ms),
        mas_processes: procT.n,
        mas_own_clock_ms: Math.round(masT.ms),
        overhead_own_clock_pct: Number((overheadOwnClock * 100).toFixed(1)),
        eval_ms: Math.round(evT.ms),
        eval_processes: evT.n,
        overhead_pct: Number((overhead * 100).toFixed(1)),
        overhead_window_pct: overheadWindow === null ? null : Number((overheadWindow * 100).toFixed(1)),
        overhead_with_eval_pct: Number((overheadWithEval * 100).toFixed(1)),
        goal_met: overhead < GOAL_OVERHEAD,
        cpu_runner_s: cpuSelf,
        cpu_children_s: cpuChildren,
        load1: Number(os.loadavg()[0].toFixed(2)),
        statuses,
      }),
    );
  } finally {
    if (prevQuiet === undefined) delete process.env.SYMTRACE_QUIET;
    else process.env.SYMTRACE_QUIET = prevQuiet;
    if (process.env.BENCH_KEEP === "1") console.error(`bench: kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
