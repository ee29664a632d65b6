/**
 * Types of the replay executor (lib/services/replay/): what a run is given (ReplayRunSpec), what it
 * reports while running (ReplayProgress) and how it ends (ReplayRunResult, ReplayRunDetails), and
 * how a MAS child process ends (MasRunResult, MasProcess). See ./execute.ts for the entry points.
 */
import type { ReplayBundle } from "../../bundle";
import type { DivergenceReport, TargetResolution } from "../../replay";
import type { RegisteredRunner } from "../runners";

/** What to replay, where, with which guidance and against which live endpoints. */
export interface ReplayRunSpec {
  /** The source bundle (from lib/db exportBundle, or a validated file). Must be a valid bundle v1. */
  source: ReplayBundle;
  /**
   * Any node of the source. Native: mapped by `resolveTarget` to the LLM boundary where the
   * intervention acts (a node with no LLM record at or after it → failed). Transcript: the
   * conversation is cut right before this node.
   */
  targetNodeId: string;
  /** Δ, appended as one `{ role: "user", content: Δ }` message to the target boundary's request (may be ""). */
  guidance: string;
  /**
   * Substitution (issue 14 item 4): the proposed correction a* replaces the target boundary's
   * response instead of a model call (native: lib/replay ReplaySession `substitution`, the
   * boundary is the call that produced the node, `resolveOutputTarget`; transcript: the
   * continuation IS the correction, no live call). Recorded with `meta.substituted: true` and
   * `parent.substitution`. Not with a non-empty `guidance`. Null/undefined: no substitution.
   */
  substitution?: string | null;
  /**
   * Native target mapping (lib/replay ReplaySession `targetRule`): "output" maps the node to the
   * call whose response is its output (the matched control of a substitution); default
   * "intervention" (`resolveTarget`), or "output" with a substitution.
   */
  targetRule?: "intervention" | "output";
  /** Live OpenAI-compatible base URL ending in /v1; null → stop at the target: `prefix-verified`. */
  upstream: string | null;
  /** Real tool server for live tool calls (native); null → live tool calls fail (tool_result status error). */
  toolUpstream: string | null;
  /** Live Anthropic base URL without /v1 (native; default: `upstream` without its /v1). */
  anthropicUpstream?: string | null;
  /** Live MCP server (Streamable HTTP endpoint) behind the MCP gateway (native). */
  mcpUpstream?: string | null;
  /**
   * Model override for live calls. Transcript: the continuation's model. Native: passed to the MAS
   * as SYMTRACE_MODEL (the reference MAS put it in every request, so the first recorded request
   * then differs: a native replay with another model diverges at seq 0 unless it was recorded so).
   */
  model?: string | null;
  /**
   * A MAS command the caller trusts (the CLI: typed after `--`, or the bundle's own with
   * `--allow-bundle-command`). Runs with the caller's environment plus `env`. Forces native mode.
   * Never defaulted from the bundle.
   */
  command?: string[] | null;
  /**
   * A registered runner (./runners.ts, resolved by `planReplay`): native mode with its command, its
   * cwd and only its environment (`runnerEnv`: base + passEnv + allowed bundle keys + fixed env).
   * Used when no `command` is given.
   */
  runner?: RegisteredRunner | null;
  /** Working directory of a `command` (default `process.cwd()`); a runner uses its own `cwd`. */
  cwd?: string;
  /** Extra environment of the MAS; OPENAI_API_KEY here is also the transcript call's key. */
  env?: Record<string, string>;
  /** Id of the output bundle (default `${source.id}/replay/${boundaryNodeId}/${Date.now() base 36}`). */
  newBundleId?: string;
  /** Whole-run limit in ms (default 600000 = 10 min); 0 or Infinity = no limit. Exceeded → failed. */
  timeoutMs?: number;
  /**
   * Partial rollout (seeds/002 L; native only): stop cleanly after this many live LLM boundaries
   * (the target's request is the first). The MAS is stopped at its next LLM request and the bundle
   * so far is returned as `completed` with `rollout.stoppedAtLimit = true` (`parent.rollout` says so).
   */
  maxLiveLlm?: number;
  /**
   * "Continue" replay (native only): replay and verify the whole source bundle, then run live from
   * its end (`targetNodeId` is ignored; `guidance`, if any, goes to the first live LLM request).
   * Extends a partial rollout. Needs `upstream`.
   */
  continueAtEnd?: boolean;
}

