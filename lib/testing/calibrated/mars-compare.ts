/**
 * MARS vs a single node-level replay on the calibrated world (issue 15 "Done when": repair-search
 * repairs failures that a single node-level replay misses, at a measured rate, with every tree node
 * a valid bundle whose prefix verified). Shared by `mars-compare.test.ts` and
 * `scripts/bench-mars.ts`. Test support; no real model: the world's seeded scripted model
 * (./world.ts), the scripted MARS selector (../scripted-mars.ts, a LOCAL OpenAI-compatible server)
 * and the calibrated MARS judge command (scripts/calibrated-mars-judge.mjs: the rubric's evidence
 * rule, exact in this world).
 *
 * Per recorded failure, sequentially: one attempt of the single method (default `nudge`: Generic
 * Nudge at the detector's anchor, which maps to the repair boundary B in every case), then one
 * `mars` attempt (lib/services/experiments/methods/mars.ts, in-process), each with the world's
 * evaluator. The world logs every random decision (class, position, p); sequential runs let each
 * decision be attributed to its attempt.
 *
 * **Expectation from the truth table (not fitted)**: every decision is a Bernoulli draw with the
 * p the truth table gives for what the model saw there (class × position). For the single replay,
 * P(pass) = 1 − Π(1 − p) over its draws. For MARS, whose judge is exact so the search stops at its
 * first recovery, the compensator h = Σ p over the draws the search took has E[h] = P(MARS
 * repaired) (optional stopping: #recoveries − Σ p is a martingale). The single replay and the
 * search draw independently (different request keys), so E[repaired by MARS where the single
 * replay failed] = Σ_cases (1 − P_single) · h. Each predicted count is checked against the Wilson
 * 95% interval of the measured one.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { validateBundle, type ReplayBundle } from "../../bundle";
import { rateWithWilson, type RateCI } from "../../experiments";
import type { SearchState } from "../../repair-search";
import { parseStateRef, type ReplaySearchEnvironment } from "../../services/repair-search/environment";
import { METHODS } from "../../services/experiments/methods";
import { runMarsAttempt } from "../../services/experiments/methods/mars";
import type { AttemptOutcome, ExperimentCaseInput, ExperimentSettings, MethodName } from "../../services/experiments/methods/types";
import { startScriptedMarsControl } from "../scripted-mars";
import { buildCalibratedMas, REPO_ROOT } from "./fast-mas";
import type { Decision } from "./policy";
import { recordCalibratedFailures } from "./record";
import { startCalibratedWorld } from "./world";

export interface MarsCompareOptions {
  /** Recorded failures (cases). */
  cases: number;
  /** MARS N_iter per case (default 8); K and L default to the paper's 3 and 4. */
  iterations?: number;
  k?: number;
  l?: number;
  /** The single node-level replay (default "nudge"). */
  single?: MethodName;
  /** World seed (default 13). */
  seed?: number;
  /** Work directory (the MAS bundle, node bundles). */
  dir: string;
  log?: (line: string) => void;
}

/** Checks of one tree node's bundle. */
export interface NodeCheck {
  node: string;
  kind: string;
  valid: boolean;
  /** The parent's prefix is in the bundle unchanged (rollback: the cut is one of the parent's checkpoints and nothing ran). */
  prefixVerified: boolean;
  problem: string | null;
}

export interface MarsCompareCase {
  id: string;
  category: string;
  single: { status: AttemptOutcome["status"]; passed: boolean; p: number; draws: number };
  mars: { status: AttemptOutcome["status"]; passed: boolean; h: number; draws: number; iterations: number; nodes: number; stopped: string | null; calls: number; auxCalls: number; tokens: number; auxTokens: number; error: string | null };
  nodeChecks: NodeCheck[];
}

export interface MarsCompareResult {
  cases: MarsCompareCase[];
  n: number;
  single: RateCI & { predicted: number };
  mars: RateCI & { predicted: number };
  /** Repaired by MARS where the single replay failed, over all n cases. */
  marsWhereSingleFailed: RateCI & { predicted: number };
  /** The reverse discordant count (single passed, MARS failed). */
  singleWhereMarsFailed: number;
  /** Every tree node over all searches. */
  nodes: { total: number; invalid: number; unverified: number; problems: string[] };
  /** MARS spend per repaired case (MAS calls, aux = selector + judge calls, tokens), null when none repaired. */
  perRepaired: { masCalls: number | null; auxCalls: number | null; tokens: number | null };
  recordMs: number;
  singleMs: number;
  marsMs: number;
}

