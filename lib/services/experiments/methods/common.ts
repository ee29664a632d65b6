/**
 * Shared parts of the method plug-ins: outcome construction, the native/transcript decision, the
 * task-level run (recordRun with a changed task), the node-level run (one selective replay via
 * executeReplayWithDetails), and the end of every attempt: the evaluator (evaluateReplay, against
 * the ORIGINAL task) and the reproduction judge (../reproduction.ts).
 */
import type { ReplayBundle } from "../../../bundle";
import { finalAnswer } from "../../../replay";
import type { TaskPromptInput } from "../../../experiments/prompts";
import { evaluateReplay } from "../../replay-evaluate";
import { executeReplayWithDetails, recordRun } from "../../replay";
import { addTokens, countLive, ZERO_TOKENS } from "../llm";
import { judgeReproduction } from "../reproduction";
import type { AttemptContext, AttemptOutcome, ExperimentCaseInput, ExperimentSettings, TokenCounts } from "./types";

/** An outcome with every field at its empty value, then `o`. */
export function outcome(o: Partial<AttemptOutcome> & Pick<AttemptOutcome, "status">): AttemptOutcome {
  return {
    passed: null,
    reproduced: null,
    anchorNodeId: null,
    guidance: null,
    bundle: null,
    final: null,
    calls: 0,
    auxCalls: 0,
    tokens: { ...ZERO_TOKENS },
    error: null,
    skipReason: null,
    masMs: 0,
    judgeReason: null,
    ...o,
  };
}

/** status "skipped" with the reason. */
export const skipped = (reason: string): AttemptOutcome => outcome({ status: "skipped", skipReason: reason });

/** status "error" (kept in the denominator: passed false). */
export const errored = (error: string, o: Partial<AttemptOutcome> = {}): AttemptOutcome => outcome({ ...o, status: "error", passed: false, error: oneLine(error) });

/** status "cancelled". */
export const cancelled = (o: Partial<AttemptOutcome> = {}): AttemptOutcome => outcome({ ...o, status: "cancelled" });

/** One line of an error, no stack. */
export function oneLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split("\n")[0].slice(0, 1000);
}

/** Whether the case's MAS can be restarted: a trusted command for every case, or its registered runner. */
export const canRestart = (c: ExperimentCaseInput, s: ExperimentSettings): boolean => (s.command?.length ?? 0) > 0 || !!c.runner;

/** Node-level mode of a case: native selective replay when the MAS can be restarted, else transcript continuation. */
export const replayModeOf = (c: ExperimentCaseInput, s: ExperimentSettings): "native" | "transcript" => (canRestart(c, s) ? "native" : "transcript");

/** Skip reason shared by the task-level methods. */
export function taskLevelSkip(c: ExperimentCaseInput, s: ExperimentSettings): string | null {
  if (canRestart(c, s)) return null;
  const named = c.bundle.config.runner?.name ?? c.bundle.config.mas ?? null;
  return `task-level methods restart the MAS, but case ${c.caseId} has no registered runner and no MAS command was given (${named ? `its runner ${JSON.stringify(named)} is not registered` : "its bundle names no runner"}; an imported transcript cannot be rerun)`;
}

/** The E.1 task information of a case (the ORIGINAL task; never the evaluator-only `task.reference`). */
export function taskInput(c: ExperimentCaseInput): TaskPromptInput {
  const t = c.bundle.task as ReplayBundle["task"] & { id?: unknown; benchmark?: unknown; split?: unknown; startUrls?: unknown };
  return {
    task: c.task,
    taskId: typeof t.id === "string" && t.id ? t.id : null,
    benchmark: c.benchmark ?? (typeof t.benchmark === "string" && t.benchmark ? t.benchmark : null),
    split: typeof t.split === "string" && t.split ? t.split : null,
    startUrls: Array.isArray(t.startUrls) ? t.startUrls.filter((u): u is string => typeof u === "string") : null,
  };
}

/** The source failure's final answer text (E.1: every Self-Reflection / Critic-Agent attempt reuses it), or null. */
export function sourceFinal(c: ExperimentCaseInput): string | null {
  return finalAnswer(c.bundle)?.text ?? null;
}