/**
 * Progress of a run. `verified` never decreases; `prefixTotal` is the number of records before the
 * boundary (native) or of nodes before the target (transcript); a completed run's last progress
 * has `phase: "finishing"` and `verified === prefixTotal`.
 */
export interface ReplayProgress {
  phase: "starting" | "prefix" | "live" | "finishing";
  verified: number;
  prefixTotal: number;
  /** Live boundary calls made so far (native: LLM and tool requests forwarded live; transcript: 0 or 1). */
  liveCalls: number;
  /** Native: the resolved LLM boundary; transcript: the target node; null before resolution. */
  boundaryNodeId: string | null;
}

/** How a run ended. */
export type ReplayRunResult =
  | {
      status: "completed";
      mode: "native" | "transcript";
      bundle: ReplayBundle;
      boundaryNodeId: string;
      verified: number;
      liveCalls: number;
      /** Partial rollouts only: live LLM steps run and whether the run was stopped at the limit (else the MAS ended first). */
      rollout?: { liveLlm: number; stoppedAtLimit: boolean };
    }
  | { status: "prefix-verified"; mode: "native" | "transcript"; verified: number; boundaryNodeId: string }
  | { status: "diverged"; mode: "native"; report: DivergenceReport; verified: number }
  | { status: "cancelled"; verified: number }
  | { status: "failed"; error: string; verified: number };

/** Why a run failed (for callers that map failures, e.g. CLI exit codes). */
export type ReplayFailureKind = "target" | "config" | "no-command" | "spawn" | "timeout" | "upstream" | "internal";

/** What the CLI prints besides the result. */
export interface ReplayRunDetails {
  mode: "native" | "transcript";
  /** Native: the target resolution (null when it failed). Transcript: null. */
  target: TargetResolution | null;
  /** Native: prefix nodes whose content hash was re-derived and checked; transcript: prefix nodes re-hashed. */
  checkedNodes: number;
  /** Native: whether node hashes are checked (source recorded by the symtrace proxy). */
  nodeHashCheck: boolean;
  /** Native: how the MAS ended (null when it was killed or never started). */
  masExitCode: number | null;
  masSignal: string | null;
  /** Native: the MAS's `{"final": ...}` stdout value; transcript: the continuation text. */
  final: unknown;
  /** Set when `result.status === "failed"`. */
  failure: ReplayFailureKind | null;
  /** The last 4 KB of the MAS's stderr (it is also passed through to our stderr). */
  stderrTail: string;
  /**
   * Native: what `config.replay.masks` and the renaming of client-invented ids changed in the
   * matched requests (issue 21 item 5); null/absent when the bundle needs neither.
   */
  masked?: { masks: number; renamedIds: boolean; masked: { pointer: string; rule: string; from: string; to: string }[] } | null;
}

/** Options of a run. */
export interface ReplayRunOptions {
  /** Abort → the MAS process tree is killed, the proxy closed (or the transcript call aborted): `cancelled`. */
  signal?: AbortSignal;
  /** Called synchronously on progress; exceptions it throws are ignored. */
  onProgress?: (p: ReplayProgress) => void;
}

/** How a MAS process ended. */
export interface MasRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last stdout line that is a JSON object with a `final` key (its value), else undefined. */
  final: unknown;
  /** Set when the command could not be started (ENOENT, …). */
  spawnError: string | null;
  /** Last 4 KB of stderr. */
  stderrTail: string;
}

/** A running MAS: `done` resolves when it exited; `stop()` kills its whole process group. */
export interface MasProcess {
  done: Promise<MasRunResult>;
  /** SIGTERM to the process group, SIGKILL 2 s later if still running. */
  stop(): void;
  /** SIGKILL to the process group now (no-op when it is gone). */
  kill(): void;
}

