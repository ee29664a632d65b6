/**
 * Record a new native run (snapshot mode, seeds/000 §3.1, Algorithm 1): start the MAS behind the
 * recording proxy (startBoundaryProxy + lib/replay RecordSession), forward every boundary request
 * live, and build a bundle v1 of the run. Used by `symtrace record` (cli/replay.ts) and by the
 * task-level experiment methods (issue 13: each attempt of Unguided Full Rerun, Self-Reflection and
 * Critic-Agent is a new recording with a changed task, SYMTRACE_TASK).
 *
 * What runs: a `command` the caller trusts (its environment plus `env`) or a registered runner
 * (./runners.ts: only its allowed environment, its cwd). A bundle's own command is never taken
 * from bundle content here.
 */
import type { ReplayBundle } from "../../bundle";
import { RecordSession, type BoundarySession, type Step } from "../../replay";
import { startBoundaryProxy, type BoundaryProxy } from "../../../proxy";
import type { RegisteredRunner } from "../runners";
import { limitOf, oneLine } from "./helpers";
import { superviseMas } from "./process";

/** What to record. */
export interface RecordRunSpec {
  /** The task of the run: `prompt` is passed to the MAS as SYMTRACE_TASK ("" → not set) and written to the bundle. */
  task: ReplayBundle["task"];
  /** Live OpenAI-compatible base URL ending in /v1 (every LLM request is forwarded there). */
  upstream: string;
  /** Real tool server for tool calls; null → tool calls fail (tool_result status error). */
  toolUpstream?: string | null;
  /** Live Anthropic base URL without /v1 (default: `upstream` without its /v1). */
  anthropicUpstream?: string | null;
  /** Live MCP server (Streamable HTTP endpoint) behind the MCP gateway; null → MCP tool calls fail. */
  mcpUpstream?: string | null;
  /** A MAS command the caller trusts (runs with the caller's environment plus `env`). Wins over `runner`. */
  command?: string[] | null;
  /** A registered runner (its command, cwd and only its environment, `runnerEnv`). */
  runner?: RegisteredRunner | null;
  /** `config.runner.env` entries offered to a runner's `bundleEnv` allow-list (e.g. the source bundle's). */
  runnerBundleEnv?: Record<string, string> | null;
  /** Name written to `config.runner.name` (default: the runner's name; none for a plain command). */
  runnerName?: string | null;
  /** Id of the new bundle. */
  id: string;
  /** Runtime configuration c of the new bundle (e.g. `{ mas, benchmark }`); model/runner/replay are filled in. */
  config?: ReplayBundle["config"];
  /** Passed to the MAS as SYMTRACE_MODEL when set. */
  model?: string | null;
  /** Extra environment of the MAS (over the runner's or the caller's); OPENAI_API_KEY here is the MAS's key. */
  env?: Record<string, string>;
  /** Working directory of a `command` (default `process.cwd()`); a runner uses its own `cwd`. */
  cwd?: string;
  /** Whole-run limit in ms (default 600000 = 10 min); 0 or Infinity = no limit. Exceeded → failed "timeout". */
  timeoutMs?: number;
}

/** How a recording ended. `liveCalls` = boundary requests (LLM + tool) forwarded live. */
export type RecordRunResult =
  | {
      status: "recorded";
      /** The new bundle v1 (validated; `config.model` = the first LLM request's model). */
      bundle: ReplayBundle;
      masExitCode: number | null;
      masSignal: string | null;
      /** The MAS's `{"final": ...}` stdout value (undefined when it printed none). */
      final: unknown;
      liveCalls: number;
      /** Wall time of the MAS process, ms. */
      masMs: number;
      stderrTail: string;
    }
  | { status: "cancelled"; liveCalls: number; masMs: number }
  | { status: "failed"; kind: "no-command" | "spawn" | "timeout" | "internal"; error: string; liveCalls: number; masMs: number; stderrTail: string };