/**
 * A system error behind a run that ended badly: the first live LLM record whose response is an
 * error body (the proxy's `symtrace_upstream_error` for an unreachable endpoint, an upstream HTTP
 * error), when the MAS then exited non-zero or printed no final answer. Null otherwise (a MAS that
 * recovered from a failed call is judged by the evaluator like any other run).
 */
export function liveCallFailure(bundle: ReplayBundle, live: number, exitCode: number | null, final: unknown): string | null {
  if (exitCode === 0 && final !== undefined && final !== null) return null;
  for (const r of bundle.records.slice(Math.max(0, bundle.records.length - live))) {
    if (r.boundary !== "llm") continue;
    const err = (r.response as { error?: { message?: unknown; type?: unknown } } | null)?.error;
    if (err && typeof err === "object") return `live LLM call seq ${r.seq} failed (${String(err.type ?? "error")}): ${String(err.message ?? "")}`.slice(0, 500);
  }
  return null;
}

/**
 * The attempt's identity for the MAS: SYMTRACE_ATTEMPT_SEED = the runner's derived seed
 * (hash of experiment seed, case, method, attempt). The reference MAS send it as OpenAI's `user`
 * field (mas/lib/main.ts), which the replay normalization drops; a seeded stochastic endpoint (the
 * calibrated world) keys its draws on it, so outcomes do not depend on how workers interleave.
 */
export function attemptEnv(ctx: Pick<AttemptContext, "seed">): Record<string, string> {
  return { SYMTRACE_ATTEMPT_SEED: String(ctx.seed) };
}

const progressOf = (ctx: AttemptContext) => (p: { phase: string; liveCalls: number }) => {
  try {
    ctx.onProgress?.({ phase: p.phase, liveCalls: p.liveCalls });
  } catch {
    /* a progress callback must not break the attempt */
  }
};

/** What a run produced before evaluation. */
interface Produced {
  bundle: ReplayBundle;
  final: unknown;
  calls: number;
  auxCalls: number;
  tokens: TokenCounts;
  /** of `tokens.total`: the method's own calls (the critic call); absent = 0 */
  auxTokens?: number;
  guidance: string | null;
  anchorNodeId: string | null;
  masMs: number;
}

/**
 * End of every attempt: evaluate (the attempt bundle with the ORIGINAL task as SYMTRACE_TASK) and
 * judge reproduction. No evaluator, or an evaluator that gives no verdict → status "no_verdict"
 * (passed null, the reason in judgeReason; issue 20 item 4: not a failure, excluded from rates and
 * counted). Judge problems leave `reproduced` null with the reason.
 */
export async function concludeAttempt(ctx: AttemptContext, p: Produced): Promise<AttemptOutcome> {
  try {
    ctx.onMasDone?.();
  } catch {
    /* a hook must not break the attempt */
  }
  const base: Partial<AttemptOutcome> = { bundle: p.bundle, final: p.final ?? null, calls: p.calls, auxCalls: p.auxCalls, tokens: p.tokens, ...(p.auxTokens ? { auxTokens: p.auxTokens } : {}), guidance: p.guidance, anchorNodeId: p.anchorNodeId, masMs: p.masMs };
  const task = ctx.case.task;
  const forEval = p.bundle.task.prompt === task ? p.bundle : { ...p.bundle, task: { ...p.bundle.task, prompt: task } };
  const reasons: string[] = [];
  let passed: boolean | null = null;
  let evalError: string | null = null;
  // The evaluator and the reproduction judge are independent (both read the attempt bundle, neither
  // the other's verdict): run them concurrently, so an attempt waits for one process, not two.
  const [ev, judged] = await Promise.all([
    ctx.settings.evaluator ? evaluateReplay(forEval, ctx.settings.evaluator, { timeoutMs: ctx.settings.timeoutMs, thread: true }) : Promise.resolve(null),
    judgeReproduction(ctx.settings.reproductionJudge, { attempt: p.bundle, source: ctx.case.bundle, task, reference: ctx.case.reference }, { signal: ctx.signal, timeoutMs: ctx.settings.timeoutMs }).then(
      (v) => ({ v, error: null as unknown }),
      (e: unknown) => ({ v: null, error: e }),
    ),
  ]);
  if (ctx.settings.evaluator) {
    passed = ev?.passed ?? null;
    if (passed === null) {
      const d = ev?.details as { error?: unknown } | null | undefined;
      evalError = typeof d?.error === "string" ? d.error : "evaluator gave no verdict";
      reasons.push(`no verdict: the evaluator could not judge (${evalError})`);
    } else reasons.push(`evaluator: ${passed ? "passed" : "failed"}`);
  } else reasons.push("no verdict: no evaluator configured");
  if (ctx.signal.aborted) return cancelled(base);
  let reproduced: boolean | null = null;
  if (judged.error !== null) reasons.push(`reproduction judge failed: ${oneLine(judged.error)}`);
  else if (judged.v) {
    const v = judged.v;
    reproduced = v.reproduced;
    reasons.push(`reproduction: ${v.reproduced === null ? "unknown" : v.reproduced ? "reproduced" : "not reproduced"}${v.nodeId ? ` at ${v.nodeId}` : ""}${v.category ? ` (${v.category})` : ""}: ${v.reason}`);
  }
  const judgeReason = reasons.join("\n");
  if (passed === null) return outcome({ ...base, status: "no_verdict", passed: null, reproduced, judgeReason });
  return outcome({ ...base, status: passed ? "passed" : "failed", passed, reproduced, judgeReason });
}

