/**
 * Record failed source runs in the calibrated world (issue 13 item 8): each task of the suite is
 * run fresh through the recording proxy (snapshot mode, as `symtrace record`); a run whose answer
 * is wrong becomes a source case: a bundle v1 with its task (and `task.reference`, evaluator-only),
 * `outcome.passed: false`, runner `calibrated` and a reference label (the trap's node, its category
 * and the repair boundary B) in `referenceLabels` (as imported datasets carry them).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ReplayBundle } from "../../bundle";
import type { ReferenceLabel } from "../../importers/types";
import { resolveTarget } from "../../replay";
import { recordRun } from "../../services/replay/record";
import { amountOf } from "./catalogue.mjs";
import type { CalibratedTask, CalibratedWorld } from "./world";

/** Reference label of a recorded failure: the first node showing the trap's symptom. */
export interface CalibratedReference {
  nodeId: string;
  /** The LLM boundary the label node maps to (resolveTarget): where a repair acts (B). */
  boundaryNodeId: string;
  primaryCategory: "C1" | "C2" | "C3" | "C4";
  categories: string[];
  agent: string | null;
}

/** One recorded run. */
export interface RecordedRun {
  task: CalibratedTask;
  bundle: ReplayBundle;
  final: unknown;
  passed: boolean;
  exitCode: number | null;
  masMs: number;
}

const TRAP_REASON: Record<CalibratedReference["primaryCategory"], string> = {
  C1: "the Clerk reported a placeholder instead of the unit price (the item has price tiers)",
  C2: "the Clerk repeated the identical lookup and gave up with an assumed price",
  C3: "the lookup failed (NotFound: the sku was renumbered) and the run continued with an assumed price",
  C4: "the Clerk answered from the old flyer's price without tool evidence",
};

/**
 * The node where the trap's symptom first shows in a calibrated run (the world's reference label):
 * C1 the Clerk's agent_action with the placeholder; C2 the repeated lookup tool_call; C3 the failed
 * lookup's tool_result; C4 the Clerk's agent_action answering from the flyer.
 * @throws Error when the bundle does not show the trap (not a calibrated run of that task)
 */
export function referenceOf(bundle: ReplayBundle, task: CalibratedTask): CalibratedReference {
  const nodes = bundle.order.map((id) => bundle.graph.nodes.find((n) => n.id === id)!);
  const text = (c: unknown) => (typeof c === "object" && c !== null && typeof (c as { content?: unknown }).content === "string" ? (c as { content: string }).content : "");
  let node;
  if (task.category === "C1") node = nodes.find((n) => n.type === "agent_action" && text(n.content).includes("[insert unit price]"));
  else if (task.category === "C4") node = nodes.find((n) => n.type === "agent_action" && text(n.content).includes("(from the flyer). Final answer:"));
  else if (task.category === "C3") node = nodes.find((n) => n.type === "tool_result" && n.status === "error");
  else node = nodes.filter((n) => n.type === "tool_call" && (n.content as { tool?: unknown } | null)?.tool === "lookup")[1];
  if (!node) throw new Error(`calibrated reference: bundle ${bundle.id} shows no ${task.category} trap for task ${task.id}`);
  return { nodeId: node.id, boundaryNodeId: resolveTarget(bundle, node.id).boundaryNodeId, primaryCategory: task.category, categories: [task.category], agent: node.agent ?? null };
}

/**
 * Run one task fresh through the recording proxy.
 * @param command the MAS command (default: `node --import tsx mas/calibrated.ts` from the repo root)
 */
