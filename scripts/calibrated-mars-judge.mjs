#!/usr/bin/env node
/**
 * MARS judge of the calibrated world (lib/testing/calibrated/README.md "MARS"), a judge command
 * with the evaluator's environment contract (lib/services/replay-evaluate.ts) for repair searches
 * (`repair-search --judge-cmd`, `experiment run --mars-judge-cmd`):
 *   SYMTRACE_TASK (the original task), SYMTRACE_FINAL (JSON, null while the run has not ended),
 *   SYMTRACE_BUNDLE (the trajectory; for a rollback node, the part before the cut).
 * It applies the evidence rule of the paper's judge rubric (seeds/002: an answer must be backed by
 * tool evidence, else FM 3.3 and score ≤ 0.3) and nothing else, reading ONLY the trajectory and
 * the task text (never the reference answer):
 * - no final answer yet → score 0.5, "None" (in progress);
 * - a final answer equal (to the cent) to qty × the unit price a SUCCESSFUL `lookup` result in the
 *   trajectory shows (C1: its price tier for qty) → score 1.0, found_solution, "None";
 * - a final answer with no successful lookup showing a price → score 0.2, "FM 3.3";
 * - a final answer that disagrees with the looked-up price → score 0.2, "FM 3.3" (not backed by it).
 * In this world the tool's data are always true, so the judge is exact: a trajectory scores 1.0 iff
 * the evaluator will accept it. Prints `{score, found_solution, failureMode, feedback}`;
 * exit 0 = found solution, 1 = not, 2 = not a calibrated task / unreadable input.
 * SYMTRACE_EVAL_TIMING_FILE (benchmarks): the process (or worker thread) appends its lifetime in ms to that file at exit.
 */
import { isMainThread } from "node:worker_threads";
import { appendFileSync, readFileSync } from "node:fs";
import { amountOf, parseTask } from "../lib/testing/calibrated/catalogue.mjs";

if (process.env.SYMTRACE_EVAL_TIMING_FILE) {
  // In a worker thread (lib/services/js-evaluator.ts) performance.timeOrigin is the process's: count from here.
  const start = isMainThread ? performance.timeOrigin : Date.now();
  process.on("exit", () => appendFileSync(process.env.SYMTRACE_EVAL_TIMING_FILE, `${(Date.now() - start).toFixed(1)}\n`));
}

const out = (v, code) => {
  console.log(JSON.stringify(v));
  process.exit(code);
};
const task = parseTask(process.env.SYMTRACE_TASK ?? "");
if (!task) out({ error: "not a calibrated task ([calibrated task nnn] …)" }, 2);
let final;
try {
  final = JSON.parse(process.env.SYMTRACE_FINAL ?? "null");
} catch {
  out({ error: "SYMTRACE_FINAL is not JSON" }, 2);
}
let nodes = [];
if (process.env.SYMTRACE_BUNDLE) {
  try {
    const b = JSON.parse(readFileSync(process.env.SYMTRACE_BUNDLE, "utf8"));
    nodes = Array.isArray(b?.graph?.nodes) ? b.graph.nodes : [];
  } catch (e) {
    out({ error: `cannot read SYMTRACE_BUNDLE ${process.env.SYMTRACE_BUNDLE}: ${e.message}` }, 2);
  }
}

/** Unit prices for qty that successful lookup results in the trajectory show. */
function evidencePrices() {
  const prices = [];
  for (const n of nodes) {
    const c = n?.type === "tool_result" ? n.content : null;
    if (!c || typeof c !== "object" || c.status !== "success") continue;
    if (typeof c.unit_price === "number") prices.push(c.unit_price);
    else if (Array.isArray(c.price_tiers) && c.price_tiers.length) {
      let p = null;
      for (const t of c.price_tiers) if (typeof t?.unit_price === "number" && typeof t?.min_qty === "number" && task.qty >= t.min_qty) p = t.unit_price;
      if (p !== null) prices.push(p);
    }
  }
  return prices;
}

const got = final === null || final === undefined ? null : amountOf(final);
if (final === null || final === undefined) out({ score: 0.5, found_solution: false, failureMode: "None", feedback: "The run has not ended yet: no final answer to check." }, 1);
const prices = evidencePrices();
if (got === null) out({ score: 0.2, found_solution: false, failureMode: "FM 3.3", feedback: "The run ended without a numeric final answer." }, 1);
if (prices.length === 0) out({ score: 0.2, found_solution: false, failureMode: "FM 3.3", feedback: `The final answer ${got} is not backed by any successful lookup of the item's unit price.` }, 1);
const ok = prices.some((p) => Math.abs(got - Math.round(task.qty * p * 100) / 100) < 0.005);
if (ok) out({ score: 1.0, found_solution: true, failureMode: "None", feedback: `The final answer ${got} equals the quantity times the looked-up unit price.` }, 0);
out({ score: 0.2, found_solution: false, failureMode: "FM 3.3", feedback: `The final answer ${got} does not follow from the looked-up unit price; it is not backed by the tool evidence.` }, 1);