/**
 * A task-level attempt: record a new native run with `taskPrompt` as SYMTRACE_TASK (the bundle's
 * task keeps the source's other fields, incl. the evaluator-only `reference`, which the MAS never
 * sees; `prompt` = the changed task, `originalPrompt`, `repair: {method, attempt, sourceBundleId}`),
 * count its live calls and tokens, evaluate and judge.
 * @param aux extra calls/tokens made before the run (the critic call)
 */
export async function runTaskLevel(ctx: AttemptContext, taskPrompt: string, guidance: string | null, aux: { calls: number; tokens: TokenCounts } = { calls: 0, tokens: { ...ZERO_TOKENS } }): Promise<AttemptOutcome> {
  const c = ctx.case;
  const s = ctx.settings;
  const src = c.bundle;
  const auxPart: Partial<AttemptOutcome> = { auxCalls: aux.calls, tokens: aux.tokens, ...(aux.tokens.total ? { auxTokens: aux.tokens.total } : {}), guidance };
  if (ctx.signal.aborted) return cancelled(auxPart);
  const rec = await recordRun(
    {
      id: `${src.id}/experiment/${ctx.method}/${ctx.attempt}/${Date.now().toString(36)}`,
      task: { ...src.task, prompt: taskPrompt, originalPrompt: c.task, repair: { method: ctx.method, attempt: ctx.attempt, sourceBundleId: src.id } },
      config: { ...(src.config.mas ? { mas: src.config.mas } : {}), ...(src.config.temperature !== undefined ? { temperature: src.config.temperature } : {}) },
      upstream: s.upstream,
      toolUpstream: s.toolUpstream,
      command: s.command,
      runner: c.runner,
      runnerBundleEnv: src.config.runner?.env ?? null,
      model: s.model ?? src.config.model ?? null,
      timeoutMs: s.timeoutMs,
      env: attemptEnv(ctx),
    },
    { signal: ctx.signal, onProgress: progressOf(ctx) },
  );
  if (rec.status === "cancelled") return cancelled({ ...auxPart, calls: rec.liveCalls, masMs: rec.masMs });
  if (rec.status === "failed") return errored(rec.error, { ...auxPart, calls: rec.liveCalls, masMs: rec.masMs });
  const live = countLive(rec.bundle);
  const sys = liveCallFailure(rec.bundle, live.calls, rec.masExitCode, rec.final);
  if (sys) return errored(sys, { ...auxPart, bundle: rec.bundle, final: rec.final ?? null, calls: live.calls, tokens: addTokens(live.tokens, aux.tokens), masMs: rec.masMs });
  return concludeAttempt(ctx, { bundle: rec.bundle, final: rec.final, calls: live.calls, auxCalls: aux.calls, tokens: addTokens(live.tokens, aux.tokens), auxTokens: aux.tokens.total, guidance, anchorNodeId: null, masMs: rec.masMs });
}