export async function recordCalibratedRun(world: CalibratedWorld, task: CalibratedTask, o: { id: string; command: string[] }): Promise<RecordedRun> {
  const r = await recordRun({
    id: o.id,
    task: { id: task.id, prompt: task.prompt, benchmark: "calibrated", reference: { expected: [task.answer.toFixed(2)] } },
    config: { mas: "calibrated" },
    upstream: world.upstream,
    toolUpstream: world.toolUpstream,
    command: o.command,
    runnerName: "calibrated",
    model: world.model,
    env: { SYMTRACE_QUIET: "1" },
  });
  if (r.status !== "recorded") throw new Error(`calibrated record: task ${task.id}: ${r.status === "failed" ? `${r.kind}: ${r.error}` : "cancelled"}`);
  const bundle = r.bundle;
  const got = amountOf(r.final ?? null);
  const passed = got === task.answer;
  bundle.outcome = { passed, evaluator: "calibrated-evaluator", details: { expected: task.answer, got } };
  return { task, bundle, final: r.final, passed, exitCode: r.masExitCode, masMs: r.masMs };
}

/** Options of recordCalibratedFailures. */
export interface RecordFailuresOptions {
  /** Failed source runs wanted. @throws when the suite cannot give that many */
  count: number;
  /** MAS command (argv). */
  command: string[];
  /** Write `<dir>/<nnn>-<task id>.json` per failure (bundle + source + referenceLabels). */
  outDir?: string;
  /** Fresh runs per task before moving to the next task (default 3). */
  triesPerTask?: number;
  /** Bundle id prefix (default `calibrated/<seed>`). */
  idPrefix?: string;
  onRun?: (r: RecordedRun, failures: number) => void;
}

/** A recorded failure ready to import: the bundle carries `source` and `referenceLabels`. */
export interface RecordedFailure {
  task: CalibratedTask;
  bundle: ReplayBundle;
  reference: CalibratedReference;
  file: string | null;
}

/**
 * Record `count` failed source runs: tasks in suite order, each run fresh until it fails (at most
 * `triesPerTask` times; a task that keeps passing is skipped). Runs one MAS at a time.
 * @throws Error when the suite runs out before `count` failures, or a run shows no trap
 */
export async function recordCalibratedFailures(world: CalibratedWorld, o: RecordFailuresOptions): Promise<{ failures: RecordedFailure[]; runs: number; passedRuns: number; masMs: number }> {
  const out: RecordedFailure[] = [];
  let runs = 0;
  let passedRuns = 0;
  let masMs = 0;
  if (o.outDir) mkdirSync(o.outDir, { recursive: true });
  const prefix = o.idPrefix ?? `calibrated/${world.seed}`;
  for (const task of world.suite) {
    if (out.length >= o.count) break;
    for (let t = 0; t < (o.triesPerTask ?? 3); t++) {
      const r = await recordCalibratedRun(world, task, { id: `${prefix}/${task.id}${t ? `/try${t + 1}` : ""}`, command: o.command });
      runs++;
      masMs += r.masMs;
      if (r.passed) passedRuns++;
      o.onRun?.(r, out.length + (r.passed ? 0 : 1));
      if (r.passed) continue;
      const reference = referenceOf(r.bundle, task);
      const label: ReferenceLabel = {
        source: "calibrated",
        annotator: "world",
        nodeId: reference.nodeId,
        agent: reference.agent,
        failureModes: [],
        reason: TRAP_REASON[task.category],
        extra: { primaryCategory: reference.primaryCategory, categories: reference.categories, boundaryNodeId: reference.boundaryNodeId, taskId: task.id, answer: task.answer, failureAnswer: task.failureAnswer },
      };
      const file = o.outDir ? path.join(o.outDir, `${String(out.length + 1).padStart(3, "0")}-${task.id}.json`) : null;
      const withMeta = { ...r.bundle, source: { dataset: "bundle", file: file ? path.basename(file) : `${task.id}.json`, subset: "calibrated" }, referenceLabels: [label] } as ReplayBundle;
      if (file) writeFileSync(file, `${JSON.stringify(withMeta, null, 1)}\n`);
      out.push({ task, bundle: withMeta, reference, file });
      break;
    }
  }
  if (out.length < o.count) throw new Error(`calibrated record: only ${out.length} failures from a suite of ${world.suite.length} tasks (wanted ${o.count}); start the world with more tasks`);
  return { failures: out, runs, passedRuns, masMs };
}