/** Options of a recording. */
export interface RecordRunOptions {
  /** Abort → the MAS process group is killed and the proxy closed: `cancelled`. */
  signal?: AbortSignal;
  /** Called on every live boundary request (exceptions it throws are ignored). */
  onProgress?: (p: { phase: "starting" | "live" | "finishing"; liveCalls: number }) => void;
}

/**
 * Record one native run through the recording proxy (see the module doc).
 * @returns recorded (the bundle, even when the MAS exited non-zero: `masExitCode` says how it
 *   ended), cancelled, or failed (no command, cannot start, timeout, internal). Never throws.
 */
export async function recordRun(spec: RecordRunSpec, opts: RecordRunOptions = {}): Promise<RecordRunResult> {
  let liveCalls = 0;
  let masMs = 0;
  const emit = (phase: "starting" | "live" | "finishing") => {
    try {
      opts.onProgress?.({ phase, liveCalls });
    } catch {
      /* a progress callback must not break the run */
    }
  };
  const runner = spec.command?.length ? null : (spec.runner ?? null);
  const command = spec.command?.length ? spec.command : (runner?.command ?? []);
  if (command.length === 0) return { status: "failed", kind: "no-command", error: "no command: give a registered runner or a command", liveCalls, masMs, stderrTail: "" };
  if (opts.signal?.aborted) return { status: "cancelled", liveCalls, masMs };
  try {
    const session = new RecordSession({ id: spec.id, task: spec.task, config: spec.config ?? {} });
    const watched: BoundarySession = {
      mode: "record",
      begin(call): Step {
        const step = session.begin(call);
        liveCalls++;
        emit("live");
        return step;
      },
      complete: (ticket, outcome) => session.complete(ticket, outcome),
    };
    emit("starting");
    const proxy: BoundaryProxy = await startBoundaryProxy({ session: watched, upstream: spec.upstream, toolUpstream: spec.toolUpstream ?? undefined, anthropicUpstream: spec.anthropicUpstream ?? undefined, mcpUpstream: spec.mcpUpstream ?? undefined });
    const limit = limitOf(spec.timeoutMs);
    const supervised = await superviseMas({
      command,
      runner,
      runnerBundleEnv: spec.runnerBundleEnv,
      env: spec.env,
      model: spec.model,
      prompt: spec.task.prompt,
      cwd: spec.cwd,
      proxy,
      signal: opts.signal,
      limit,
      holder: { mas: null },
    });
    const { run, cancelled, timedOut } = supervised;
    masMs = supervised.masMs;
    if (run.spawnError) return { status: "failed", kind: "spawn", error: `cannot start ${command[0]}: ${run.spawnError}`, liveCalls, masMs, stderrTail: run.stderrTail };
    if (cancelled) return { status: "cancelled", liveCalls, masMs };
    if (timedOut) return { status: "failed", kind: "timeout", error: `recording timed out after ${limit} ms (the MAS was stopped after ${liveCalls} live calls)`, liveCalls, masMs, stderrTail: run.stderrTail };
    emit("finishing");
    const runnerName = spec.runnerName ?? runner?.name ?? null;
    const bundle = session.toBundle({ final: run.final, runner: { ...(runnerName ? { name: runnerName } : {}), command } });
    const first = bundle.records.find((r) => r.boundary === "llm")?.request as { model?: unknown } | undefined;
    if (typeof first?.model === "string") bundle.config.model = first.model;
    if (proxy.modelsSeen !== undefined) (bundle.config.replay as Record<string, unknown>).models = proxy.modelsSeen;
    return { status: "recorded", bundle, masExitCode: run.exitCode, masSignal: run.signal, final: run.final, liveCalls, masMs, stderrTail: run.stderrTail };
  } catch (e) {
    return { status: "failed", kind: "internal", error: `recording failed: ${oneLine(e)}`, liveCalls, masMs, stderrTail: "" };
  }
}