/**
 * A node-level attempt: one selective replay of the source at `targetNodeId` with `guidance`
 * (native when the MAS can be restarted, else transcript continuation), counting only the live
 * records after the verified prefix; then evaluate and judge.
 * @param o.substitution the proposed correction that REPLACES the target's output (no model call;
 *   the outcome's `guidance` is then the correction; lib/services/replay ReplayRunSpec.substitution)
 * @param o.targetRule "output": map the node to the call that produced it (the matched control)
 */
export async function runNodeLevel(ctx: AttemptContext, targetNodeId: string, guidance: string, o: { substitution?: string; targetRule?: "intervention" | "output" } = {}): Promise<AttemptOutcome> {
  const c = ctx.case;
  const s = ctx.settings;
  const injected = o.substitution ?? guidance;
  const part: Partial<AttemptOutcome> = { anchorNodeId: targetNodeId, guidance: injected === "" ? null : injected };
  if (ctx.signal.aborted) return cancelled(part);
  const native = replayModeOf(c, s) === "native";
  let liveSeen = 0;
  const t0 = performance.now();
  const { result, details } = await executeReplayWithDetails(
    {
      source: c.bundle,
      targetNodeId,
      guidance,
      ...(o.substitution !== undefined ? { substitution: o.substitution } : {}),
      ...(o.targetRule ? { targetRule: o.targetRule } : {}),
      upstream: s.upstream,
      toolUpstream: s.toolUpstream,
      // Native: the recorded requests carry the source's model (a different SYMTRACE_MODEL would diverge at seq 0).
      model: native ? null : s.model,
      command: s.command,
      runner: s.command?.length ? null : c.runner,
      newBundleId: `${c.bundle.id}/experiment/${ctx.method}/${ctx.attempt}/${Date.now().toString(36)}`,
      timeoutMs: s.timeoutMs,
      env: attemptEnv(ctx),
    },
    {
      signal: ctx.signal,
      onProgress: (p) => {
        liveSeen = p.liveCalls;
        progressOf(ctx)({ phase: p.phase, liveCalls: p.liveCalls });
      },
    },
  );
  const masMs = Math.round(performance.now() - t0);
  if (result.status === "cancelled") return cancelled({ ...part, calls: liveSeen, masMs });
  if (result.status === "failed") return errored(`replay failed (${details.failure ?? "error"}): ${result.error}`, { ...part, calls: liveSeen, masMs });
  if (result.status === "diverged") {
    const r = result.report as { seq?: number; reason?: string; nodeId?: string };
    return errored(`replay diverged before the anchor at seq ${r.seq ?? "?"}${r.nodeId ? ` (${r.nodeId})` : ""}: ${r.reason ?? "request differs"} (the MAS did not repeat its recorded prefix)`, { ...part, calls: liveSeen, masMs });
  }
  if (result.status === "prefix-verified") return errored("replay stopped at the anchor (no live endpoint)", { ...part, masMs });
  const live = countLive(result.bundle, result.liveCalls);
  const sys = result.mode === "native" ? liveCallFailure(result.bundle, live.calls, details.masExitCode, details.final) : null;
  if (sys) return errored(sys, { ...part, bundle: result.bundle, final: details.final ?? null, calls: live.calls, tokens: live.tokens, masMs });
  return concludeAttempt(ctx, { bundle: result.bundle, final: details.final, calls: live.calls, auxCalls: 0, tokens: live.tokens, guidance: part.guidance ?? null, anchorNodeId: targetNodeId, masMs });
}

/**
 * A skipReason that never throws: when deciding fails (e.g. the detector rejects the bundle), null,
 * so `run` is called and reports the failure as status "error" (kept in the denominator) instead of
 * a skip.
 */
export function safeSkip(fn: (c: ExperimentCaseInput, s: ExperimentSettings) => string | null): (c: ExperimentCaseInput, s: ExperimentSettings) => string | null {
  return (c, s) => {
    try {
      return fn(c, s);
    } catch {
      return null;
    }
  };
}

/** Attempt wrapper: any throw becomes status "error" (an abort: "cancelled"). */
export async function guard(ctx: AttemptContext, run: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  try {
    return await run();
  } catch (e) {
    if (ctx.signal.aborted) return cancelled();
    return errored(`${ctx.method} failed: ${oneLine(e)}`);
  }
}