/** Check every node of a finished search against its parent (module doc; the environment's invariants). */
export function checkTreeNodes(state: SearchState, env: ReplaySearchEnvironment): NodeCheck[] {
  const out: NodeCheck[] = [];
  for (const id of state.order.slice(1)) {
    const n = state.nodes[id];
    const kind = n.action?.kind ?? "none";
    if (!n.state) {
      out.push({ node: id, kind, valid: false, prefixVerified: false, problem: `no bundle: ${n.error ?? "not built"}` });
      continue;
    }
    const parent = state.nodes[n.parentId!];
    const ref = parseStateRef(n.state.stateRef);
    const pref = parseStateRef(parent.state!.stateRef);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(env.fileOf(n.state.stateRef), "utf8"));
    } catch (e) {
      out.push({ node: id, kind, valid: false, prefixVerified: false, problem: `unreadable bundle: ${(e as Error).message}` });
      continue;
    }
    const v = validateBundle(raw);
    if (!v.ok) {
      out.push({ node: id, kind, valid: false, prefixVerified: false, problem: v.issues.slice(0, 2).map((i) => `${i.path} ${i.message}`).join("; ") });
      continue;
    }
    const b = v.bundle;
    const pb = env.bundleOf(parent.state!.stateRef);
    let problem: string | null = null;
    if (n.action?.kind === "rollback") {
      // Executes nothing: the parent's bundle, cut before one of the parent's checkpoints.
      if (ref.file !== pref.file || ref.cut !== n.action.checkpoint || !parent.state!.checkpoints.includes(n.action.checkpoint) || n.state.usage.calls !== 0) problem = "rollback node is not its parent's bundle cut at one of its checkpoints";
    } else {
      const p = b.parent as (ReplayBundle["parent"] & { boundarySeq?: number }) | null | undefined;
      const cutSeq = pref.cut === null ? pb.records.length : pb.records.findIndex((r) => r.nodeId === pref.cut);
      if (!p || p.bundleId !== pb.id) problem = `parent.bundleId ${p?.bundleId ?? "(none)"} is not the parent node's bundle ${pb.id}`;
      else if (pref.cut !== null && p.mode !== "selective") problem = `replay to a cut has mode ${p.mode}, not selective`;
      else if (pref.cut === null && (p.mode !== "continue" || p.boundarySeq !== pb.records.length)) problem = `continue replay has mode ${p.mode} boundarySeq ${p.boundarySeq}, expected continue at ${pb.records.length}`;
      else if (cutSeq < 0) problem = `cut ${pref.cut} not in the parent bundle`;
      else if (JSON.stringify(b.records.slice(0, cutSeq)) !== JSON.stringify(pb.records.slice(0, cutSeq))) problem = `the first ${cutSeq} records differ from the parent's (prefix not verified)`;
    }
    out.push({ node: id, kind, valid: true, prefixVerified: problem === null, problem });
  }
  return out;
}

const pass1 = (ds: Decision[]) => 1 - ds.reduce((acc, d) => acc * (1 - d.p), 1);
const sumP = (ds: Decision[]) => ds.reduce((a, d) => a + d.p, 0);
const mas = (ds: Decision[]) => ds.filter((d) => d.position !== "aux");

/**
 * Record `cases` failures in a fresh calibrated world, then per case one single replay and one
 * MARS attempt (module doc). Starts and stops its own world, live world and selector server.
 */
