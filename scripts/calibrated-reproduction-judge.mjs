#!/usr/bin/env node
/**
 * Reproduction judge of the calibrated world (lib/testing/calibrated/README.md), a command with the
 * evaluator's contract (lib/services/replay-evaluate.ts) for `experiment run --reproduction-judge`:
 *   SYMTRACE_TASK, SYMTRACE_FINAL (JSON), SYMTRACE_BUNDLE (path of the attempt's bundle, optional).
 * An attempt reproduces the source failure when (1) its answer is the amount of the task's failure
 * mechanism (qty × the assumed 10.00 EUR for C1–C3, qty × the flyer price for C4), not the
 * reference, and (2) its trajectory shows the trap's symptom of the same category (C1 the
 * placeholder, C2 the repeated lookup, C3 the failed lookup, C4 the flyer answer) — when the bundle
 * is given. A different failure (no answer, another wrong amount) does not reproduce it.
 * Exit 0 = reproduced, 1 = not reproduced, 2 = not a calibrated task / unreadable input.
 * stdout: one JSON object { reproduced, category, got, failureAmount, symptom }.
 * SYMTRACE_EVAL_TIMING_FILE (benchmarks): the process (or worker thread) appends its lifetime in ms to that file at exit.
 */
import { isMainThread } from "node:worker_threads";
import { appendFileSync, readFileSync } from "node:fs";
import { amountOf, failureAmount, parseTask } from "../lib/testing/calibrated/catalogue.mjs";

// Benchmark hook (scripts/bench-experiments.ts): "<lifetime ms> <start epoch ms>", appended at exit.
if (process.env.SYMTRACE_EVAL_TIMING_FILE) {
  // In a worker thread (lib/services/js-evaluator.ts) performance.timeOrigin is the process's: count from here.
  const start = isMainThread ? performance.timeOrigin : Date.now();
  process.on("exit", () => appendFileSync(process.env.SYMTRACE_EVAL_TIMING_FILE, `${(Date.now() - start).toFixed(1)} ${start.toFixed(1)}\n`));
}

const task = parseTask(process.env.SYMTRACE_TASK ?? "");
if (!task) {
  console.log(JSON.stringify({ error: "not a calibrated task ([calibrated task nnn] …)" }));
  process.exit(2);
}
let final;
try {
  final = JSON.parse(process.env.SYMTRACE_FINAL ?? "null");
} catch {
  console.log(JSON.stringify({ error: "SYMTRACE_FINAL is not JSON" }));
  process.exit(2);
}
const it = task.item;
const got = final === null || final === undefined ? null : amountOf(final);
const wrong = failureAmount(it, task.qty);
const sameAnswer = got !== null && Math.abs(got - wrong) < 0.005;

/** Whether the bundle shows the trap's symptom; null when no bundle was given. */
function symptom(file) {
  if (!file) return null;
  let b;
  try {
    b = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    console.log(JSON.stringify({ error: `cannot read SYMTRACE_BUNDLE ${file}: ${e.message}` }));
    process.exit(2);
  }
  const nodes = Array.isArray(b?.graph?.nodes) ? b.graph.nodes : [];
  const text = (n) => (n && n.content && typeof n.content.content === "string" ? n.content.content : "");
  if (it.category === "C1") return nodes.some((n) => n.type === "agent_action" && text(n).includes("[insert unit price]"));
  if (it.category === "C4") return nodes.some((n) => n.type === "agent_action" && text(n).includes("(from the flyer). Final answer:"));
  if (it.category === "C3") return nodes.some((n) => n.type === "tool_result" && n.status === "error" && JSON.stringify(n.content ?? null).includes("NotFound"));
  const skus = nodes.filter((n) => n.type === "tool_call" && n.content && n.content.tool === "lookup").map((n) => JSON.stringify(n.content.arguments ?? null));
  return skus.some((s, i) => skus.indexOf(s) !== i);
}

const shows = symptom(process.env.SYMTRACE_BUNDLE);
const reproduced = sameAnswer && shows !== false;
console.log(JSON.stringify({ reproduced, category: it.category, got, failureAmount: wrong, symptom: shows }));
process.exit(reproduced ? 0 : 1);
