#!/usr/bin/env node
/**
 * Evaluator of the calibrated world (lib/testing/calibrated/README.md) for SYMTRACE_REPLAY_EVALUATOR
 * and `experiment run --evaluator` (contract: lib/services/replay-evaluate.ts):
 *   SYMTRACE_TASK   the task prompt (a task-level method's longer task text is fine: the calibrated
 *                   task inside it is found); SYMTRACE_FINAL  the run's final answer as JSON.
 * Exit 0 = passed (the answer's amount equals qty × the correct unit price, to the cent), 1 = failed,
 * 2 = not a calibrated task (outcome unknown). stdout: one JSON object { expected, got, category }.
 *
 *   SYMTRACE_REPLAY_EVALUATOR="node scripts/calibrated-evaluator.mjs"
 * SYMTRACE_EVAL_TIMING_FILE (benchmarks): the process (or worker thread) appends its lifetime in ms to that file at exit.
 */
import { isMainThread } from "node:worker_threads";
import { appendFileSync } from "node:fs";
import { amountOf, parseTask, referenceAmount } from "../lib/testing/calibrated/catalogue.mjs";

// Benchmark hook (scripts/bench-experiments.ts): "<lifetime ms> <start epoch ms>", appended at exit.
if (process.env.SYMTRACE_EVAL_TIMING_FILE) {
  // In a worker thread (lib/services/js-evaluator.ts) performance.timeOrigin is the process's: count from here.
  const start = isMainThread ? performance.timeOrigin : Date.now();
  process.on("exit", () => appendFileSync(process.env.SYMTRACE_EVAL_TIMING_FILE, `${(Date.now() - start).toFixed(1)} ${start.toFixed(1)}\n`));
}

const task = parseTask(process.env.SYMTRACE_TASK ?? "");
if (!task) {
  console.log(JSON.stringify({ error: "not a calibrated task ([calibrated task nnn] …): no reference answer" }));
  process.exit(2);
}
let final;
try {
  final = JSON.parse(process.env.SYMTRACE_FINAL ?? "null");
} catch {
  console.log(JSON.stringify({ error: "SYMTRACE_FINAL is not JSON" }));
  process.exit(2);
}
const expected = referenceAmount(task.item, task.qty);
const got = final === null || final === undefined ? null : amountOf(final);
const passed = got !== null && Math.abs(got - expected) < 0.005;
console.log(JSON.stringify({ expected, got, category: task.item.category }));
process.exit(passed ? 0 : 1);