export async function runMarsComparison(o: MarsCompareOptions): Promise<MarsCompareResult> {
  const log = o.log ?? (() => {});
  const seed = o.seed ?? 13;
  const single: MethodName = o.single ?? "nudge";
  const command = buildCalibratedMas(path.join(o.dir, "mas"));
  const r0 = performance.now();
  const rec = await startCalibratedWorld({ seed, session: "record", tasks: Math.max(48, Math.ceil(o.cases * 1.25) + 8) });
  let failures;
  try {
    failures = (await recordCalibratedFailures(rec, { count: o.cases, command })).failures;
  } finally {
    await rec.stop();
  }
  const recordMs = performance.now() - r0;
  const world = await startCalibratedWorld({ seed, session: "live" });
  const control = await startScriptedMarsControl();
  const settings: ExperimentSettings = {
    upstream: world.upstream,
    toolUpstream: world.toolUpstream,
    model: null,
    evaluator: `node ${path.join(REPO_ROOT, "scripts/calibrated-evaluator.mjs")}`,
    reproductionJudge: null,
    command,
    seed,
    attempts: 1,
    budget: { maxCalls: null, maxTokens: null },
    timeoutMs: 60_000,
    mars: {
      iterations: o.iterations ?? 8,
      k: o.k ?? 3,
      l: o.l ?? 4,
      maxDepth: 8,
      c: 1.41,
      maxCalls: null,
      maxTokens: null,
      selector: { upstream: control.url, model: "scripted-model" },
      judge: { kind: "command", command: `node ${path.join(REPO_ROOT, "scripts/calibrated-mars-judge.mjs")}` },
    },
  };
  const out: MarsCompareCase[] = [];
  let singleMs = 0;
  let marsMs = 0;
  try {
    for (const [i, f] of failures.entries()) {
      const c: ExperimentCaseInput = { caseId: f.task.id, bundle: f.bundle, mas: "calibrated", benchmark: "calibrated", task: f.task.prompt, reference: f.reference, runner: null };
      const signal = new AbortController().signal;
      let d0 = world.decisions.length;
      let t0 = performance.now();
      const so = await METHODS[single].run({ case: c, method: single, attempt: 1, settings, seed: 10_000 + i, previous: [], signal });
      singleMs += performance.now() - t0;
      const sd = mas(world.decisions.slice(d0));
      d0 = world.decisions.length;
      t0 = performance.now();
      const m = await runMarsAttempt({ case: c, method: "mars", attempt: 1, settings, seed: 20_000 + i, previous: [], signal }, { dir: path.join(o.dir, "mars", f.task.id) });
      marsMs += performance.now() - t0;
      const md = mas(world.decisions.slice(d0));
      const checks = m.state && m.env ? checkTreeNodes(m.state, m.env) : [];
      const row: MarsCompareCase = {
        id: f.task.id,
        category: f.task.category,
        single: { status: so.status, passed: so.passed === true, p: pass1(sd), draws: sd.length },
        mars: {
          status: m.outcome.status,
          passed: m.outcome.passed === true,
          h: sumP(md),
          draws: md.length,
          iterations: m.state?.iteration ?? 0,
          nodes: m.state?.order.length ?? 0,
          stopped: m.state?.stopped ?? null,
          calls: m.outcome.calls,
          auxCalls: m.outcome.auxCalls,
          tokens: m.outcome.tokens.total,
          auxTokens: m.outcome.auxTokens ?? 0,
          error: m.outcome.error,
        },
        nodeChecks: checks,
      };
      out.push(row);
      log(`${row.id} ${row.category}: single ${single} ${row.single.passed ? "passed" : "failed"} (p ${row.single.p.toFixed(2)}); mars ${row.mars.passed ? "passed" : row.mars.status} after ${row.mars.iterations} it (${row.mars.stopped}), ${row.mars.draws} draws Σp ${row.mars.h.toFixed(2)}, ${checks.length} nodes checked`);
    }
  } finally {
    await world.stop();
    await control.close();
  }
  const n = out.length;
  const x = (f: (c: MarsCompareCase) => boolean) => out.filter(f).length;
  const repaired = out.filter((c) => c.mars.passed);
  const per = (v: number) => (repaired.length ? v / repaired.length : null);
  const allChecks = out.flatMap((c) => c.nodeChecks.map((k) => ({ ...k, case: c.id })));
  return {
    cases: out,
    n,
    single: { ...rateWithWilson(x((c) => c.single.passed), n), predicted: out.reduce((a, c) => a + c.single.p, 0) },
    mars: { ...rateWithWilson(x((c) => c.mars.passed), n), predicted: out.reduce((a, c) => a + c.mars.h, 0) },
    marsWhereSingleFailed: { ...rateWithWilson(x((c) => c.mars.passed && !c.single.passed), n), predicted: out.reduce((a, c) => a + (1 - c.single.p) * c.mars.h, 0) },
    singleWhereMarsFailed: x((c) => c.single.passed && !c.mars.passed),
    nodes: {
      total: allChecks.length,
      invalid: allChecks.filter((k) => !k.valid).length,
      unverified: allChecks.filter((k) => !k.prefixVerified).length,
      problems: allChecks.filter((k) => k.problem).map((k) => `${k.case} ${k.node} (${k.kind}): ${k.problem}`),
    },
    perRepaired: {
      masCalls: per(out.reduce((a, c) => a + c.mars.calls, 0)),
      auxCalls: per(out.reduce((a, c) => a + c.mars.auxCalls, 0)),
      tokens: per(out.reduce((a, c) => a + c.mars.tokens, 0)),
    },
    recordMs,
    singleMs,
    marsMs,
  };
}
