/**
 * Fake experiment methods for tests (no MAS, no network): every method name of the registry,
 * with a seeded outcome per attempt — passed iff rand(ctx.seed) < passRate(method) — a given
 * number of steps of `stepMs` each (progress, abortable), and fixed calls/tokens per attempt.
 * Task-level methods are skipped (with a reason) on a case without runner when no command is set,
 * like the real ones. Test support only: the harness injects them (`methods` of the CLI / worker
 * options; lib/testing/fake-worker.ts and fake-symtrace.ts for child processes); no environment
 * variable makes the production CLI or worker load them. Every method and outcome is stamped fake.
 */
import { appendFileSync } from "node:fs";
import { METHOD_NAMES, TASK_LEVEL_METHODS, type MethodName } from "../experiments/methods";
import type { AttemptContext, AttemptOutcome, ExperimentMethod, MethodRegistry } from "../services/experiments/methods/types";

/** What a fake method is, stamped into the frozen settings and the report of any experiment it runs, and into every attempt's judge reason. */
export const FAKE_METHODS_STAMP = "FAKE methods (lib/jobs/experiment-fake-methods.ts, test harness): no MAS, no network, scripted outcomes";

export interface FakeMethodsOptions {
  /** Pass probability per method (default 0.5), or one for all. */
  passRate?: number | Partial<Record<string, number>>;
  steps?: number;
  stepMs?: number;
  /** Captured calls per attempt (default 3) and tokens per call (default 100). */
  callsPerAttempt?: number;
  tokensPerCall?: number;
  /** Attempts end with status "error" at this rate (default 0). */
  errorRate?: number;
  /** Append `<case>|<method>|<attempt>\t<worker>\t<phase>` lines (phase start | end) to this file. */
  logFile?: string;
  worker?: string;
  /** Called when an attempt starts (tests). */
  onStart?: (ctx: AttemptContext) => void;
  /** Return a bundle (a copy of the source with the verdict as outcome) so the worker stores it. */
  withBundle?: boolean;
  /** Make every task-level method applicable even without a runner/command (default false). */
  taskLevelAlwaysApplies?: boolean;
}

/** A deterministic uniform number in [0, 1) from a seed (mulberry32, one step). */
export function unitFromSeed(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

function blank(): AttemptOutcome {
  return { status: "failed", passed: false, reproduced: null, anchorNodeId: null, guidance: null, bundle: null, final: null, calls: 0, auxCalls: 0, tokens: { prompt: 0, completion: 0, total: 0 }, error: null, skipReason: null, masMs: 0, judgeReason: FAKE_METHODS_STAMP };
}

/** A registry of fake methods (every name in METHOD_NAMES). */
export function fakeMethods(o: FakeMethodsOptions = {}): MethodRegistry {
  const steps = o.steps ?? 2;
  const stepMs = o.stepMs ?? 5;
  const calls = o.callsPerAttempt ?? 3;
  const perCall = o.tokensPerCall ?? 100;
  const rate = (m: string) => (typeof o.passRate === "number" ? o.passRate : (o.passRate?.[m] ?? 0.5));
  const log = (ctx: AttemptContext, phase: string) => {
    if (o.logFile) appendFileSync(o.logFile, `${ctx.case.caseId}|${ctx.method}|${ctx.attempt}\t${o.worker ?? ""}\t${phase}\n`);
  };
  const make = (name: MethodName): ExperimentMethod => ({
    name,
    fake: FAKE_METHODS_STAMP,
    skipReason(c, s) {
      if (TASK_LEVEL_METHODS.includes(name) && !o.taskLevelAlwaysApplies && !c.runner && !s.command) return "no MAS to restart: the case has no registered runner and no command was given";
      return null;
    },
    async run(ctx) {
      o.onStart?.(ctx);
      log(ctx, "start");
      const t0 = Date.now();
      for (let i = 0; i < steps; i++) {
        if (ctx.signal.aborted) break;
        ctx.onProgress?.({ phase: `step ${i + 1}/${steps}`, liveCalls: Math.round((calls * (i + 1)) / steps) });
        await sleep(stepMs, ctx.signal);
      }
      const out = blank();
      out.masMs = Date.now() - t0;
      out.anchorNodeId = TASK_LEVEL_METHODS.includes(name) ? null : (ctx.case.bundle.order[Math.floor(unitFromSeed(ctx.seed ^ 0x5bd1e995) * ctx.case.bundle.order.length)] ?? null);
      if (ctx.signal.aborted) {
        log(ctx, "aborted");
        return { ...out, status: "cancelled", passed: null, error: `aborted (${String(ctx.signal.reason)})` };
      }
      out.calls = calls;
      out.tokens = { prompt: calls * perCall * 0.8, completion: calls * perCall * 0.2, total: calls * perCall };
      const u = unitFromSeed(ctx.seed);
      if (o.errorRate && unitFromSeed(ctx.seed ^ 0x9e3779b9) < o.errorRate) {
        log(ctx, "end");
        return { ...out, status: "error", passed: false, error: "fake framework error" };
      }
      const passed = u < rate(name);
      out.status = passed ? "passed" : "failed";
      out.passed = passed;
      out.reproduced = passed ? false : unitFromSeed(ctx.seed ^ 0x1234567) < 0.7;
      out.final = { answer: passed ? "right" : "wrong", attempt: ctx.attempt };
      if (o.withBundle) out.bundle = { ...ctx.case.bundle, id: `fake-${ctx.seed}`, outcome: { passed, evaluator: "fake" } };
      log(ctx, "end");
      return out;
    },
  });
  return Object.fromEntries(METHOD_NAMES.map((n) => [n, make(n)]));
}

/**
 * Fake methods configured from the environment, for the test harness's child processes only
 * (lib/testing/fake-worker.ts, lib/testing/fake-symtrace.ts inject them; the production CLI and
 * worker never call this, issue 20 item 5): SYMTRACE_FAKE_STEP_MS (default 50), SYMTRACE_FAKE_STEPS
 * (default 4), SYMTRACE_FAKE_PASS_RATE (default 0.4), SYMTRACE_FAKE_EXEC_LOG (a log file).
 * @returns the registry (every method stamped `fake`)
 */
export function fakeMethodsFromEnv(env: NodeJS.ProcessEnv, worker: string): MethodRegistry {
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) ? Number(v) : d);
  return fakeMethods({
    stepMs: num(env.SYMTRACE_FAKE_STEP_MS, 50),
    steps: num(env.SYMTRACE_FAKE_STEPS, 4),
    passRate: num(env.SYMTRACE_FAKE_PASS_RATE, 0.4),
    logFile: env.SYMTRACE_FAKE_EXEC_LOG,
    worker,
    taskLevelAlwaysApplies: true,
  });
}
