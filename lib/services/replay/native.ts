/**
 * Native selective replay (seeds/000 §3, Algorithm 2; the bundle v1 spec §Replay): the MAS
 * command is restarted behind the OpenAI-compatible proxy + tool gateway (startBoundaryProxy) with
 * a fail-closed ReplaySession: the recorded prefix is served and verified record by record, the
 * target boundary (resolveTarget) goes live with q ⊕ Δ (appendGuidance), the rest of the run is
 * live and recorded (TraceBuilder). Outcomes: completed (new bundle), prefix-verified (no upstream:
 * the MAS is stopped at the target), diverged (the first-divergence report, Appendix A.2),
 * cancelled, failed. Entry point: ./execute.ts `executeReplayWithDetails`.
 */
import { ReplaySession, TargetError, type BoundarySession, type DivergenceReport, type Step } from "../../replay";
import { startBoundaryProxy, type BoundaryProxy, type ProxyStop } from "../../../proxy";
import { defaultId, limitOf, oneLine, type ProgressEmitter, type Rec } from "./helpers";
import { superviseMas } from "./process";
import type { MasProcess, ReplayFailureKind, ReplayRunDetails, ReplayRunOptions, ReplayRunResult, ReplayRunSpec } from "./types";

/** Run a native replay (see the module doc). Throws only for internal errors (the caller maps them to `failed`). */
export async function runNative(spec: ReplayRunSpec, opts: ReplayRunOptions, details: ReplayRunDetails, progress: ProgressEmitter): Promise<ReplayRunResult> {
  const { source } = spec;
  const failed = (kind: ReplayFailureKind, error: string): ReplayRunResult => {
    details.failure = kind;
    return { status: "failed", error, verified: progress.verified };
  };
  const runner = spec.command?.length ? null : (spec.runner ?? null);
  const command = spec.command?.length ? spec.command : (runner?.command ?? []);
  if (command.length === 0) return failed("no-command", "no command: give a registered runner or a command (a bundle's own command is never run)");

  if (spec.continueAtEnd && !spec.upstream) return failed("config", "a continue replay runs live after the recording: give an upstream");
  let session: ReplaySession;
  try {
    session = new ReplaySession({
      source,
      targetNodeId: spec.continueAtEnd ? undefined : spec.targetNodeId,
      guidance: spec.guidance,
      stopAtTarget: !spec.upstream,
      ...(spec.maxLiveLlm !== undefined ? { maxLiveLlm: spec.maxLiveLlm } : {}),
      ...(spec.continueAtEnd ? { continueAtEnd: true } : {}),
      ...(spec.substitution !== undefined && spec.substitution !== null ? { substitution: spec.substitution } : {}),
      ...(spec.targetRule ? { targetRule: spec.targetRule } : {}),
    });
  } catch (e) {
    return failed(e instanceof TargetError ? "target" : "config", oneLine(e));
  }
  // Continue mode has no target: the "boundary" is the end of the recording.
  const t = session.target ?? { requestedNodeId: source.order[source.order.length - 1] ?? "", boundaryNodeId: source.order[source.order.length - 1] ?? "", seq: source.records.length, rule: "continue" };
  details.target = session.target;
  details.nodeHashCheck = session.checksNodeHashes;
  progress.prefixTotal = t.seq;
  progress.boundaryNodeId = t.boundaryNodeId;
  progress.emit("starting");
  if (opts.signal?.aborted) return { status: "cancelled", verified: 0 };

  // The proxy sees this wrapper: every served record / live call is reported as progress.
  const watched: BoundarySession = {
    mode: "replay",
    begin(call): Step {
      const step = session.begin(call);
      if (step.kind === "recorded") {
        progress.verified = session.verified;
        progress.emit("prefix");
      } else if (step.kind === "live") {
        progress.liveCalls++;
        progress.emit("live");
      } else if (step.kind === "substituted") progress.emit("live"); // the correction: no live call
      return step;
    },
    complete: (ticket, outcome) => session.complete(ticket, outcome),
  };

  let stop: ProxyStop | null = null;
  const holder: { mas: MasProcess | null } = { mas: null };
  const replayCfg = source.config.replay as Rec | null | undefined;
  const proxy: BoundaryProxy = await startBoundaryProxy({
    session: watched,
    upstream: spec.upstream ?? undefined,
    toolUpstream: spec.toolUpstream ?? undefined,
    anthropicUpstream: spec.anthropicUpstream ?? undefined,
    mcpUpstream: spec.mcpUpstream ?? undefined,
    models: replayCfg?.models,
    defaultModel: spec.model ?? source.config.model ?? undefined,
    onStop: (s) => {
      stop = s;
      holder.mas?.stop();
    },
  });
  const limit = limitOf(spec.timeoutMs);
  const { run, cancelled, timedOut } = await superviseMas({
    command,
    runner,
    runnerBundleEnv: source.config.runner?.env,
    env: spec.env,
    model: spec.model,
    prompt: source.task.prompt,
    cwd: spec.cwd,
    proxy,
    signal: opts.signal,
    limit,
    holder,
  });
  details.masExitCode = run.exitCode;
  details.masSignal = run.signal;
  details.final = run.final;
  details.stderrTail = run.stderrTail;
  details.checkedNodes = session.checkedNodes;
  details.masked = session.maskReport;
  progress.verified = session.verified;

  if (run.spawnError) return failed("spawn", `cannot start ${command[0]}: ${run.spawnError}`);
  if (cancelled) return { status: "cancelled", verified: session.verified };
  if (timedOut) return failed("timeout", `replay timed out after ${limit} ms (the MAS was stopped after ${session.verified} verified records and ${progress.liveCalls} live calls)`);
  const stopped = stop as ProxyStop | null;
  if (stopped?.kind === "prefix-verified") {
    progress.emit("finishing");
    return { status: "prefix-verified", mode: "native", verified: stopped.verified, boundaryNodeId: t.boundaryNodeId };
  }
  const report: DivergenceReport | null = stopped?.kind === "diverged" ? stopped.report : session.end();
  if (report) return { status: "diverged", mode: "native", report, verified: report.verified };
  progress.emit("finishing");
  const id = spec.newBundleId ?? defaultId(source, t.boundaryNodeId);
  const limited = stopped?.kind === "rollout-limit";
  const bundle = session.toBundle({ id, final: limited ? undefined : run.final, runner: { ...(runner ? { name: runner.name } : {}), command, ...(source.config.runner?.env ? { env: source.config.runner.env } : {}) } });
  return {
    status: "completed",
    mode: "native",
    bundle,
    boundaryNodeId: t.boundaryNodeId,
    verified: session.verified,
    // A substituted record (the correction) is not a live call.
    liveCalls: bundle.records.length - t.seq - (spec.substitution !== undefined && spec.substitution !== null && bundle.records[t.seq]?.meta?.substituted === true ? 1 : 0),
    ...(spec.maxLiveLlm !== undefined ? { rollout: { liveLlm: session.liveLlmCalls, stoppedAtLimit: limited } } : {}),
  };
}

