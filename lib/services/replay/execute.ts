/**
 * The replay executor (lib/services/replay/): ONE entry point that runs "replay from here" for the
 * CLI (`symtrace replay`, cli/replay.ts), the app's replay worker (issue 7) and the node-level
 * experiment methods (issue 13). Node only (child processes,
 * sockets, fetch); the decisions are lib/replay's, the HTTP side is proxy/.
 *
 * Two modes: native when the caller gives a **registered runner** (`spec.runner`, see ./runners.ts
 * `planReplay`) or a command it trusts (`spec.command`: the CLI user typed it); transcript otherwise.
 * A command or environment taken from bundle content (`config.runner.command` / `.env`) is NEVER
 * run here (issue 10 item 1): the bundle only names its runner.
 *
 *   native      (seeds/000 §3, Algorithm 2; the bundle v1 spec §Replay) the MAS command is
 *               restarted behind the OpenAI-compatible proxy + tool gateway (startBoundaryProxy) with a
 *               fail-closed ReplaySession: the recorded prefix is served and verified record by record,
 *               the target boundary (resolveTarget) goes live with q ⊕ Δ (appendGuidance), the rest
 *               of the run is live and recorded (TraceBuilder). Outcomes: completed (new bundle),
 *               prefix-verified (no upstream: the MAS is stopped at the target), diverged (the
 *               first-divergence report, Appendix A.2), cancelled, failed.
 *   transcript  imported transcripts (Who&When, MAD, Langfuse …) have no runner to restart: the
 *               recorded conversation up to (not including) the target node is rebuilt as chat
 *               messages and continued live by one chat-completions call with the same model; the
 *               continuation is one assistant message. Prefix node hashes are recomputed (the
 *               "verified" prefix). Outcomes: completed, prefix-verified (no upstream), cancelled, failed.
 *
 * `executeReplay` never throws for expected outcomes: bad targets, a command that cannot start,
 * an upstream error, a timeout and internal errors all come back as `{ status: "failed", error }`
 * (one line, no stack). `executeReplayWithDetails` returns the same result plus the details the
 * CLI prints (target resolution, node-hash checks, MAS exit code, failure kind).
 *
 * Modules: ./types.ts (spec, progress, result), ./native.ts, ./transcript.ts, ./process.ts (MAS
 * process control: runMasProcess, masEnv, finalOf), ./record.ts (recordRun: record a new native run
 * through the recording proxy), ./helpers.ts (internal). lib/services/replay-exec.ts re-exports the
 * public surface for older imports.
 */
import { ProgressEmitter, oneLine } from "./helpers";
import { runNative } from "./native";
import { runTranscript } from "./transcript";
import type { ReplayProgress, ReplayRunDetails, ReplayRunOptions, ReplayRunResult, ReplayRunSpec } from "./types";

/** Mode a spec runs in: native iff it carries a trusted command or a registered runner (never decided by bundle content). */
export function specModeOf(spec: Pick<ReplayRunSpec, "command" | "runner">): "native" | "transcript" {
  return (spec.command?.length ?? 0) > 0 || spec.runner ? "native" : "transcript";
}

/**
 * Run "replay from here" (see the module doc for the two modes).
 * @returns completed (with the new bundle, valid bundle v1, `parent` = source/target/guidance/mode),
 *   prefix-verified, diverged (native: first-divergence report), cancelled or failed. Never throws.
 */
export async function executeReplay(spec: ReplayRunSpec, opts?: { signal?: AbortSignal; onProgress?: (p: ReplayProgress) => void }): Promise<ReplayRunResult> {
  return (await executeReplayWithDetails(spec, opts)).result;
}

/**
 * `executeReplay` plus the run's details (target resolution, node-hash checks, MAS exit code,
 * failure kind, stderr tail). Never throws.
 */
export async function executeReplayWithDetails(spec: ReplayRunSpec, opts: ReplayRunOptions = {}): Promise<{ result: ReplayRunResult; details: ReplayRunDetails }> {
  const native = specModeOf(spec) === "native";
  const details: ReplayRunDetails = {
    mode: native ? "native" : "transcript",
    target: null,
    checkedNodes: 0,
    nodeHashCheck: false,
    masExitCode: null,
    masSignal: null,
    final: undefined,
    failure: null,
    stderrTail: "",
  };
  const progress = new ProgressEmitter(opts.onProgress);
  let result: ReplayRunResult;
  try {
    result = native ? await runNative(spec, opts, details, progress) : await runTranscript(spec, opts, details, progress);
  } catch (e) {
    details.failure = "internal";
    result = { status: "failed", error: `replay failed: ${oneLine(e)}`, verified: progress.verified };
  }
  return { result, details };
}
