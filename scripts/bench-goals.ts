/**
 * The figures of issue 25 as `npm run bench` measured them, gathered from the benchmark parts
 * and printed together at the end with each goal and "met" / "NOT met" (or "not measured" when
 * the part was skipped or could not measure it), beside the machine's load average.
 */
import os from "node:os";

/** One figure of issue 25. */
export interface GoalFigure {
  /** The issue's item number (1 experiment throughput, 2 first paint, 3 import, 5 replay matching). */
  item: number;
  name: string;
  /** The measured value as printed (with its unit), or null when not measured. */
  value: string | null;
  goal: string;
  met: boolean | null;
  /** The 1-minute load average when the figure was measured. */
  load: number;
  note?: string;
}

const figures: GoalFigure[] = [];

/** Record one issue-25 figure (the load average is taken now). */
export function goalFigure(f: Omit<GoalFigure, "load">): void {
  figures.push({ ...f, load: os.loadavg()[0] });
}

/** The figures recorded so far. */
export function goalFigures(): readonly GoalFigure[] {
  return figures;
}

/** The goals every full run reports on, so a skipped part still prints its line ("not measured"). */
const EXPECTED: Array<Pick<GoalFigure, "item" | "name" | "goal">> = [
  { item: 1, name: "experiment runner overhead (share of wall beyond MAS time / workers)", goal: "< 20%" },
  { item: 2, name: "first graph node painted, small case", goal: "<= 500 ms" },
  { item: 2, name: "first graph node painted, 20k nodes", goal: "<= 600 ms" },
  { item: 2, name: "first graph node painted, 100k nodes", goal: "<= 1000 ms" },
  { item: 2, name: "first graph node painted, 1M nodes", goal: "<= 1500 ms" },
  { item: 3, name: "bundle import / bare better-sqlite3 insert loop (same rows, same run)", goal: ">= 0.8x" },
  { item: 5, name: "replay matching / bare canonicalize + sha256 (sequential)", goal: ">= 0.9x" },
];

/**
 * Print every recorded figure (and a "not measured" line for each expected one that is missing)
 * with its goal and verdict, then one JSON line `{"bench":"issue25",...}`.
 */
export function printGoals(): void {
  const rows = [...figures];
  for (const e of EXPECTED) if (!rows.some((f) => f.item === e.item && f.name === e.name)) rows.push({ ...e, value: null, met: null, load: os.loadavg()[0], note: "part skipped or size not run" });
  rows.sort((a, b) => a.item - b.item);
  const w = Math.max(...rows.map((r) => r.name.length));
  const l = os.loadavg().map((x) => x.toFixed(1)).join(" ");
  console.log(`issue 25 figures (${os.cpus().length} cpus; load average now ${l}; shared machine: read each figure with the load beside it)`);
  for (const r of rows) {
    const verdict = r.met === null ? "not measured" : r.met ? "met" : "NOT met";
    console.log(`  ${r.item}. ${r.name.padEnd(w)}  ${(r.value ?? "-").padStart(10)}  goal ${r.goal}: ${verdict}  (load ${r.load.toFixed(1)})${r.note ? `  ${r.note}` : ""}`);
  }
  console.log(JSON.stringify({ bench: "issue25", load: os.loadavg(), figures: rows }));
}
