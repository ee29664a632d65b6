/**
 * Fake executors for tests and for `SYMTRACE_WORKER_FAKE_EXECUTOR` of the test harness
 * lib/testing/fake-worker.ts (never the production scripts/worker.ts): they walk
 * a pretend prefix step by step (reporting progress), honour the abort signal (→ cancelled), and
 * complete with a copy of the source bundle as the "replayed" bundle (new id, parent = source).
 * No network, no MAS. Never selected unless asked for explicitly.
 */
import { appendFileSync } from "node:fs";
import type { ReplayExecutor, JobReplaySpec } from "./types";

export interface FakeExecutorOptions {
  /** Prefix steps to "verify" (default 5). */
  steps?: number;
  /** Delay per step in ms (default 50). */
  stepMs?: number;
  /** How it ends: completed (default), prefix-verified, diverged, failed, throw. */
  outcome?: "completed" | "prefix-verified" | "diverged" | "failed" | "throw";
  /** Append `runBundleId<TAB>workerTag<TAB>pid` per execution to this file (exactly-once checks). */
  logFile?: string;
  /** Tag written to logFile (default the pid). */
  tag?: string;
  /** Called once per execution (in-process exactly-once checks). */
  onStart?: (spec: JobReplaySpec) => void;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A fake executor (see file header). */
export function fakeExecutor(o: FakeExecutorOptions = {}): ReplayExecutor {
  const steps = o.steps ?? 5;
  const stepMs = o.stepMs ?? 50;
  return async (spec, { signal, onProgress }) => {
    o.onStart?.(spec);
    if (o.logFile) appendFileSync(o.logFile, `${spec.newBundleId ?? spec.source.id}\t${o.tag ?? process.pid}\t${process.pid}\n`);
    const boundaryNodeId = spec.targetNodeId;
    let verified = 0;
    onProgress?.({ phase: "prefix", verified, prefixTotal: steps, liveCalls: 0, boundaryNodeId });
    for (let i = 0; i < steps; i++) {
      await sleep(stepMs, signal);
      if (signal?.aborted) return { status: "cancelled", verified };
      verified++;
      onProgress?.({ phase: "prefix", verified, prefixTotal: steps, liveCalls: 0, boundaryNodeId });
    }
    switch (o.outcome ?? "completed") {
      case "prefix-verified":
        return { status: "prefix-verified", mode: "transcript", verified, boundaryNodeId };
      case "diverged":
        return { status: "diverged", mode: "native", verified, report: { seq: verified, reason: "content", message: "fake divergence" } };
      case "failed":
        return { status: "failed", verified, error: "fake failure" };
      case "throw":
        throw new Error("fake executor crashed");
      default: {
        onProgress?.({ phase: "live", verified, prefixTotal: steps, liveCalls: 1, boundaryNodeId });
        const bundle = {
          ...spec.source,
          id: spec.newBundleId ?? `${spec.source.id}~fake-replay`,
          parent: { bundleId: spec.source.id, targetNodeId: spec.targetNodeId, guidance: spec.guidance, mode: "selective", boundaryNodeId },
        };
        return { status: "completed", mode: "transcript", bundle, boundaryNodeId, verified, liveCalls: 1 };
      }
    }
  };
}

/**
 * The fake executor named by SYMTRACE_WORKER_FAKE_EXECUTOR (read only by the test harness lib/testing/fake-worker.ts):
 * `slow` (40 steps x SYMTRACE_FAKE_STEP_MS, default 250 ms), `fast` (3 x 100 ms), `fail`;
 * SYMTRACE_FAKE_EXEC_LOG names a file that gets one line per execution.
 * @returns null when the variable is unset
 * @throws Error on an unknown name
 */
export function fakeExecutorFromEnv(env: NodeJS.ProcessEnv = process.env, tag?: string): ReplayExecutor | null {
  const kind = env.SYMTRACE_WORKER_FAKE_EXECUTOR;
  if (!kind) return null;
  const stepMs = env.SYMTRACE_FAKE_STEP_MS ? Number(env.SYMTRACE_FAKE_STEP_MS) : undefined;
  const logFile = env.SYMTRACE_FAKE_EXEC_LOG || undefined;
  switch (kind) {
    case "slow":
      return fakeExecutor({ steps: 40, stepMs: stepMs ?? 250, logFile, tag });
    case "fast":
      return fakeExecutor({ steps: 3, stepMs: stepMs ?? 100, logFile, tag });
    case "fail":
      return fakeExecutor({ steps: 2, stepMs: stepMs ?? 50, outcome: "failed", logFile, tag });
    default:
      throw new Error(`SYMTRACE_WORKER_FAKE_EXECUTOR must be slow, fast or fail; got "${kind}"`);
  }
}
