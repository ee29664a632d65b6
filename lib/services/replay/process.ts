/**
 * MAS process control shared by native replay (./native.ts), recording (./record.ts) and the CLI:
 * spawn a MAS in its own process group and collect its `{"final": ...}` line (runMasProcess,
 * finalOf), and the environment of a MAS behind the recording/replay proxy (masEnv).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import type { BoundaryProxy } from "../../../proxy";
import { runnerEnv, type RegisteredRunner } from "../runners";
import { spawnHelperAvailable, spawnViaHelper, type HelperChild } from "./spawn-helper";
import type { MasProcess, MasRunResult } from "./types";

/** Last stdout line that is a JSON object with a `final` key. */
export function finalOf(stdout: string): unknown {
  const lines = stdout.split("\n").map((l) => l.trim()).filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const v = JSON.parse(lines[i]);
      if (v && typeof v === "object" && !Array.isArray(v) && "final" in v) return (v as { final: unknown }).final;
    } catch {
      /* not JSON */
    }
  }
  return undefined;
}

const STDERR_TAIL = 4096;

/**
 * Spawn a MAS in its own process group (detached), stdout collected for the final value, stderr
 * passed through to our stderr. Started through the spawn helper (./spawn-helper.ts) where it is
 * available, so the runner's event loop does not wait for the fork (SYMTRACE_SPAWN_HELPER=0: directly).
 * @param env merged over `process.env` (or, with `opts.inheritEnv: false`, the whole environment)
 */
