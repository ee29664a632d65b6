#!/usr/bin/env node
/**
 * A reference evaluator for the reference MAS's demo task (mas/scripted-policy.ts DEMO_TASK), for
 * SYMTRACE_REPLAY_EVALUATOR (contract: lib/services/replay-evaluate.ts):
 *   SYMTRACE_TASK   the task prompt; SYMTRACE_FINAL  the final_result node's content as JSON.
 * Exit 0 = passed, 1 = failed, 2 = not a task this evaluator knows (outcome unknown).
 * stdout: one JSON object { expected, got, missing }.
 *
 * Reference answer (mas/tools/site/prices.md, hilltop-gardens.md): the cheapest entry for
 * 2 adults and 3 children is the family ticket, €16.00 (not 2 × €6.00 + 3 × €3.00 = €21.00);
 * Saturday opening hours 09:00–18:00. Both must appear in the answer.
 *
 *   SYMTRACE_REPLAY_EVALUATOR="node scripts/hilltop-evaluator.mjs"
 */
const task = process.env.SYMTRACE_TASK ?? "";
if (!/Hilltop Gardens/i.test(task) || !/2 adults/i.test(task) || !/3 children/i.test(task)) {
  console.log(JSON.stringify({ error: "not the Hilltop Gardens task (2 adults, 3 children): no reference answer" }));
  process.exit(2);
}
let final = null;
try {
  final = JSON.parse(process.env.SYMTRACE_FINAL ?? "null");
} catch {
  console.log(JSON.stringify({ error: "SYMTRACE_FINAL is not JSON" }));
  process.exit(2);
}
const got = typeof final === "string" ? final : final && typeof final.final === "string" ? final.final : JSON.stringify(final);
const expected = ["€16.00", "09:00–18:00"];
const missing = expected.filter((x) => !got.includes(x));
console.log(JSON.stringify({ expected, got, missing }));
process.exit(missing.length ? 1 : 0);