export function runMasProcess(command: string[], env: Record<string, string>, opts: { cwd?: string; inheritEnv?: boolean } = {}): MasProcess {
  if (spawnHelperAvailable()) return runMasViaHelper(command, env, opts);
  let child: ChildProcess | undefined;
  let out = "";
  let errTail = "";
  const done = new Promise<MasRunResult>((resolve) => {
    const t0 = performance.timeOrigin + performance.now();
    try {
      child = spawn(command[0], command.slice(1), { env: (opts.inheritEnv === false ? env : { ...process.env, ...env }) as NodeJS.ProcessEnv, cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    } catch (e) {
      resolve({ exitCode: null, signal: null, final: undefined, spawnError: (e as Error).message, stderrTail: "" });
      return;
    }
    child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr!.on("data", (c: Buffer) => {
      process.stderr.write(c);
      errTail = (errTail + c.toString("utf8")).slice(-STDERR_TAIL);
    });
    child.once("error", (e) => resolve({ exitCode: null, signal: null, final: undefined, spawnError: e.message, stderrTail: errTail }));
    // Benchmark hook, as in ./spawn-helper-child.mjs: the process's lifetime as its parent sees it.
    const timing = env.SYMTRACE_PROCESS_TIMING_FILE ?? (opts.inheritEnv === false ? undefined : process.env.SYMTRACE_PROCESS_TIMING_FILE);
    if (timing) child.once("exit", () => appendFileSync(timing, `${(performance.timeOrigin + performance.now() - t0).toFixed(1)} ${t0.toFixed(1)}\n`));
    child.once("close", (code, signal) => resolve({ exitCode: code, signal, final: finalOf(out), spawnError: null, stderrTail: errTail }));
  });
  const signalGroup = (sig: NodeJS.Signals) => {
    if (!child || child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      /* already gone */
    }
  };
  return {
    done,
    stop: () => {
      if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      signalGroup("SIGTERM");
      setTimeout(() => signalGroup("SIGKILL"), 2000).unref();
    },
    kill: () => signalGroup("SIGKILL"),
  };
}

/** {@link runMasProcess} through the spawn helper (./spawn-helper.ts): same result, the runner never forks. */
function runMasViaHelper(command: string[], env: Record<string, string>, opts: { cwd?: string; inheritEnv?: boolean }): MasProcess {
  let out = "";
  let errTail = "";
  let child: HelperChild;
  try {
    child = spawnViaHelper(command[0], command.slice(1), { env: (opts.inheritEnv === false ? env : { ...process.env, ...env }) as NodeJS.ProcessEnv, cwd: opts.cwd });
  } catch (e) {
    const r: MasRunResult = { exitCode: null, signal: null, final: undefined, spawnError: (e as Error).message, stderrTail: "" };
    return { done: Promise.resolve(r), stop: () => {}, kill: () => {} };
  }
  child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => {
    process.stderr.write(c);
    errTail = (errTail + c.toString("utf8")).slice(-STDERR_TAIL);
  });
  const done = child.closed.then(
    ({ code, signal, error }): MasRunResult => (error ? { exitCode: null, signal: null, final: undefined, spawnError: error, stderrTail: errTail } : { exitCode: code, signal, final: finalOf(out), spawnError: null, stderrTail: errTail }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    done,
    stop: () => {
      if (!running()) return;
      child.signalGroup("SIGTERM");
      setTimeout(() => child.signalGroup("SIGKILL"), 2000).unref();
    },
    kill: () => child.signalGroup("SIGKILL"),
  };
}

/**
 * Environment of a MAS behind the proxy, over `extra`: OPENAI_BASE_URL (proxy, ends /v1),
 * ANTHROPIC_BASE_URL (the proxy's root: the Anthropic SDK appends /v1/messages), SYMTRACE_TOOL_URL
 * (tool gateway), SYMTRACE_MCP_URL (the gateway's MCP Streamable HTTP endpoint, `<tool url>/mcp`),
 * OPENAI_API_KEY (ours, or "symtrace-local"), ANTHROPIC_API_KEY (`extra`'s, ours, or
 * "symtrace-local"; the SDKs refuse to start without one), SYMTRACE_TASK (the task prompt).
 * @param urls the proxy's Anthropic and MCP URLs (default: derived from `proxyUrl` / `toolUrl`)
 */
export function masEnv(proxyUrl: string, toolUrl: string, task: string, extra: Record<string, string> = {}, apiKey?: string, urls: { anthropicUrl?: string; mcpUrl?: string } = {}): Record<string, string> {
  return {
    ...extra,
    OPENAI_BASE_URL: proxyUrl,
    ANTHROPIC_BASE_URL: urls.anthropicUrl ?? proxyUrl.replace(/\/v1\/?$/, ""),
    SYMTRACE_TOOL_URL: toolUrl,
    SYMTRACE_MCP_URL: urls.mcpUrl ?? `${toolUrl.replace(/\/+$/, "")}/mcp`,
    OPENAI_API_KEY: apiKey || process.env.OPENAI_API_KEY || "symtrace-local",
    ANTHROPIC_API_KEY: extra.ANTHROPIC_API_KEY || process.env.ANTHROPIC_API_KEY || "symtrace-local",
    ...(task ? { SYMTRACE_TASK: task } : {}),
  };
}

/**
 * One MAS run under the boundary proxy, for a replay and a recording alike: the MAS started with
 * the proxy's URLs (a registered runner's environment and folder, else the command's), stopped on
 * `signal` or after `limit` ms, killed whole when stopped (nothing of the process group outlives
 * the run), the proxy drained when it ended by itself, and closed in every case. `holder.mas` is
 * the running process, for a caller that must stop it from elsewhere (the replay's divergence stop).
 * @returns the process result, whether it was cancelled or timed out, and its wall time in ms
 */
export async function superviseMas(o: {
  command: string[];
  runner: RegisteredRunner | null;
  /** The bundle's runner environment (kept only where the runner allows). */
  runnerBundleEnv?: Record<string, string> | null;
  env?: Record<string, string>;
  model?: string | null;
  prompt: string;
  cwd?: string;
  proxy: BoundaryProxy;
  signal?: AbortSignal;
  limit: number | null;
  holder: { mas: MasProcess | null };
}): Promise<{ run: MasRunResult; cancelled: boolean; timedOut: boolean; masMs: number }> {
  const { proxy, signal, limit, holder } = o;
  let cancelled = false;
  let timedOut = false;
  const onAbort = () => {
    cancelled = true;
    holder.mas?.stop();
  };
  let timer: NodeJS.Timeout | null = null;
  const t0 = performance.now();
  try {
    const base = o.runner ? runnerEnv(o.runner, o.runnerBundleEnv) : {};
    const extra: Record<string, string> = { ...base, ...(o.env ?? {}), ...(o.model ? { SYMTRACE_MODEL: o.model } : {}) };
    const mas = runMasProcess(o.command, masEnv(proxy.llmUrl, proxy.toolUrl, o.prompt, extra, o.env?.OPENAI_API_KEY, proxy), o.runner ? { cwd: o.runner.cwd, inheritEnv: false } : { cwd: o.cwd });
    holder.mas = mas;
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    if (limit !== null) {
      timer = setTimeout(() => {
        timedOut = true;
        mas.stop();
      }, limit);
    }
    const run = await mas.done;
    const masMs = Math.round(performance.now() - t0);
    if (cancelled || timedOut) mas.kill();
    else await proxy.idle();
    return { run, cancelled, timedOut, masMs };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (timer) clearTimeout(timer);
    await proxy.close();
  }
}
